"""Scripted models, one module per framework: each plays back a fixed list of steps (say a line,
or call a tool) through the framework's own model interface, so adapters, tests and examples run
offline with no API key. Steps are shared data (`Step`, `say`, `call`)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from engine.errors import UsageError


@dataclass(frozen=True, slots=True)
class Step:
    """One model turn: a reply (`text`) or a tool call (`tool` with `args`)."""

    text: str = ""
    tool: str | None = None
    args: dict[str, Any] = field(default_factory=dict)

    @property
    def arguments(self) -> str:
        return json.dumps(self.args)


def say(text: str) -> Step:
    return Step(text=text)


def call(tool: str, **args: Any) -> Step:
    return Step(tool=tool, args=args)


class Script:
    """The steps left to play, and what the model was shown at each turn."""

    def __init__(self, steps: Iterable[Step]) -> None:
        self.steps = list(steps)
        self.seen: list[dict[str, Any]] = []

    def next(self, **shown: Any) -> Step:
        self.seen.append(shown)
        if not self.steps:
            raise UsageError(f"the model script ran out of steps at turn {len(self.seen)}")
        return self.steps.pop(0)
