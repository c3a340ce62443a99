"""Text logs that callers cannot forge: `TextFormatter` writes any log record as one line with
every field escaped (`lines.escape_controls`). Needs no extra; it never decides what is logged.
"""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from typing import Any, TextIO

from engine.observability.jsonlog import FIELDS, log_to, trace_ids
from engine.observer.lines import escape_controls


class TextFormatter(logging.Formatter):
    """One line per record: time (UTC, ISO 8601), level, `logger:`, the message, an event's
    fields and the current `trace_id`/`span_id` as `key=value`, and `error="..."` with the
    traceback. Every part is escaped with `escape_controls`; a value with a space, `"` or `=`,
    or an empty one, is quoted, with `\\` and `"` escaped inside the quotes."""

    def format(self, record: logging.LogRecord) -> str:
        when = datetime.fromtimestamp(record.created, timezone.utc).isoformat(
            timespec="milliseconds")
        parts = [when, escape_controls(record.levelname), escape_controls(record.name) + ":",
                 escape_controls(record.getMessage())]
        fields = getattr(record, FIELDS, None) or trace_ids()
        parts += [f"{_key(key)}={_value(value)}" for key, value in fields.items()]
        if record.exc_info:
            parts.append("error=" + _value(self.formatException(record.exc_info)))
        if record.stack_info:
            parts.append("stack=" + _value(self.formatStack(record.stack_info)))
        return " ".join(parts)


def log_text_to(stream: TextIO, *, level: int = logging.INFO) -> logging.Handler:
    """Send every `engine.*` log record to `stream` as escaped text lines. Returns the
    handler, to remove it again."""
    return log_to(stream, TextFormatter(), level=level)


def _key(key: object) -> str:
    return escape_controls(str(key)).replace(" ", "_").replace("=", "_") or "_"


def _value(value: Any) -> str:
    text = str(value)
    if text and not any(ch in text for ch in ' "=\\'):
        return escape_controls(text)
    return '"' + escape_controls(text.replace("\\", "\\\\").replace('"', '\\"')) + '"'
