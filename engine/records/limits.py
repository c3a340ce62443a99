"""What every store keeps, defined once: record ids, agent names, versions (times: `as_utc`).

SQLite and PostgreSQL hold different ranges (a 32-bit `version` column, an index entry of at
most 2,704 bytes), so a store checks each record it writes against these and refuses what one
of them could not keep. Pure checks: nothing here reads or writes a store.
"""

from __future__ import annotations

import re

from engine.errors import UsageError
from engine.records.models import HandoffRecord

RECORD_ID_MAX_CHARS = 512
"""Longest record id: at most 2,048 bytes of UTF-8, within PostgreSQL's index entry limit."""
AGENT_NAME_MAX_CHARS = 512
"""Longest sender or receiver name kept (indexed like the id)."""
VERSION_MAX = 2**31 - 1
"""Highest version a move may write (PostgreSQL `integer`); the lowest is 1."""
NEW_VERSION_MAX = VERSION_MAX - 3
"""Highest version of a record written new (an import): room for the moves it can still make
(at most three: accept, start, complete), so an expiry never finds it unable to move."""

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
SURROGATE = re.compile("[\ud800-\udfff]")
"""A lone surrogate: text holding one is not valid Unicode, and no store writes it."""


def storable_problem(record: HandoffRecord, *, new: bool = True) -> tuple[str, str] | None:
    """(field, what is wrong) for the first value of `record` a store cannot keep, or None.

    `new`: also check what only a new record brings (its id and agent names); a move keeps
    those, so a record a store already holds can always move on."""
    version, highest = record.version, NEW_VERSION_MAX if new else VERSION_MAX
    if not 1 <= version <= highest:
        return "version", f"{version} is outside 1 to {highest}"
    if not new:
        return None
    problem = _text_problem(record.record_id, RECORD_ID_MAX_CHARS, control=True)
    if problem is None and record.record_id in (".", ".."):
        problem = "is a dot segment: a URL path (the console's link to it) cannot name it"
    if problem is not None:
        return "record_id", problem
    for field in ("from_agent", "to_agent"):
        problem = _text_problem(getattr(record.request, field), AGENT_NAME_MAX_CHARS)
        if problem is not None:
            return f"request.{field}", problem
    return None


def check_storable(record: HandoffRecord, *, new: bool = True) -> None:
    """UsageError naming the record and the field when a store cannot keep `record`."""
    problem = storable_problem(record, new=new)
    if problem is not None:
        field, detail = problem
        raise UsageError(f"record {_shown(record.record_id)}: {field}: {detail}; "
                         "no store keeps it")


def _text_problem(value: str, limit: int, *, control: bool = False) -> str | None:
    if not value and control:
        return "empty"
    if len(value) > limit:
        return f"longer than {limit} characters"
    if control and (found := _CONTROL.search(value)) is not None:
        return f"holds a control character (U+{ord(found.group()):04X})"
    if has_surrogate(value):
        return "holds a lone surrogate (not valid Unicode text)"
    return None


def has_surrogate(text: str) -> bool:
    """Whether `text` holds a lone surrogate (see `SURROGATE`)."""
    return not text.isascii() and SURROGATE.search(text) is not None


def _shown(record_id: str) -> str:
    """The id for a message: quoted with escapes, cut after 40 characters."""
    return repr(record_id if len(record_id) <= 40 else record_id[:40] + "...")
