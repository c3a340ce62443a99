"""Capsule ids and integrity digests produce documents that pass capsule_format_v1."""

from __future__ import annotations

from engine.specs import load_schema, new_capsule_id, parse_spec, seal, validate, verify
from engine.specs.models import RunCapsule


def test_new_ids_match_the_schema_and_differ() -> None:
    example = load_schema("capsule_format_v1")["examples"][0]
    ids = {new_capsule_id() for _ in range(50)}
    assert len(ids) == 50
    for capsule_id in list(ids)[:5]:
        assert validate({**example, "capsule_id": capsule_id}, "capsule_format_v1")


def test_sealed_capsules_validate_and_detect_tampering() -> None:
    example = load_schema("capsule_format_v1")["examples"][0]
    sealed = seal(example)
    assert "integrity" not in example
    assert sealed["integrity"]["capsule_hash"].startswith("sha256:")
    assert isinstance(parse_spec(sealed, "capsule_format_v1"), RunCapsule)
    assert verify(sealed)
    signed = seal(sealed, signature="c2lnbmVk", signing_key_id="key-1")
    assert signed["integrity"]["capsule_hash"] == sealed["integrity"]["capsule_hash"]
    assert verify(signed) and signed["integrity"]["signing_key_id"] == "key-1"
    assert validate(signed, "capsule_format_v1")
    tampered = {**sealed, "outcome": {"final_answer": "changed"}}
    assert not verify(tampered)
    assert not verify(example)
