"""Helpers for producing run capsules (`capsule_format_v1`): ids and integrity digests.

Builds no capsule content itself: the runtime that owns a session knows its steps.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import string
from typing import Any

ID_ALPHABET = string.ascii_uppercase + string.digits
ID_LENGTH = 26


def new_capsule_id() -> str:
    """A fresh id matching `^capsule_[A-Za-z0-9]{26}$` (130 random bits)."""
    return "capsule_" + "".join(secrets.choice(ID_ALPHABET) for _ in range(ID_LENGTH))


def capsule_digest(capsule: dict[str, Any]) -> str:
    """SHA-256 of the capsule's canonical JSON, leaving out its own `integrity` block."""
    body = {key: value for key, value in capsule.items() if key != "integrity"}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def seal(capsule: dict[str, Any], *, signed_by: str | None = None) -> dict[str, Any]:
    """A copy of `capsule` with an `integrity` block (sha256 digest) for its content."""
    integrity: dict[str, Any] = {"algorithm": "sha256", "digest": capsule_digest(capsule)}
    if signed_by is not None:
        integrity["signed_by"] = signed_by
    return {**capsule, "integrity": integrity}


def verify(capsule: dict[str, Any]) -> bool:
    """True when the capsule's integrity digest matches its content."""
    integrity = capsule.get("integrity") or {}
    return bool(integrity.get("digest") == capsule_digest(capsule))
