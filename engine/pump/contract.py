"""The seed 001 handler contract: HandlerResponse, HandlerMetadata and the SystemError payload.
Plain records only; this module must not route, validate or run anything.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from pydantic import BaseModel, ConfigDict


class _RespondToCaller:
    """Sentinel `to` of a response that goes back to the caller (see `HandlerResponse.respond`)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "RESPOND_TO_CALLER"


RESPOND_TO_CALLER: Final = _RespondToCaller()


@dataclass
class HandlerResponse:
    """What a handler returns to send a message: a payload and a target listener name.

    The pump wraps the envelope: `from` is always the handler's listener, `to` is checked
    against its peers, and the thread is managed by the thread registry.
    """

    payload: Any
    to: str | _RespondToCaller

    @classmethod
    def respond(cls, payload: Any) -> HandlerResponse:
        """Reply to the caller: the pump prunes this listener from the call chain, routes the
        payload to the caller and terminates this listener's sub-threads."""
        return cls(payload=payload, to=RESPOND_TO_CALLER)

    @property
    def is_response(self) -> bool:
        """True for `.respond()` (back to the caller), False for a send to a named target."""
        return isinstance(self.to, _RespondToCaller)


@dataclass
class HandlerMetadata:
    """Trustworthy context the pump passes to every handler call (a fresh one per call; plain
    dataclasses like the seed's, so ported handlers keep working)."""

    thread_id: str
    from_id: str
    own_name: str | None = None
    is_self_call: bool = False
    usage_instructions: str = ""
    todo_nudge: str = ""


class SystemError(BaseModel):
    """Payload the pump sends a listener when its message could not be handled.

    Codes: `routing` (blocked or unknown target, deliberately generic), `validation` (the
    payload failed the target's schema), `timeout`, `handler` (the handler raised),
    `contract` (the handler returned something that is not a HandlerResponse), `limit`
    (fan-out or call depth cap), `overload` (the target's queue stayed full), `aborted`
    (too many consecutive errors on one thread), `shutdown`.
    """

    model_config = ConfigDict(frozen=True)

    code: str
    message: str
    retry_allowed: bool = True


ROUTING_MESSAGE: Final = "Message could not be delivered. Please verify your target and try again."
ROUTING_ERROR: Final = SystemError(code="routing", message=ROUTING_MESSAGE, retry_allowed=True)
REPLY_BY_NAME_MESSAGE: Final = (
    "Message could not be delivered. To answer the listener that called you, return "
    "HandlerResponse.respond(payload) instead of naming it in `to`."
)
"""Sent instead of the generic message when a blocked send names the sender's own caller
(`to=metadata.from_id`): the caller is already known to the handler, so nothing leaks."""

HandlerResult = HandlerResponse | Sequence[HandlerResponse] | None
Handler = Callable[[Any, HandlerMetadata], Awaitable[HandlerResult]]

RESPONSE_SEMANTICS: Final = "\n".join(
    [
        "## Important: Response Semantics",
        "",
        "When you RESPOND (return to your caller), your call chain is pruned.",
        "This means:",
        "- Any sub-agents you called are effectively terminated",
        "- Their state/context is lost (e.g., calculator memory, scratch space)",
        "- You cannot call them again in the same context after responding",
        "",
        "Therefore: Complete ALL sub-tasks before responding to your caller.",
        "If you need results from a peer, wait for their response before you respond.",
    ]
)
