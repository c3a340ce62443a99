"""What the cross-file checks may still read of a root file that broke its schema.

A root with a typo (`polices:`) keeps every top-level key that validated; the keys in error
are dropped (the model's defaults stand in) and named, and so is every key an unknown key may
have meant to be, so the checks that read them stay silent instead of reporting what the
broken key caused. It never reports an issue itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.config.positions import Document, json_path
from engine.config.schemas import ENGINE_SCHEMA, load_schema
from engine.config.validate import validate_document
from engine.issues import Issue

STAND_INS = {"name": "unnamed", "entry": "unknown"}
"""Values for required keys in error: the checks that read `entry` are skipped (see
`Gaps.root`), and `name` is read by none of them."""


@dataclass(frozen=True, slots=True)
class Salvaged:
    """The valid part of a root document, and the top-level keys that failed (or were
    missing), whose checks must stay silent."""

    root: Document
    broken: frozenset[str]


def _in_error(key: str, issues: list[Issue]) -> bool:
    path = json_path((key,))
    return any(found.json_path == path or found.json_path.startswith((f"{path}.", f"{path}["))
               for found in issues)


def salvage(root: Document, issues: list[Issue]) -> Salvaged | None:
    """The root without the keys `issues` (its schema errors) point into, or None when what
    is left does not validate either (an error at the root itself, say a list)."""
    if not isinstance(root.data, dict):
        return None
    kept = {key: value for key, value in root.data.items()
            if isinstance(key, str) and not _in_error(key, issues)}
    known = set(load_schema(ENGINE_SCHEMA)["properties"])
    broken = {key for key in root.data if key not in kept} | (STAND_INS.keys() - kept.keys())
    if any(key not in known for key in root.data):  # a misspelt key: any absent one it may be
        broken |= known - kept.keys()
    kept |= {key: STAND_INS[key] for key in STAND_INS if key not in kept}
    document = Document(root.file, kept, root.values, root.keys, root.origin)
    if validate_document(document, ENGINE_SCHEMA):
        return None
    return Salvaged(document, frozenset(broken))
