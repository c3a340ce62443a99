"""Fitted example models kept on disk by the digest of everything they were fitted from, so a new
process (a CLI run, a restarted runtime, another replica on the host) does not fit again what an
earlier one fitted: the model's own numbers, written atomically, checked by digest when read.

The folder is `$HANDOFF_MODEL_CACHE`, else `$XDG_CACHE_HOME/handoff-engine/models`, else
`~/.cache/handoff-engine/models`; `HANDOFF_MODEL_CACHE=off` turns it off. It is never required:
a folder that cannot be read or written, or a file that is damaged, only means fitting again.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import marshal
import os
import tempfile
from pathlib import Path
from typing import Any

log = logging.getLogger("engine.routing")

FORMAT = b"handoff-engine model 1\n"
MAX_BYTES = 1 << 30
"""A file larger than this is not read (no model of a valid set comes near it)."""
_MARSHAL_VERSION = 4


def folder() -> Path | None:
    """Where models are kept, or None when that is turned off."""
    chosen = os.environ.get("HANDOFF_MODEL_CACHE")
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "handoff-engine" / "models"


def digest(parts: Any) -> str:
    """The key of a model: sha256 over plain data (tuples, strings, numbers) of its inputs."""
    return hashlib.sha256(marshal.dumps(parts, _MARSHAL_VERSION)).hexdigest()


def load(key: str) -> Any | None:
    """The plain data kept under `key`, or None (none kept, unreadable or damaged)."""
    where = folder()
    if where is None:
        return None
    path = where / f"{key}.model"
    try:
        with path.open("rb") as stream:
            raw = stream.read(MAX_BYTES + 1)
    except OSError:
        return None
    head, checked, payload = raw[:len(FORMAT)], raw[len(FORMAT):len(FORMAT) + 32], \
        raw[len(FORMAT) + 32:]
    if head != FORMAT or len(raw) > MAX_BYTES or hashlib.sha256(payload).digest() != checked:
        log.warning("model cache %s is damaged; fitting again", path)
        return None
    try:
        return marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return None


def save(key: str, data: Any) -> None:
    """Keep `data` (plain data only) under `key`; a failure is logged and otherwise ignored."""
    where = folder()
    if where is None:
        return
    payload = marshal.dumps(data, _MARSHAL_VERSION)
    try:
        where.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=where, prefix=".model-")
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(FORMAT + hashlib.sha256(payload).digest() + payload)
            os.replace(temporary, where / f"{key}.model")
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    except OSError as error:
        log.info("model cache %s not written: %s", where, error)
