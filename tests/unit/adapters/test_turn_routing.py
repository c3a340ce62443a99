"""The caller's words through the engine: the entry agent's turns move on rules, keywords and
examples; a specialist's only on rules; the fallback never moves anyone; a turn that stays
records nothing. A real AsyncEngine on the banking set; no framework needed."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine.adapters.turn_routing import TURNS_OFF, TurnRouting, route_turn
from engine.routing import Layer
from engine.runtime.async_engine import AsyncEngine
from tests.unit.adapters.conftest import BANKING


def turn(holder: str, words: str, routing: TurnRouting | None = None) -> Any:
    """The outcome of one caller turn while `holder` has the call, and every record made."""
    async def main() -> Any:
        async with await AsyncEngine.open(BANKING) as engine:
            session = engine.session(active_agent=holder)
            outcome = await route_turn(engine, session, words, {"customer_id": "C-1"}, routing)
            return outcome, await engine.query()

    return asyncio.run(main())


@pytest.mark.parametrize(("holder", "words", "target", "layer"), [
    ("concierge", "Someone stole my card last night.", "fraud_agent", "rule"),
    ("concierge", "I would like to invest in index funds", "investment_advisor", "keyword"),
    ("claims", "Turns out I never authorized this purchase at all.", "fraud_agent", "rule"),
], ids=["entry-rule", "entry-keyword", "specialist-rule"])
def test_a_turn_moves_the_caller_where_an_allowed_layer_routes(
    holder: str, words: str, target: str, layer: str
) -> None:
    outcome, records = turn(holder, words)
    assert outcome is not None and outcome.target == target
    assert outcome.decision.layer.value == layer
    assert [(r.request.from_agent, r.request.to_agent, r.status.value) for r in records] == [
        (holder, target, "pending")]


@pytest.mark.parametrize(("holder", "words"), [
    ("concierge", "Can you check my account balance?"),  # no route: the entry agent's own call
    ("fraud_agent", "It ends in 4421."),                 # another agent's example: not on turns
    ("fraud_agent", "Please freeze it."),                # the fallback: never on turns
    ("concierge", "   "),
], ids=["no-route", "specialist-example", "fallback", "blank"])
def test_a_turn_the_holder_keeps_records_nothing(holder: str, words: str) -> None:
    outcome, records = turn(holder, words)
    assert outcome is None and records == []


def test_turn_routing_is_configurable_and_can_be_turned_off() -> None:
    assert turn("concierge", "Someone stole my card last night.", TURNS_OFF) == (None, [])
    examples = TurnRouting(specialists=frozenset({Layer.rule, Layer.example}))
    outcome, _ = turn("fraud_agent", "It ends in 4421.", examples)
    assert outcome is not None and outcome.target == "concierge"
    assert not TurnRouting(entry=frozenset(Layer)).allows(Layer.fallback, at_entry=True)


def test_the_holder_a_frameworks_own_state_names_decides_instead_of_the_sessions() -> None:
    async def main() -> Any:
        async with await AsyncEngine.open(BANKING) as engine:
            session = engine.session(active_agent="concierge")
            words = "I would like to invest in index funds"  # a keyword: moves from the entry
            at_claims = await route_turn(engine, session, words, {}, holder="claims")
            at_entry = await route_turn(engine, session, words, {})
            return at_claims, at_entry, await engine.query()

    at_claims, at_entry, records = asyncio.run(main())
    assert at_claims is None  # claims is a specialist: keywords do not move its caller
    assert at_entry is not None and at_entry.target == "investment_advisor"
    assert [(r.request.from_agent, r.request.to_agent) for r in records] == [
        ("concierge", "investment_advisor")]


def test_a_move_from_the_named_holder_is_recorded_as_sent_by_it() -> None:
    async def main() -> Any:
        async with await AsyncEngine.open(BANKING) as engine:
            session = engine.session(active_agent="concierge")
            words = "Turns out I never authorized this purchase at all."
            return await route_turn(engine, session, words, {}, holder="claims")

    outcome = asyncio.run(main())
    assert outcome is not None and outcome.target == "fraud_agent"
    assert outcome.record.request.from_agent == "claims"
