"""The text forms of a decision: the one-line verdict and the --explain breakdown."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.routing import Router, RouteRequest
from engine.routing.explain import headline, render_text
from engine.routing.snapshot import Snapshot
from engine.routing.why import check_rules

Build = Callable[..., Snapshot]
Parts = tuple[list[dict[str, Any]], dict[str, Any]]


def test_headlines_name_the_layer_and_what_decided(bank: Snapshot) -> None:
    router = Router(bank)
    assert headline(router.route(RouteRequest("concierge", "x", tool="handoff_cards"))) == \
        "cards (trigger handoff_cards)"
    assert headline(router.route(RouteRequest("concierge", "x", target="cards"))) == \
        "cards (trigger: explicit target)"
    assert headline(router.route(RouteRequest("concierge", "stolen visa"))) == \
        "fraud (keyword: fraud, cards)"
    assert headline(router.route(RouteRequest("fraud", "hello"))) == "concierge (fallback)"
    assert headline(router.route(RouteRequest("concierge", "hello"))) == \
        "refused (no_route): nothing matched, and the fallback is the sender itself: the " \
        "request stays with it"


def test_explain_lists_every_rule_with_its_fate(build: Build, bank_parts: Parts) -> None:
    agents, capabilities = bank_parts
    card = {"keywords": {"any": ["card"]}}
    rules = [
        {"id": "vip", "to": "invest", "priority": 9, "when": {"context": {"tier": "gold"}}},
        {"id": "blocked", "to": "concierge", "priority": 5, "when": card},
        {"id": "cards", "to": "cards", "priority": 1, "when": card},
        {"id": "late", "to": "invest", "when": card},
    ]
    snapshot = build(agents, capabilities=capabilities, rules=rules)
    request = RouteRequest("concierge", "my card")
    decision = Router(snapshot).route(request)
    assert snapshot.tables is not None
    checks = check_rules(snapshot.tables.rules, snapshot.keyword_index, request)
    text = render_text(decision, explain=True, checks=checks)
    assert text.splitlines()[0] == "cards (rule cards)"
    assert "    vip -> invest (priority 9): no match: context 'tier' is not 'gold'" in text
    assert "    blocked -> concierge (priority 5): matched, dropped: self_handoff" in text
    assert "    cards -> cards (priority 1): matched, chosen" in text
    assert "    late -> invest (priority 0): matched, not reached" in text
    assert render_text(decision, explain=False) == "cards (rule cards)"
