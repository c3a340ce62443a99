"""Helpers for producing run capsules (`capsule_format_v1`): ids and integrity digests.

Builds no capsule content itself: the runtime that owns a session knows its steps.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import string
from collections.abc import Mapping
from typing import Any

ID_ALPHABET = string.ascii_uppercase + string.digits
ID_LENGTH = 26


def new_capsule_id() -> str:
    """A fresh id matching `^capsule_[A-Za-z0-9]{26}$` (130 random bits)."""
    return "capsule_" + "".join(secrets.choice(ID_ALPHABET) for _ in range(ID_LENGTH))


def capsule_digest(capsule: Mapping[str, Any]) -> str:
    """`sha256:<hex>` of the capsule's canonical JSON, leaving out its own `integrity` block."""
    body = {key: value for key, value in capsule.items() if key != "integrity"}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def seal(
    capsule: dict[str, Any], *, signature: str | None = None, signing_key_id: str | None = None
) -> dict[str, Any]:
    """A copy of `capsule` whose `integrity.capsule_hash` covers its content. A signature made
    over that hash (and the id of its key) can be added by sealing again with them: the hash
    does not cover the `integrity` block, so it stays the same."""
    integrity: dict[str, Any] = {"capsule_hash": capsule_digest(capsule)}
    if signature is not None:
        integrity["signature"] = signature
    if signing_key_id is not None:
        integrity["signing_key_id"] = signing_key_id
    return {**capsule, "integrity": integrity}


def verify(capsule: Any) -> bool:
    """True when the capsule's `integrity.capsule_hash` matches its content (signatures are
    the signer's to check). False for anything that is not a sealed capsule (not a mapping,
    an `integrity` that is not a mapping, content that is not JSON data): a capsule to verify
    is untrusted input, so checking it never raises."""
    if not isinstance(capsule, Mapping):
        return False
    integrity = capsule.get("integrity")
    if not isinstance(integrity, Mapping):
        return False
    try:
        return bool(integrity.get("capsule_hash") == capsule_digest(capsule))
    except (TypeError, ValueError, RecursionError):  # no canonical JSON: nothing it can match
        return False
