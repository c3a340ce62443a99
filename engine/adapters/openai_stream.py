"""A streamed caller turn of an `AgentTeam`: the SDK's `RunResultStreaming`, whose events it
passes on while the team moves the call's records when the stream ends (as `AgentTeam.run`
does when its run returns or raises). Decides nothing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from typing import Any, Literal, cast

from engine.adapters.common import missing
from engine.adapters.lifecycle import Conversation

try:
    from agents.result import RunResultStreaming
except ImportError as error:  # pragma: no cover - exercised without the extra
    raise missing("openai-agents", "openai-agents") from error


class StreamedTurn:
    """One caller turn streamed by `AgentTeam.run_streamed`.

    `async for event in turn.stream_events()`: the SDK's stream events. When the stream ends,
    the holder's record moves as after `AgentTeam.run`: the run ended normally, or it failed
    (the run errored, you stopped reading early, or you called `cancel`). `result` is the SDK's
    `RunResultStreaming` (final output, last agent, new items).
    """

    def __init__(
        self, result: RunResultStreaming, conversation: Conversation,
        ended: Callable[[str], Awaitable[None]],
    ) -> None:
        self.result = result
        self._conversation = conversation
        self._ended = ended
        self._cancelled = False

    async def stream_events(self) -> AsyncIterator[Any]:
        """The SDK's stream events of this turn, then the records moved as the run ended."""
        try:
            events = cast(AsyncGenerator[Any, None], self.result.stream_events())
            async with aclosing(events):  # closed here when you stop reading
                async for event in events:
                    yield event
        except BaseException as error:
            if isinstance(error, GeneratorExit):  # you stopped reading: the run stops too
                self.result.cancel()
            await self._conversation.run_failed(error)
            raise
        if self._cancelled:
            await self._conversation.run_failed(asyncio.CancelledError())
        else:
            await self._ended(self.result.last_agent.name)

    def cancel(self, mode: Literal["immediate", "after_turn"] = "immediate") -> None:
        """Cancel the run as `RunResultStreaming.cancel` does (keep reading the stream to its
        end); the holder's record then fails as cancelled."""
        self._cancelled = True
        self.result.cancel(mode)
