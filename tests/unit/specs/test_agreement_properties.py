"""Random damage to valid documents: the schema and the model still agree.

When the model is stricter the reason is one of the documented model-only rules (ordering of
timestamps, contiguous step indices, duplicate codes, token totals). When it accepts what the
schema rejects (it reads `None` as absent and has defaults), its dump passes the schema.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from engine.specs import validate_quietly
from engine.specs.models import MODEL_BY_SCHEMA

from .corpus import BASES, DELETE, mutate

MODEL_ONLY_MARKERS = ("must not be before", "contiguous and zero-based", "Duplicate error code",
                      "is less than input_tokens")
VALUES = [None, 0, -1, 1, 1.5, 201.0, "", "x", True, False, [], {}, ["restricted"],
          "2024-05-01T12:00:00Z", "2024-05-01", "https://example.com", "none", "production",
          "docker_local", "allowlist_only", "tool_call", "failure", 99, 301, 700]


def _paths(value: Any, prefix: str = "") -> list[str]:
    found = []
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, child in items:
        path = f"{prefix}{key}"
        found.append(path)
        if isinstance(child, dict | list) and child:
            found += _paths(child, path + ".")
    return found


PATHS = {name: _paths(base) for name, base in BASES.items()}


@st.composite
def damaged(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    name = draw(st.sampled_from(sorted(BASES)))
    count = draw(st.integers(min_value=1, max_value=3))
    changes = {}
    for _ in range(count):
        path = draw(st.sampled_from(PATHS[name]))
        if not any(path.startswith(other + ".") for other in changes):
            changes[path] = draw(st.sampled_from([DELETE, *VALUES]))
    changes = {p: v for p, v in changes.items()
               if not any(p.startswith(o + ".") for o in changes if o != p)}
    # Deleting a list item shifts the items after it: set values first, then delete from the
    # last item back, so every path still names what it named when it was drawn.
    deletions = sorted((p for p, v in changes.items() if v is DELETE), key=_parts, reverse=True)
    ordered = {p: v for p, v in changes.items() if v is not DELETE}
    ordered.update((p, DELETE) for p in deletions)
    return name, mutate(BASES[name], ordered)


def _parts(path: str) -> list[int | str]:
    return [int(part) if part.isdigit() else part for part in path.split(".")]


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(damaged())
def test_model_agrees_with_schema_on_damaged_documents(case: tuple[str, dict[str, Any]]) -> None:
    name, document = case
    schema_accepts, message = validate_quietly(document, name)
    try:
        model = MODEL_BY_SCHEMA[name].model_validate(document)
    except ValidationError as error:
        if schema_accepts:
            assert any(marker in str(error) for marker in MODEL_ONLY_MARKERS), str(error)
        return
    if not schema_accepts:
        assert validate_quietly(model.model_dump(mode="json"), name) == (True, ""), message
