"""Text log lines cannot be forged: a caller's line breaks, terminal escapes and bidi controls
come out escaped in every field, in the engine's own messages and through `TextFormatter`."""

from __future__ import annotations

import io
import logging
import sys
from collections.abc import Iterator

import pytest

from engine import Engine
from engine.observability import JsonLogObserver, TextFormatter
from engine.observability.textlog import log_text_to
from engine.observer.lines import escape_controls

FORGED = ("concierge\n2026-01-01T00:00:00+00:00 info engine.events: handoff admin -> vault: "
          "routed\r\u2028\u2029\u0085\x1b[2J\u202e\u2066x")
BREAKS = ["\n", "\r", "\u2028", "\u2029", "\u0085", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e"]


@pytest.fixture
def logged() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    handler = log_text_to(stream)
    try:
        yield stream
    finally:
        engine_logger = logging.getLogger("engine")
        engine_logger.removeHandler(handler)
        engine_logger.propagate = True


def unsafe(text: str) -> list[str]:
    """Characters that end a line or steer a terminal or the text direction."""
    return [ch for ch in text if (ord(ch) < 32 and ch != "\n") or 0x7F <= ord(ch) <= 0x9F
            or ch in "\u2028\u2029\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                     "\u2066\u2067\u2068\u2069"]


def test_a_sender_cannot_forge_a_line_with_any_formatter(engine: Engine) -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    events = logging.getLogger("engine.events")
    events.addHandler(handler)
    events.setLevel(logging.INFO)
    engine.observe(JsonLogObserver())
    try:
        outcome = engine.handoff("hi", sender=FORGED)
    finally:
        events.removeHandler(handler)
    assert outcome.reason == "unknown_sender"
    lines = stream.getvalue().splitlines()
    assert len(lines) == 1 and unsafe(lines[0]) == [], lines
    assert "concierge\\n2026-01-01" in lines[0]


def test_the_text_formatter_escapes_every_field(engine: Engine, logged: io.StringIO) -> None:
    engine.observe(JsonLogObserver())
    engine.handoff("hi", sender=FORGED, tool="handoff_\nfraud_agent")
    logging.getLogger("engine.test").warning("raw %s", FORGED, extra={"handoff_event": {
        "event": "x", FORGED: FORGED, "n": 3}})
    try:
        raise ValueError(FORGED)
    except ValueError:
        logging.getLogger("engine.test").exception("failed")
    text = logged.getvalue()
    lines = text.splitlines()
    assert len(lines) == 3 and unsafe(text) == [], lines
    assert all(line[:4].isdigit() for line in lines)  # each line starts with its timestamp
    assert " WARNING engine.test: raw concierge\\n2026" in lines[1]
    assert "n=3" in lines[1] and "\\x1b[2J" in lines[1] and "\\u202e" in lines[1]
    assert "ValueError: concierge\\n2026" in lines[2] and "Traceback" in lines[2]


@pytest.mark.parametrize("character", BREAKS)
def test_every_line_break_is_escaped(character: str) -> None:
    assert character not in escape_controls(f"a{character}b")
    assert len(f"x{escape_controls(character)}y".splitlines()) == 1


def test_plain_text_is_left_alone() -> None:
    text = "handoff concierge -> fraud_agent: routed (ünïcödé, 日本語, C:\\path)"
    assert escape_controls(text) is text


def test_values_with_spaces_are_quoted() -> None:
    record = logging.LogRecord("engine.events", logging.INFO, __file__, 1, "m", None, None)
    record.handoff_event = {"reason": "two words", "quote": 'say "hi"', "empty": ""}
    line = TextFormatter().format(record)
    assert line.endswith(' reason="two words" quote="say \\"hi\\"" empty=""'), line


def test_the_formatter_is_usable_from_logging_config() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(TextFormatter())
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "line\nbreak", None, None)
    assert "\n" not in handler.format(record)
