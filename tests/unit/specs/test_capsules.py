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


def test_verify_is_false_for_anything_but_a_sealed_capsule() -> None:
    sealed = seal(load_schema("capsule_format_v1")["examples"][0])
    not_capsules = [
        {**sealed, "integrity": "sha256:abc"},
        {**sealed, "integrity": ["sha256:abc"]},
        {**sealed, "integrity": None},
        {**sealed, "run": {1, 2}},  # content that is not JSON data has no digest
        [sealed],
        "capsule",
        None,
    ]
    assert [verify(value) for value in not_capsules] == [False] * len(not_capsules)
