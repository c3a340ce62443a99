"""One LiveKit call as the engine sees it: its engine session (active agent, hop history for the
loop guard), the context values routing rules read, and the `Conversation` that moves its
handoff records from LiveKit's events; what the adapter reads from a LiveKit session, and what
of its history goes along to the agent that takes over. The agents and tools live in
`engine.adapters.livekit`."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Mapping
from typing import Any

from engine.adapters.common import missing
from engine.adapters.lifecycle import Conversation, LifecyclePolicy
from engine.runtime.async_engine import AsyncEngine
from engine.runtime.engine import HandoffOutcome
from engine.runtime.session import Session

try:
    from livekit.agents import AgentSession, CloseEvent, CloseReason
    from livekit.agents.llm import ChatContext, ChatMessage
except ImportError as error:  # pragma: no cover - exercised without the extra
    raise missing("livekit-agents", "livekit") from error


class VoiceCall:
    """One call: its engine session, the context values routing rules and carry-over read, and
    the lifecycle of its handoff records.

    The agents report to it (`turn` when one takes over, `handed_off` after each handoff); it
    listens to the `AgentSession` itself for the end of the call (`close`: the holder's record
    completes, or fails when the session closed on an error). Moves run one at a time, in the
    order LiveKit reported them; `await call.settled()` waits for the ones still running (the
    `close` event is synchronous, so its move finishes after `AgentSession.aclose` returns).
    """

    def __init__(
        self, engine: AsyncEngine, session: Session, values: Mapping[str, Any] | None = None,
        *, policy: LifecyclePolicy | None = None,
    ) -> None:
        self.session = session
        self.values: dict[str, Any] = dict(values or {})
        self.lifecycle = Conversation(engine, session, policy)
        self._moves = asyncio.Lock()
        self._pending: set[asyncio.Task[None]] = set()
        self._watched: AgentSession[Any] | None = None

    @property
    def records(self) -> list[str]:
        """The ids of the call's routed handoff records, in order."""
        return self.lifecycle.records

    def context(self) -> dict[str, Any]:
        """The handoff context: the call's values plus its session id (records by call)."""
        return self.lifecycle.context(self.values)

    async def turn(self, agent: str) -> None:
        """`agent` took over the call (its `on_enter`)."""
        async with self._moves:
            await self.lifecycle.turn(agent)

    async def handed_off(self, outcome: HandoffOutcome) -> None:
        """The engine decided a handoff of this call (a refusal moves nothing)."""
        async with self._moves:
            await self.lifecycle.handed_off(outcome)

    def watch(self, session: AgentSession[Any]) -> None:
        """Follow `session`'s `close` event (once per session; agents call this on entry)."""
        if self._watched is session:
            return
        self._watched = session
        session.on("close", self._closed)

    def _closed(self, event: CloseEvent) -> None:
        """The call is over: a close on an error fails the holder's record with the error,
        any other close (the caller left, the job shut down, the task completed) completes it."""
        if event.reason is CloseReason.ERROR:
            error = event.error.error if event.error is not None else None
            self._later(self.lifecycle.run_failed(
                error or RuntimeError("the session closed on an error")))
        else:
            self._later(self.lifecycle.end())

    def _later(self, move: Coroutine[Any, Any, None]) -> None:
        async def in_order() -> None:
            async with self._moves:
                await move

        task = asyncio.get_running_loop().create_task(in_order())
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def settled(self) -> None:
        """Wait for the record moves the call's events started (after the session closed)."""
        while self._pending:
            await asyncio.gather(*self._pending)


async def let_go(session: AgentSession[Any]) -> None:
    """Yield until the session lets go of a finished speech: LiveKit 1.2 keeps it as
    `current_speech` until its scheduler runs again, and an interrupt then (the next barge-in,
    `aclose`) waits for it forever."""
    for _ in range(100):
        speech = session.current_speech
        if speech is None or not speech.done():
            return
        await asyncio.sleep(0)


def user_messages(history: ChatContext) -> list[ChatMessage]:
    """The caller's messages in `history`, in order."""
    return [item for item in history.items
            if isinstance(item, ChatMessage) and item.role == "user"]


def last_user_text(history: ChatContext) -> str:
    """What the caller said last in `history` ("" if nothing)."""
    messages = user_messages(history)
    return (messages[-1].text_content or "") if messages else ""


def shared_history(share: str, history: ChatContext, *, last: bool = True) -> ChatContext:
    """What of `history` goes to an agent whose `context.share` is `share`: `all` takes the
    call's transcript along; `carry` and `none` only the caller's last words (what may travel
    is in its instructions' brief). `last=False`: the caller's last words travel separately (a
    routed turn's answer)."""
    if share == "all":
        return history.copy(exclude_function_call=True, exclude_instructions=True)
    return ChatContext(items=[*user_messages(history)[-1:]] if last else [])
