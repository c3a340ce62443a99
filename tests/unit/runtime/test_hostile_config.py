"""What a hostile config can do to a running engine: a payload pattern with nested quantifiers
meets hostile text, overflowing policy numbers reach a reload. Code that could hang runs in a
child process with a deadline."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.sandbox import run_python
from tests.unit.config.helpers import config_set

Write = Callable[[dict[str, str]], Path]
ENTRY = "name: a\nhandoff: {is_entry_point: true, trigger: go_a}\npeers: [b]\n"


@pytest.mark.slow
def test_a_nested_quantifier_pattern_refuses_hostile_payloads_at_once(write_files: Write) -> None:
    """9 s per handoff at 28 characters with a backtracking engine, hours at 40."""
    schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": "^(a+)+$"}}}
    agent_b = (
        "name: b\nhandoff: {trigger: go_b}\nterminal: true\n"
        f"accepts:\n  payload_schema: {json.dumps(schema)}\n"
    )
    root = config_set(write_files, {"a": ENTRY, "b": agent_b})
    result = run_python(
        f"""
        from engine.runtime.engine import Engine
        with Engine({str(root)!r}) as engine:
            hostile = engine.handoff(sender="a", tool="go_b", tool_args={{"code": "a" * 40 + "!"}})
            fine = engine.handoff(sender="a", tool="go_b", tool_args={{"code": "a" * 40}})
            print(hostile.target, hostile.refusal.field_path, hostile.record.status.value)
            print(fine.target)
        """,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["None code rejected", "b"]
