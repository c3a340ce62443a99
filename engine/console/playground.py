"""The playground's form: a sentence, a sender, a tool, context and past hops, read into the
request `handoff route --explain` would build, and routed by the same code.

Parsing and checks are `handoff route`'s own (`engine.routing.requests`); the decision and its
explanation come from `explain_turn`. Nothing is recorded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engine.errors import UsageError
from engine.routing.decision import RouteRequest
from engine.routing.explanation import Explanation, explain_turn
from engine.routing.requests import check_request, parse_context, parse_hops
from engine.routing.router import Router

MAX_TEXT = 4096
"""The longest sentence the playground routes (characters)."""


@dataclass(frozen=True, slots=True)
class Form:
    """The playground's fields as typed (shown back in the form)."""

    text: str = ""
    sender: str = ""
    tool: str = ""
    context: str = ""
    priority: str = "5"
    hops: str = ""

    @classmethod
    def parse(cls, params: Mapping[str, str]) -> Form:
        return cls(**{name: params.get(name, default) for name, default in _DEFAULTS.items()})

    @property
    def submitted(self) -> bool:
        return bool(self.text.strip())


_DEFAULTS = {"text": "", "sender": "", "tool": "", "context": "", "priority": "5", "hops": ""}


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def route(router: Router, form: Form) -> Explanation:
    """Route the form's request; a bad field is a `UsageError` naming it."""
    if len(form.text) > MAX_TEXT:
        raise UsageError(f"the text is longer than {MAX_TEXT} characters")
    try:
        priority = int(form.priority or "5")
    except ValueError:
        raise UsageError(f"priority {form.priority!r}: expected a whole number 1-10") from None
    request = RouteRequest(
        sender=form.sender or router.snapshot.config.engine.entry,
        text=form.text,
        tool=form.tool or None,
        context=parse_context(_lines(form.context)),
        priority=priority,
    )
    history = parse_hops(_lines(form.hops))
    check_request(router.snapshot, request, history)
    return explain_turn(router, [request], history=history)
