"""The rule dispatch index never hides a rule that matches: routing through it gives the
same rule as evaluating every rule in order."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.routing import Router, RouteRequest
from engine.routing.conditions import TextView, rule_matches
from engine.routing.snapshot import Snapshot
from engine.routing.why import check_rules

Build = Callable[..., Snapshot]
AGENTS = [
    {"name": name, "capabilities": [capability]}
    for name, capability in (("a", "cards"), ("b", "loans"), ("c", "fx"))
]
VOCABULARY = {"cards": ["card"], "loans": ["loan", "home loan"], "fx": ["currency"]}
WORDS = ["card", "loan", "home", "currency", "new", "hello"]

conditions = st.fixed_dictionaries({}, optional={
    "tool": st.lists(st.sampled_from(["t1", "t2"]), min_size=1, unique=True),
    "from": st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, unique=True),
    "keywords": st.fixed_dictionaries({}, optional={
        "any": st.lists(st.sampled_from([*WORDS, "home loan", "new card"]), min_size=1,
                        unique=True),
        "all": st.lists(st.sampled_from(WORDS), min_size=1, unique=True),
    }),
    "capabilities": st.lists(st.sampled_from(sorted(VOCABULARY)), min_size=1, unique=True),
    "priority": st.fixed_dictionaries({"min": st.integers(1, 6), "max": st.integers(5, 10)}),
    "context": st.dictionaries(st.sampled_from(["tier", "n"]),
                               st.sampled_from(["gold", 1, True, ("x",)]), max_size=2),
})
rules = st.lists(
    st.fixed_dictionaries({"to": st.sampled_from(["a", "b", "c"]), "priority": st.integers(0, 2),
                           "when": conditions}),
    max_size=6,
)
requests = st.builds(
    RouteRequest,
    sender=st.sampled_from(["a", "b", "c"]),
    text=st.lists(st.sampled_from(WORDS), max_size=5).map(" ".join),
    tool=st.sampled_from([None, "t1", "t2"]),
    context=st.dictionaries(st.sampled_from(["tier", "n"]),
                            st.sampled_from(["gold", "blue", 1, 2, True, ["x"]]), max_size=2),
    priority=st.integers(1, 10),
)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(drawn=rules, request=requests)
def test_dispatch_finds_the_same_rule_as_a_full_scan(
    build: Build, drawn: list[dict[str, Any]], request: RouteRequest
) -> None:
    rules_ = [{"id": f"r{n}", **rule} for n, rule in enumerate(drawn)]
    snapshot = build(AGENTS, capabilities=VOCABULARY, rules=rules_)
    assert snapshot.tables is not None
    text = TextView(request.text, snapshot.keyword_index)
    matching = [r.id for r in snapshot.tables.rules if rule_matches(r, request, text) is not None]
    offered = snapshot.tables.dispatch.candidates(request, text)
    assert set(matching) <= {snapshot.tables.rules[n].id for n in offered}
    decision = Router(snapshot).route(request)
    tried = [c.rule for c in decision.candidates if c.rule is not None]
    assert tried == matching[: len(tried)]


@settings(max_examples=150, deadline=None)
@given(drawn=rules, request=requests)
def test_rule_checks_agree_with_the_router(
    build: Build, drawn: list[dict[str, Any]], request: RouteRequest
) -> None:
    rules_ = [{"id": f"r{n}", **rule} for n, rule in enumerate(drawn)]
    snapshot = build(AGENTS, capabilities=VOCABULARY, rules=rules_)
    assert snapshot.tables is not None
    text = TextView(request.text, snapshot.keyword_index)
    checks = check_rules(snapshot.tables.rules, snapshot.keyword_index, request)
    assert [c.rule for c in checks] == [r.id for r in snapshot.tables.rules]
    for check, rule in zip(checks, snapshot.tables.rules, strict=True):
        assert (check.failed is None) == (rule_matches(rule, request, text) is not None)
