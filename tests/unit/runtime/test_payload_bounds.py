"""Hostile payloads against hostile payload schemas: every check ends in time linear in the
payload. A check that could hang runs in a child process with a generous deadline, so a
regression fails instead of stalling the suite; nothing here asserts a duration.
"""

from __future__ import annotations

import pytest

from tests.sandbox import run_python

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
