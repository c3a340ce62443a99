"""Engine.handoff returns an outcome for any caller input: bad data is a refusal with a typed
reason and an audited `rejected` record holding what can be stored safely."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any

import pytest

from engine.errors import RecordNotFound, UsageError
from engine.lifecycle import HandoffRecord, HandoffStatus
from engine.routing import RouteRequest
from engine.runtime.engine import Engine, HandoffOutcome
from engine.runtime.inputs import INVALID_INPUT, UNKNOWN_SENDER
from engine.stores import MemoryStore, SQLiteStore, Store, open_store

BANKING = Path(__file__).resolve().parents[3] / "configs" / "banking"


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    with Engine(BANKING, store=SQLiteStore(tmp_path / "records.db"),
                sweep_interval_s=None) as engine:
        yield engine


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def any_engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """An engine on each store: what it refuses and records must not depend on the store."""
    store: Store = (
        MemoryStore() if request.param == "memory"
        else SQLiteStore(tmp_path / "records.db") if request.param == "sqlite"
        else open_store(request.getfixturevalue("postgres_url"))
    )
    with Engine(BANKING, store=store, sweep_interval_s=None) as engine:
        yield engine


def nested(depth: int, key: str = "a") -> dict[str, Any]:
    data: dict[str, Any] = {}
    for _ in range(depth):
        data = {key: data}
    return data


def refused(engine: Engine, outcome: HandoffOutcome, reason: str = INVALID_INPUT) -> HandoffRecord:
    """The outcome is a refusal with `reason`, and its record is stored `rejected` with it."""
    assert outcome.target is None and outcome.reason == reason
    assert outcome.system_vars == {}
    stored = engine.manager.get(outcome.record.record_id)
    assert stored == outcome.record and stored.status is HandoffStatus.rejected
    assert stored.response is not None and stored.response.reason.startswith(f"{reason}: ")
    assert [move.to for move in stored.history] == [HandoffStatus.pending,
                                                    HandoffStatus.rejected]
    return stored


def test_context_nested_300_deep_is_refused_and_stored_cut(engine: Engine) -> None:
    outcome = engine.handoff("my card was stolen", sender="concierge", context=nested(300))
    stored = refused(engine, outcome)
    assert "context" in stored.response.reason and "deeper than 32" in stored.response.reason  # type: ignore[union-attr]
    depth, value = 0, stored.request.context
    while isinstance(value, dict):
        value, depth = value["a"], depth + 1
    assert depth == 32 and value == "[cut: nested deeper than 32 levels]"


def test_a_lone_surrogate_in_the_text_is_refused_and_stored_replaced(engine: Engine) -> None:
    outcome = engine.handoff("my card \ud800 was stolen", sender="concierge")
    stored = refused(engine, outcome)
    assert stored.request.task_description == "my card \ufffd was stolen"
    assert "text" in stored.response.reason and "surrogate" in stored.response.reason  # type: ignore[union-attr]


def test_non_string_context_keys_are_refused_and_stored_as_text(engine: Engine) -> None:
    outcome = engine.handoff("hi", sender="concierge", context={1: "x", (1, 2): "y", "ok": 3})
    stored = refused(engine, outcome)
    assert stored.request.context == {"1": "x", "(1, 2)": "y", "ok": 3}


def test_a_deep_payload_against_a_recursive_schema_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "banking"
    shutil.copytree(BANKING, folder)
    agent = folder / "agents" / "fraud_agent.yaml"
    text = agent.read_text(encoding="utf-8").replace(
        "    additionalProperties: false\n",
        "      tree: {$ref: '#/$defs/node'}\n    additionalProperties: false\n"
        "    $defs:\n      node: {type: object, properties: {child: {$ref: '#/$defs/node'}}}\n",
    )
    agent.write_text(text, encoding="utf-8")
    with Engine(folder, sweep_interval_s=None) as engine:
        deep = engine.handoff("x", sender="concierge", tool="handoff_fraud_agent",
                              tool_args={"reason": "stolen card", "tree": nested(5000, "child")})
        refused(engine, deep)
        fine = engine.handoff("x", sender="concierge", tool="handoff_fraud_agent",
                              tool_args={"reason": "stolen card", "tree": nested(20, "child")})
        assert fine.target == "fraud_agent"


def test_huge_text_is_refused_and_stored_cut_at_the_cap(engine: Engine) -> None:
    outcome = engine.handoff("stolen card " * 1_000_000, sender="concierge")
    stored = refused(engine, outcome)
    text = stored.request.task_description
    assert text.startswith("stolen card ") and text.endswith("[cut: 12000000 characters]")
    assert len(text) < 65_536 + 40


def test_an_unknown_sender_is_refused_and_audited(engine: Engine) -> None:
    outcome = engine.handoff("my card was stolen", sender="nobody")
    stored = refused(engine, outcome, UNKNOWN_SENDER)
    assert stored.request.from_agent == "nobody"
    assert "'nobody' is not an agent of the serving config" in stored.response.reason  # type: ignore[union-attr]


def test_no_sender_at_all_is_a_programming_error(engine: Engine) -> None:
    with pytest.raises(UsageError, match="needs a sender or a session"):
        engine.handoff("hi")


class Opaque:
    pass


class BadRepr:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


class BrokenZone(tzinfo):
    def utcoffset(self, moment: datetime | None) -> timedelta:
        raise RuntimeError("no offset")


@pytest.mark.parametrize(
    ("arguments", "where"),
    [
        ({"text": 123}, "text: expected a string, got int"),
        ({"priority": 99}, "priority: expected an integer from 1 to 10, got 99"),
        ({"priority": "high"}, "priority: expected an integer from 1 to 10, got 'high'"),
        ({"priority": True}, "priority: expected an integer from 1 to 10, got True"),
        ({"context": [1, 2]}, "context: expected a mapping, got list"),
        ({"tool": 5}, "tool: expected a string, got int"),
        ({"target": "x" * 1000}, "target: longer than 256 characters"),
        ({"sender": 7}, "sender: expected a string, got int"),
        ({"deadline": "tomorrow"}, "deadline: expected a datetime, got str"),
        ({"deadline": datetime(2026, 1, 1, tzinfo=BrokenZone())},
         "deadline: could not be read (RuntimeError)"),
        ({"actor": ["me"]}, "actor: expected a string, got list"),
        ({"context": {"a": Opaque()}}, "context.a: Opaque is not JSON data"),
        ({"context": {"a": float("nan")}}, "context.a: nan is not a finite number"),
        ({"context": {"a": b"bytes"}}, "context.a: bytes is not JSON data"),
        ({"context": {"n": 2**70}}, "context.n: integer outside 64 bits"),
        ({"tool_args": {"a": {1, 2}}}, "tool_args.a: set is not JSON data"),
        ({"tool_result": nested(40)}, "tool_result.a.a.a"),
        ({"priority": BadRepr()}, "priority: expected an integer from 1 to 10, got a BadRepr "
                                  "that cannot be shown"),
        ({"priority": 10**5000}, "priority: expected an integer from 1 to 10, got an integer "
                                 "outside 64 bits"),
        ({"actor": BadRepr()}, "actor: expected a string, got BadRepr"),
        ({"tool": 10**5000}, "tool: expected a string, got int"),
        ({"context": {BadRepr(): 1}}, "context: key a BadRepr that cannot be shown is not a "
                                      "string"),
    ],
)
def test_bad_caller_data_is_a_refusal_naming_the_field(
    engine: Engine, arguments: dict[str, Any], where: str
) -> None:
    call: dict[str, Any] = {"text": "my card was stolen", "sender": "concierge", **arguments}
    outcome = engine.handoff(**call)
    stored = refused(engine, outcome)
    assert where in stored.response.reason  # type: ignore[union-attr]


def test_a_cyclic_context_is_refused_not_looped_over(engine: Engine) -> None:
    context: dict[str, Any] = {"a": 1}
    context["self"] = context
    refused(engine, engine.handoff("hi", sender="concierge", context=context))


def test_data_over_the_size_cap_is_refused_and_stored_cut(engine: Engine) -> None:
    outcome = engine.handoff("hi", sender="concierge",
                             context={"note": "x" * 300_000, "more": list(range(10))})
    stored = refused(engine, outcome)
    assert "larger than 262144" in stored.response.reason  # type: ignore[union-attr]
    assert stored.request.context["note"].endswith("[cut: 300000 characters]")
    assert stored.request.context["[cut]"] == "1 more entries"


def test_the_caps_come_from_engine_yaml(tmp_path: Path) -> None:
    folder = tmp_path / "banking"
    shutil.copytree(BANKING, folder)
    root = folder / "engine.yaml"
    root.write_text(root.read_text(encoding="utf-8") + "input_limits:\n  max_text_chars: 10\n"
                    "  max_depth: 2\n", encoding="utf-8")
    with Engine(folder, sweep_interval_s=None) as engine:
        assert engine.handoff("card stolen", sender="concierge").reason == INVALID_INPUT
        assert engine.handoff("stolen", sender="concierge", context=nested(2)).reason == (
            INVALID_INPUT)  # {a: {a: {}}} nests three levels
        assert engine.handoff("stolen", sender="concierge", context=nested(1)).reason != (
            INVALID_INPUT)


def test_good_input_is_stored_as_given(engine: Engine) -> None:
    deadline = datetime(2100, 1, 1, tzinfo=timezone.utc)
    context = {"customer_id": "C-1", "verified": True, "score": 0.5, "tags": ["a", None]}
    outcome = engine.handoff("my card was stolen", sender="concierge", context=context,
                             priority=7, deadline=deadline)
    assert outcome.target == "fraud_agent" and outcome.reason is None
    stored = engine.manager.get(outcome.record.record_id)
    assert stored.request.context == context and stored.request.priority == 7
    assert stored.request.deadline == deadline


@pytest.mark.parametrize(
    "deadline",
    [datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=14))),
     datetime(9999, 12, 31, 23, 0, tzinfo=timezone(timedelta(hours=-14)))],
    ids=["before-year-1-in-utc", "after-year-9999-in-utc"],
)
def test_a_deadline_outside_the_utc_range_is_refused_naming_it(
    any_engine: Engine, deadline: datetime
) -> None:
    outcome = any_engine.handoff("my card was stolen", sender="concierge", deadline=deadline)
    stored = refused(any_engine, outcome)
    assert outcome.refusal is not None and outcome.refusal.field == "deadline"
    assert "deadline: outside the range of UTC times (years 1 to 9999)" in (
        stored.response.reason)  # type: ignore[union-attr]
    assert stored.request.deadline is None


def test_a_deadline_in_any_zone_is_stored_in_utc(engine: Engine) -> None:
    tokyo = datetime(2100, 1, 1, 9, 0, tzinfo=timezone(timedelta(hours=9)))
    outcome = engine.handoff("my card was stolen", sender="concierge", deadline=tokyo)
    assert outcome.reason is None
    stored = engine.manager.get(outcome.record.record_id)
    assert stored.request.deadline == tokyo and stored.request.deadline.utcoffset() == timedelta(0)


def test_a_nul_character_in_names_and_reasons_is_audited_on_every_store(
    any_engine: Engine,
) -> None:
    unknown = any_engine.handoff("my card was stolen", sender="no\x00body")
    stored = refused(any_engine, unknown, UNKNOWN_SENDER)
    assert stored.request.from_agent == "no\x00body"
    routed = any_engine.handoff("my card was stolen", sender="concierge", actor="ops\x00")
    assert routed.target == "fraud_agent"
    assert any_engine.manager.get(routed.record.record_id).history[0].actor == "ops\x00"
    rejected = any_engine.reject(routed.record.record_id, "wrong\x00desk", actor="x\x00")
    assert any_engine.manager.get(rejected.record_id) == rejected
    assert (rejected.history[-1].reason, rejected.history[-1].actor) == ("wrong\x00desk", "x\x00")
    other = any_engine.handoff("my card was stolen", sender="concierge")
    any_engine.accept(other.record.record_id)
    failed = any_engine.fail(other.record.record_id, "broken\x00")
    assert any_engine.manager.get(failed.record_id).response.reason == "broken\x00"  # type: ignore[union-attr]


def _accepted(engine: Engine) -> str:
    record = engine.handoff("my card was stolen", sender="concierge").record
    engine.accept(record.record_id)
    return record.record_id


def _cyclic() -> dict[str, Any]:
    data: dict[str, Any] = {}
    data["self"] = data
    return data


@pytest.mark.parametrize(
    ("move", "argument", "says"),
    [
        ("complete", nested(200), "result.a.a"),
        ("complete", _cyclic(), "result.self.self"),
        ("complete", {"o": Opaque()}, "result.o: Opaque is not JSON data"),
        ("complete", {"x": "\ud800"}, "result.x: holds a lone surrogate"),
        ("complete", {"n": float("inf")}, "result.n: inf is not a finite number"),
        ("complete", None, "the result is a mapping, not NoneType"),
        ("fail", 12345, "reason: expected a string, got int"),
        ("fail", "bad \ud800", "reason: holds a lone surrogate"),
        ("fail", "x" * 70_000, "reason: longer than 65536 characters"),
    ],
)
def test_a_move_with_data_a_store_could_not_read_back_is_refused_before_it_is_written(
    any_engine: Engine, move: str, argument: Any, says: str
) -> None:
    """The record stays as it was, and every record of the store can still be read: one bad
    result must never make the audit trail unreadable."""
    record_id = _accepted(any_engine)
    with pytest.raises(UsageError, match=f"cannot {move} {record_id}: .*{re.escape(says)}"):
        getattr(any_engine, move)(record_id, argument)
    again = Engine(BANKING, store=any_engine.manager.store, sweep_interval_s=None)
    assert again.manager.get(record_id).status is HandoffStatus.accepted
    assert len(again.manager.list_records()) == 1


def test_a_record_id_that_no_store_can_hold_is_named(any_engine: Engine) -> None:
    with pytest.raises(UsageError, match="a record id is a string, not NoneType"):
        any_engine.accept(None)  # type: ignore[arg-type]
    with pytest.raises(RecordNotFound):
        any_engine.accept("\ud800")


@pytest.mark.parametrize(
    ("request_", "says"),
    [
        (RouteRequest("concierge", b"my card"), "text: expected a string, got bytes"),  # type: ignore[arg-type]
        (RouteRequest("concierge", "card " * 20_000), "text: longer than 65536 characters"),
        (RouteRequest("concierge", "hi", context={"a": nested(40)}), "context.a.a.a"),
        (RouteRequest("concierge", "hi", priority="high"),  # type: ignore[arg-type]
         "priority: expected an integer from 1 to 10, got 'high'"),
    ],
)
def test_route_refuses_what_handoff_refuses_before_routing(
    engine: Engine, request_: RouteRequest, says: str
) -> None:
    """`Engine.route` runs on every caller turn of the adapters: hostile words get a refusal
    (no layer, the detail says why), never an exception from the normalizer."""
    decision = engine.route(request_)
    assert decision.target is None and decision.layer is None and decision.rejection is None
    assert says in decision.detail


def test_route_without_text_routes_an_empty_one(engine: Engine) -> None:
    decision = engine.route(RouteRequest("concierge", None))  # type: ignore[arg-type]
    assert decision.target is None and decision.rejection is not None
