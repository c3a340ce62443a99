"""The compiled check only ever answers "valid" where the pure validator finds no error."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config.include import KINDS
from engine.config.parse import parse_text
from engine.config.schemas import ENGINE_SCHEMA, SCHEMA_BY_KIND, fast_check_for, validator_for
from engine.validation.compiled import compile_check, metaschema_check
from engine.validation.metaschema import merged_metaschema

REPO = Path(__file__).resolve().parents[3]
SETS = [
    *sorted((REPO / "tests/fixtures/configs").glob("*/*")),
    *sorted((REPO / "configs").glob("*")),
]


def _documents() -> list[tuple[str, Path]]:
    """(schema, file) for every engine.yaml and every file in a kind's usual folder."""
    found = []
    for folder in SETS:
        if (folder / "engine.yaml").is_file():
            found.append((ENGINE_SCHEMA, folder / "engine.yaml"))
        for kind in KINDS:
            paths = [*sorted(folder.glob(f"{kind}/*.yaml")), *sorted(folder.glob(f"{kind}.yaml"))]
            found += [(SCHEMA_BY_KIND[kind], path) for path in paths if path.is_file()]
    return found


@pytest.mark.parametrize(("schema", "path"), _documents(), ids=lambda v: str(v)[-40:])
def test_the_compiled_check_agrees_with_the_pure_validator(schema: str, path: Path) -> None:
    document, _ = parse_text(path.read_text("utf-8", errors="replace"), str(path))
    if document is None:
        return  # a parse-stage fixture: nothing to validate
    fast = fast_check_for(schema)
    assert fast is not None  # jsonschema-rs is a dependency
    pure_valid = not any(True for _ in validator_for(schema).iter_errors(document.data))
    assert fast(document.data) == pure_valid


def test_invalid_documents_of_each_kind_are_caught_by_the_compiled_check() -> None:
    for schema, document in (
        (ENGINE_SCHEMA, {"version": 1, "name": "x", "entry": "a", "owner": {"email": "nope"}}),
        (SCHEMA_BY_KIND["agents"], {"name": "a b"}),
        (SCHEMA_BY_KIND["agents"], {"name": "a\n"}),  # `$` is the end of the text, not a line
        (SCHEMA_BY_KIND["routing"], {"rules": [{"id": "r", "to": "a", "when": {"nope": 1}}]}),
    ):
        fast = fast_check_for(schema)
        assert fast is not None and fast(document) is False, (schema, document)


def test_values_the_compiled_check_cannot_take_go_to_the_pure_path() -> None:
    check = compile_check({"type": "integer"})
    assert check is not None and check(2**70) in (None, True)


def test_the_compiled_metaschema_check_refuses_what_the_pure_one_refuses() -> None:
    check = metaschema_check()
    assert check is not None and merged_metaschema() is not None
    assert check({"type": "object", "properties": {"a": {"type": "string"}}}) is True
    assert check({"type": "invalid_type"}) is False
    assert check({"minLength": -1}) is False
