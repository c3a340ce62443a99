"""Hostile payloads against hostile payload schemas: every check ends in time linear in the
payload, and keeps no caller data compiled. A check that could hang runs in a child process
with a generous deadline, so a regression fails instead of stalling the suite; everything else
is bounded by counting, never by time.
"""

from __future__ import annotations

import gc
from typing import Any

import pytest
import re2  # type: ignore[import-untyped]

from engine.runtime.payloads import check_payload
from engine.validation.patterns import compile_pattern
from tests.sandbox import run_python
from tests.unit.runtime.conftest import snapshot_of


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
    """, timeout=90)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["True", "xs True"]


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
