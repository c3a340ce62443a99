"""Hostile payloads against hostile payload schemas: every check ends within a work budget
linear in the payload, keeps no caller data compiled, and refuses with a capped detail.

A check that could hang runs in a child process with a generous deadline, so a regression
fails instead of stalling the suite; everything else is bounded by counting, never by time.
"""

from __future__ import annotations

import asyncio
import gc
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import re2  # type: ignore[import-untyped]

from engine.runtime import procedure
from engine.runtime.async_engine import AsyncEngine
from engine.runtime.engine import Engine
from engine.runtime.payloads import check_payload
from engine.validation.patterns import compile_pattern
from tests.patience import HANG_S
from tests.sandbox import run_python
from tests.unit.config.helpers import config_set
from tests.unit.runtime.conftest import snapshot_of

Write = Callable[[dict[str, str]], Path]
ENTRY = "name: a\nhandoff: {is_entry_point: true, trigger: go_a}\npeers: [b]\n"
BRANCHES = {"type": "object", "additionalProperties": {
    "enum": [f"choice-{index:03d}-" + "x" * 40 for index in range(100)]}}
"""A 100-branch schema: every value must be one of a hundred long strings."""


def agent_b(schema: dict[str, Any]) -> str:
    return "name: b\nhandoff: {trigger: go_b}\nterminal: true\naccepts:\n  payload_schema: " + (
        json.dumps(schema) + "\n"
    )


def snapshot_with(schema: dict[str, Any]) -> Any:
    return snapshot_of({"name": "a", "peers": ["*"]},
                       {"name": "b", "accepts": {"payload_schema": schema}}, entry="a")


CHILD_SETUP = """
    from engine.runtime.payloads import check_payload
    from tests.unit.runtime.conftest import snapshot_of

    def check(schema, payload):
        snapshot = snapshot_of({"name": "a", "peers": ["*"]},
                               {"name": "b", "accepts": {"payload_schema": schema}}, entry="a")
        return check_payload(snapshot, sender="a", target="b", payload=payload)
"""


@pytest.mark.slow
def test_unique_items_over_tens_of_thousands_of_objects_is_checked_at_once() -> None:
    """Pairwise comparison would take hours for 60,000 objects: a regression shows as the child
    process running past its deadline."""
    result = run_python(CHILD_SETUP + """
    schema = {"type": "object", "properties": {"xs": {"type": "array", "uniqueItems": True}}}
    items = [{"a": index, "b": "x"} for index in range(60_000)]
    print(check(schema, {"xs": items}) is None)
    refusal = check(schema, {"xs": [*items, {"b": "x", "a": 59_999}]})
    print(refusal.field_path, "has non-unique elements" in refusal.detail)
    """, timeout=HANG_S)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["True", "xs True"]


@pytest.mark.slow
def test_a_recursive_any_of_never_runs_away_on_deep_payloads() -> None:
    """Two branches that both recurse: 2**depth subschema checks unbounded (hours at depth 30).
    A deep invalid payload is refused for the budget; a deep valid one still passes."""
    result = run_python(CHILD_SETUP + """
    node = {"type": "object", "properties": {"c": {"$ref": "#/$defs/n"}}}
    schema = {"$defs": {"n": {"anyOf": [node, {**node, "maxProperties": 10}]}},
              "$ref": "#/$defs/n"}

    def nest(depth, leaf):
        payload = {"c": leaf}
        for _ in range(depth):
            payload = {"c": payload}
        return payload

    for depth in (16, 20, 30, 60):
        refusal = check(schema, nest(depth, 5))
        print(depth, refusal is not None and "budget" in refusal.detail)
    print(check(schema, nest(60, {})) is None)
    """, timeout=HANG_S)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["16", "True", "20", "True", "30", "True", "60", "True",
                                     "True"]


def compiled_programs() -> int:
    """RE2 programs alive in this process."""
    return sum(1 for item in gc.get_objects() if isinstance(item, re2._Regexp))


def test_caller_patterns_checked_as_regex_are_not_kept_compiled() -> None:
    snapshot = snapshot_with({"type": "object", "properties": {"p": {"format": "regex"}}})
    check_payload(snapshot, sender="a", target="b", payload={"p": "warm-up"})
    gc.collect()
    before = (compile_pattern.cache_info().currsize, compiled_programs())
    for index in range(300):
        assert check_payload(snapshot, sender="a", target="b",
                             payload={"p": f"^(ab|cd){{{index % 90 + 1}}}x{index}$"}) is None
    gc.collect()
    assert (compile_pattern.cache_info().currsize, compiled_programs()) == before
    refusal = check_payload(snapshot, sender="a", target="b", payload={"p": "(?=lookahead)"})
    assert refusal is not None and refusal.field_path == "p"


@pytest.mark.parametrize("pattern", [
    "(" + "a?" * 2000 + "){150}",  # 4,000 characters that expand into megabytes of program
    r"(\pL?){1000}",  # 12 characters that do too
])
def test_a_caller_pattern_too_large_for_the_engine_is_refused_as_not_a_regex(
    pattern: str,
) -> None:
    """Refused once it passes the documented length or compiled-size cap, instead of compiling
    for seconds (and being kept)."""
    snapshot = snapshot_with({"type": "object", "properties": {"p": {"format": "regex"}}})
    refusal = check_payload(snapshot, sender="a", target="b", payload={"p": pattern})
    assert refusal is not None and refusal.field_path == "p"
    assert "is not a 'regex'" in refusal.detail


def test_a_refusal_of_a_large_payload_against_a_wide_schema_has_a_capped_detail(
    write_files: Write,
) -> None:
    root = config_set(write_files, {"a": ENTRY, "b": agent_b(BRANCHES)})
    payload = {f"field-{index:05d}": "y" * 30 for index in range(5_000)}
    assert len(json.dumps(payload)) > 200_000
    with Engine(root, sweep_interval_s=None) as engine:
        outcome = engine.handoff("", sender="a", tool="go_b", tool_args=payload)
        assert outcome.refusal is not None
        reason = outcome.refusal.response_reason
        assert reason.startswith("invalid_payload: payload from 'a' to 'b' breaks its schema at "
                                 "field-00000: 'yyyy")
        assert len(reason) <= 4_096
        assert "and more" in reason
        stored = engine.manager.get(outcome.record.record_id)
        assert stored.response is not None and stored.response.reason == reason
        assert len(json.dumps(outcome.refusal.to_dict())) <= 8_192


def test_async_engine_checks_payloads_on_its_worker_thread_never_on_the_loop(
    write_files: Write, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = config_set(write_files, {"a": ENTRY, "b": agent_b({"type": "object"})})
    checked_on: list[threading.Thread] = []
    real = procedure.check_payload

    def spy(*args: Any, **kwargs: Any) -> Any:
        checked_on.append(threading.current_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(procedure, "check_payload", spy)

    async def handoffs() -> threading.Thread:
        async with await AsyncEngine.open(root, sweep_interval_s=None) as engine:
            await engine.handoff("", sender="a", tool="go_b", tool_args={"x": 1})
            await engine.handoff("", sender="a", tool="go_b", tool_args={"x": [1] * 10})
        return threading.current_thread()

    loop_thread = asyncio.run(handoffs())
    assert len(checked_on) == 2 and loop_thread not in checked_on
