"""Fuzz target over Engine.handoff: any caller input gives an outcome with an audited record,
no exception, nothing secret stored or emitted, and no network use (400 inputs, a few
seconds)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.lifecycle import HandoffStatus
from engine.runtime.engine import Engine
from engine.runtime.hooks import Event

BANKING = Path(__file__).resolve().parents[3] / "configs" / "banking"
SECRET = "s3cr3t-V4LUE"
AGENTS = ["concierge", "fraud_agent", "claims", "card_recommendation", "investment_advisor",
          "compliance_desk"]
TOOLS = [f"handoff_{name}" for name in AGENTS]


class Hostile:
    def __repr__(self) -> str:
        return "Hostile()"


any_text = st.text(alphabet=st.characters(blacklist_categories=()), max_size=40)
scalars = (st.none() | st.booleans() | st.integers(min_value=-(2**80), max_value=2**80)
           | st.floats() | any_text | st.binary(max_size=4) | st.just(Hostile()))
keys = any_text | st.integers() | st.sampled_from(["password", "API-Key", "token", "reason",
                                                   "card_last4", "customer_id"])
data = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4)
    | st.tuples(inner, inner) | st.frozensets(st.integers(), max_size=2),
    max_leaves=12,
)


@st.composite
def deep(draw: st.DrawFn) -> Any:
    value: Any = draw(scalars)
    for _ in range(draw(st.integers(0, 120))):
        value = {"child": value} if draw(st.booleans()) else [value]
    return value


mappings = st.dictionaries(keys, data | deep(), max_size=5)
secrets = st.fixed_dictionaries({"password": st.just(SECRET),
                                 "nested": st.fixed_dictionaries({"token": st.just(SECRET)})})
arguments = st.fixed_dictionaries(
    {},
    optional={
        "text": any_text | st.integers() | st.just("stolen card " * 10_000),
        "sender": st.sampled_from(AGENTS) | any_text | st.integers(),
        "tool": st.none() | st.sampled_from(TOOLS) | any_text | st.integers(),
        "target": st.none() | st.sampled_from(AGENTS) | any_text,
        "context": st.none() | mappings | (mappings | st.just({})).map(
            lambda m: {**m, "auth": {"password": SECRET}}) | data,
        "tool_args": st.none() | mappings | secrets
        | st.fixed_dictionaries({"reason": any_text, "api_key": st.just(SECRET)}),
        "priority": st.integers(-3, 14) | st.none() | any_text | st.booleans(),
    },
)


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    with Engine(BANKING, sweep_interval_s=None) as engine:
        yield engine


@pytest.mark.slow
@settings(max_examples=400, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(call=arguments)
def test_any_caller_input_gives_an_audited_outcome(engine: Engine, call: dict[str, Any]) -> None:
    call.setdefault("sender", "concierge")
    events: list[Event] = []
    engine.hooks.add("handoff_created", events.append)
    connects: list[object] = []
    try:
        with mock.patch.object(socket.socket, "connect", side_effect=connects.append), \
                mock.patch.object(socket, "create_connection", side_effect=connects.append):
            outcome = engine.handoff(**call)
    finally:
        engine.hooks._hooks["handoff_created"].remove(events.append)
    stored = engine.manager.store.get(outcome.record.record_id)
    assert stored == engine.manager.stored_form(outcome.record)
    assert stored.status in (HandoffStatus.pending, HandoffStatus.rejected)
    assert (stored.status is HandoffStatus.rejected) == (outcome.target is None)
    assert stored.model_dump_json()  # storable as JSON
    assert SECRET not in repr(stored) and SECRET not in repr(events) and len(events) == 1
    assert SECRET not in repr([event.data["decision"] for event in events])
    assert connects == []
