"""Read stage: one path -> its bytes and UTF-8 text, under a size cap.

The single place where filesystem errors of config files are translated into issues
(`file-not-found`, `not-a-file`, `unreadable`, `file-too-large`, `not-utf8`). It never parses.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from engine.config.codes import issue
from engine.issues import Issue

DEFAULT_MAX_BYTES = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Source:
    """The content of one file: raw bytes (for the content hash) and decoded text."""

    file: str
    raw: bytes
    text: str


def _fail(file: str, code: str, message: str) -> tuple[None, list[Issue]]:
    return None, [issue(file, (0, 0), "", code, message)]


def _utf8_position(raw: bytes, offset: int) -> tuple[int, int]:
    before = raw[:offset]
    line = before.count(b"\n") + 1
    line_start = before.rfind(b"\n") + 1
    col = len(before[line_start:].decode("utf-8", errors="replace")) + 1
    return line, col


def read_source(
    path: str | os.PathLike[str], *, file: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES
) -> tuple[Source | None, list[Issue]]:
    """Read `path`; `file` is the name issues use (default: the path as given)."""
    name = file if file is not None else str(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return _fail(name, "file-not-found", "no such file")
    except (OSError, ValueError) as error:  # ValueError: a NUL byte in the path
        detail = getattr(error, "strerror", None) or error
        return _fail(name, "unreadable", f"cannot access the file: {detail}")
    if stat.S_ISDIR(info.st_mode):
        return _fail(name, "not-a-file", "is a directory, expected a file")
    if not stat.S_ISREG(info.st_mode):
        return _fail(name, "not-a-file", "is not a regular file")
    if info.st_size > max_bytes:
        return _fail(name, "file-too-large", _too_large(info.st_size, max_bytes))
    try:
        with open(path, "rb") as handle:
            raw = handle.read(max_bytes + 1)
    except OSError as error:
        return _fail(name, "unreadable", f"cannot read the file: {error.strerror or error}")
    if len(raw) > max_bytes:
        return _fail(name, "file-too-large", _too_large(len(raw), max_bytes))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        position = _utf8_position(raw, error.start)
        message = f"not valid UTF-8 (byte 0x{raw[error.start]:02x} at offset {error.start})"
        return None, [issue(name, position, "", "not-utf8", message)]
    return Source(name, raw, text), []


def _too_large(size: int, max_bytes: int) -> str:
    return f"file is {size} bytes, over the {max_bytes}-byte cap (raise it with --max-bytes)"
