"""`HandoffCall`: one `Engine.handoff` call as the caller made it, built once and passed on (to
the observers that time it and to the handoff itself), so no step reads arguments by position.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from engine.runtime.session import Session


class HandoffCall(NamedTuple):
    """What `Engine.handoff` was given, the sender resolved (see its docstring)."""

    sender: str
    session: Session | None
    text: str
    tool: str | None
    target: str | None
    context: Mapping[str, Any] | None
    priority: int
    deadline: datetime | None
    tool_args: Mapping[str, Any] | None
    tool_result: Mapping[str, Any] | None
    actor: str | None
    tool_call_id: str | None
