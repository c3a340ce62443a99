"""Read stage: one path -> its bytes and UTF-8 text, under a size cap.

The single place where filesystem errors of config files are translated into issues
(`file-not-found`, `not-a-file`, `unreadable`, `file-too-large`, `not-utf8`). Only regular
files are read, opened without blocking (a FIFO or device swapped in after the check is refused
on the open descriptor, never waited on) and never past the cap. It never parses.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import BinaryIO

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


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)


def _refusal(info: os.stat_result, max_bytes: int) -> tuple[str, str] | None:
    """(code, message) when `info` is not a regular file under the cap, else None."""
    if stat.S_ISDIR(info.st_mode):
        return "not-a-file", "is a directory, expected a file"
    if not stat.S_ISREG(info.st_mode):
        return "not-a-file", "is not a regular file"
    if info.st_size > max_bytes:
        return "file-too-large", _too_large(info.st_size, max_bytes)
    return None


def read_bytes(path: str | os.PathLike[str], max_bytes: int) -> bytes | tuple[str, str]:
    """The bytes of a regular file of at most `max_bytes`, else (issue code, message).

    Checked twice: on the path before opening (a device is never opened) and on the open
    descriptor (what was opened is what was checked).
    """
    try:
        refused = _refusal(os.stat(path), max_bytes)
        if refused is not None:
            return refused
        descriptor = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        return "file-not-found", "no such file"
    except (OSError, ValueError) as error:  # ValueError: a NUL byte in the path
        return "unreadable", f"cannot access the file: {getattr(error, 'strerror', None) or error}"
    try:
        with open(descriptor, "rb", closefd=True) as handle:
            refused = _refusal(os.fstat(handle.fileno()), max_bytes)
            raw = b"" if refused is not None else handle.read(max_bytes + 1)
    except OSError as error:
        return "unreadable", f"cannot read the file: {error.strerror or error}"
    if refused is not None:
        return refused
    if len(raw) > max_bytes:
        return "file-too-large", _too_large(len(raw), max_bytes)
    return raw


def read_source(
    path: str | os.PathLike[str], *, file: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES
) -> tuple[Source | None, list[Issue]]:
    """Read `path`; `file` is the name issues use (default: the path as given)."""
    name = file if file is not None else str(path)
    raw = read_bytes(path, max_bytes)
    if isinstance(raw, tuple):
        return _fail(name, *raw)
    return decode_source(raw, name)


def read_stream(stream: BinaryIO, *, file: str = "<stdin>",
                max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[Source | None, list[Issue]]:
    """Read a stream (standard input) under the same cap and decoding as a file."""
    raw = stream.read(max_bytes + 1)
    if len(raw) > max_bytes:
        return _fail(file, "file-too-large", _too_large(len(raw), max_bytes))
    return decode_source(raw, file)


def decode_source(raw: bytes, name: str) -> tuple[Source | None, list[Issue]]:
    """UTF-8 text of bytes already read (a BOM is dropped); `not-utf8` located otherwise."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        position = _utf8_position(raw, error.start)
        message = f"not valid UTF-8 (byte 0x{raw[error.start]:02x} at offset {error.start})"
        return None, [issue(name, position, "", "not-utf8", message)]
    return Source(name, raw, text), []


def _too_large(size: int, max_bytes: int) -> str:
    return (f"file is {size} bytes, over the {max_bytes}-byte cap of one config file (split it, "
            "or raise the cap: `handoff check`/`validate --max-bytes`, `load_config(max_bytes=)`)")
