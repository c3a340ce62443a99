"""The playground routes what the form holds with `handoff route`'s own checks and code."""

from __future__ import annotations

import pytest

from engine.console.playground import MAX_TEXT, Form, route
from engine.errors import UsageError
from engine.loading.loader import load_config
from engine.routing.router import Router

from .conftest import BANKING


@pytest.fixture(scope="module")
def router() -> Router:
    return Router(load_config(BANKING))


def test_a_sentence_from_the_entry_by_default(router: Router) -> None:
    explained = route(router, Form.parse({"text": "my card was stolen"}))
    decision = explained.decision
    assert (decision.request.sender, decision.target, decision.rule) == \
        ("concierge", "fraud_agent", "lost-or-stolen-card")
    verdicts = {c.rule: explained.rule_verdict(c) for c in explained.checks}
    assert verdicts["lost-or-stolen-card"] == "matched, chosen"
    assert explained.normalized == explained.trace[-1][1]


def test_context_tool_priority_and_hops_are_read(router: Router) -> None:
    form = Form.parse({"text": "I want to invest in a fund", "sender": "concierge",
                       "context": "customer_tier=private\n\n", "priority": "7",
                       "hops": "concierge:fraud_agent\nfraud_agent:concierge"})
    decision = route(router, form).decision
    assert (decision.target, decision.rule) == ("investment_advisor", "private-client-investing")
    assert decision.request.context == {"customer_tier": "private"}
    assert decision.request.priority == 7
    tool = route(router, Form.parse({"text": "help", "tool": "handoff_claims"})).decision
    assert (tool.target, tool.layer.value if tool.layer else None) == ("claims", "trigger")


@pytest.mark.parametrize(("fields", "message"), [
    ({"sender": "nobody"}, "'nobody': unknown agent"),
    ({"tool": "handoff_nobody"}, "'handoff_nobody': unknown tool"),
    ({"priority": "11"}, "must be between 1 and 10"),
    ({"priority": "high"}, "expected a whole number"),
    ({"context": "tier"}, "expected KEY=VALUE"),
    ({"hops": "concierge"}, "expected FROM:TO"),
    ({"hops": "concierge:nobody"}, "--hop 'concierge:nobody': unknown agent 'nobody'"),
    ({"text": "x" * (MAX_TEXT + 1)}, "longer than"),
])
def test_bad_fields_are_named(router: Router, fields: dict[str, str], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        route(router, Form.parse({"text": "hello", **fields}))


def test_an_empty_form_is_not_submitted() -> None:
    assert not Form.parse({"text": "  "}).submitted
    assert Form.parse({}).priority == "5"
