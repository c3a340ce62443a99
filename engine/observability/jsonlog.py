"""Structured logs: one line per handoff and per reload through the `engine.events` logger, with
the current trace id, and `JsonFormatter`, which writes any log record as one JSON line. Needs
no extra: it reads trace ids only when OpenTelemetry is already imported, never imports it.
"""

from __future__ import annotations

import json
import logging
import sys
from dataclasses import asdict
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, TextIO

from engine.observer.lines import escape_controls
from engine.observer.seam import Observer

if TYPE_CHECKING:
    from engine.observer.facts import HandoffFacts, ReloadFacts

EVENTS_LOGGER = "engine.events"
FIELDS = "handoff_event"
"""The LogRecord attribute holding an event's fields (`record.handoff_event`)."""


def trace_ids() -> dict[str, str]:
    """`trace_id` and `span_id` of the current span (hex), if OpenTelemetry is in use."""
    otel = sys.modules.get("opentelemetry.trace")
    if otel is None:
        return {}
    span_context = otel.get_current_span().get_span_context()
    if not span_context.is_valid:
        return {}
    return {"trace_id": format(span_context.trace_id, "032x"),
            "span_id": format(span_context.span_id, "016x")}


class JsonLogObserver(Observer):
    """Logs each handoff (INFO; WARNING when it raised) and each applied (INFO) or rejected
    (WARNING) reload to `logger` (default `engine.events`), its fields in `record.handoff_event`.
    Fields are the observer facts: names, ids, counts, reasons; never caller text or context.
    The message escapes control characters (`lines.escape_controls`): a sender with a line
    break cannot start a log line of its own, whatever formatter writes it."""

    def __init__(self, *, logger: logging.Logger | None = None) -> None:
        self.logger = logger or logging.getLogger(EVENTS_LOGGER)

    def handoff_finished(self, token: Any, facts: HandoffFacts) -> None:
        level = logging.WARNING if facts.outcome == "error" else logging.INFO
        if not self.logger.isEnabledFor(level):
            return
        fields = {"event": "handoff", **_present(facts._asdict())}
        fields["duration_ms"] = round(fields.pop("duration_s") * 1000, 3)
        where = facts.target or "-"
        text = f"handoff {facts.sender} -> {where}: {facts.outcome}"
        if facts.reason is not None:
            text += f" ({facts.reason})"
        self._log(level, text, fields)

    def reload_finished(self, token: Any, facts: ReloadFacts) -> None:
        rejected = facts.outcome == "rejected"
        level = logging.WARNING if rejected else logging.INFO
        if not self.logger.isEnabledFor(level):
            return
        fields = {"event": "reload", **_present(asdict(facts))}
        fields["duration_ms"] = round(fields.pop("duration_s") * 1000, 3)
        text = (f"config {facts.config}: reload rejected ({facts.issue_count} issue(s)), still "
                f"serving {facts.version}" if rejected
                else f"config {facts.config}: applied {facts.version}")
        self._log(level, text, fields)

    def _log(self, level: int, text: str, fields: dict[str, Any]) -> None:
        fields.update(trace_ids())
        # a sender is the caller's text: it must not start a log line of its own
        self.logger.log(level, "%s", escape_controls(text), extra={FIELDS: fields})


class JsonFormatter(logging.Formatter):
    """One JSON object per line: `ts` (UTC, ISO 8601), `level`, `logger`, `message`, an
    event's fields, the current `trace_id`/`span_id`, and `error` with a traceback."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, timezone.utc).isoformat(),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in (getattr(record, FIELDS, None) or trace_ids()).items():
            data.setdefault(key, value)
        if record.exc_info:
            data["error"] = self.formatException(record.exc_info)
        return json.dumps(data, default=str)


def log_json_to(stream: TextIO, *, level: int = logging.INFO) -> logging.Handler:
    """Send every `engine.*` log record to `stream` as JSON lines (what `--log-format json`
    does). Returns the handler, to remove it again."""
    return log_to(stream, JsonFormatter(), level=level)


def log_to(stream: TextIO, formatter: logging.Formatter, *, level: int) -> logging.Handler:
    """Send every `engine.*` log record to `stream` through `formatter` (and nowhere else).
    Returns the handler, to remove it again."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(formatter)
    engine_logger = logging.getLogger("engine")
    engine_logger.addHandler(handler)
    engine_logger.setLevel(level)
    engine_logger.propagate = False
    return handler


def _present(fields: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in fields.items() if value is not None}
