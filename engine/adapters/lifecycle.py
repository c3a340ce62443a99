"""The lifecycle of one conversation's handoffs, moved from the framework's events.

The engine records a routed handoff as `pending`; only the runtime knows what happened next.
Every adapter owns one `Conversation` per call and tells it four things, from the framework's
own events: a handoff was routed (`handed_off`), an agent took a turn (`turn`), a run ended
normally (`run_ended`), a run errored or was cancelled (`run_failed`), and the call is over
(`end`). The default `LifecyclePolicy` moves the records as the conversation went:

| event | the record routed to the agent holding the call |
|---|---|
| the target takes its first turn | accepted, then in progress |
| the holder hands on (to anyone) or the call ends | completed |
| the run errors | failed, reason `error` with the exception's type and message |
| the run is cancelled (caller hung up, barge-in) | failed, reason `cancelled` |

Refused handoffs need nothing: the engine has already recorded them as rejected. Pure asyncio
over `AsyncEngine`; no framework imports.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from engine.errors import HandoffExpired, IllegalTransition
from engine.records.models import HandoffRecord, HandoffStatus
from engine.runtime.async_engine import AsyncEngine
from engine.runtime.engine import HandoffOutcome
from engine.runtime.session import SESSION_KEY, Session


@dataclass(frozen=True)
class LifecyclePolicy:
    """When an adapter moves the records of its conversations."""

    accept_on: Literal["first_turn", "handoff", "never"] = "first_turn"
    """Accept and start a routed record when its target takes its first turn (default), as soon
    as the framework performs the handoff, or never (your code moves it)."""
    complete_on: Literal["hand_on", "run_end", "never"] = "hand_on"
    """Complete the holder's record when it hands on or the call ends (default); also when a run
    it answered ends (`run_end`: task agents, one run per task); or never."""
    fail_on_error: bool = True
    """Fail the holder's record when a run errors or is cancelled."""


MANUAL = LifecyclePolicy(accept_on="never", complete_on="never", fail_on_error=False)
"""Moves nothing: the runtime calls `accept`/`start`/`complete`/`fail` itself."""


class Conversation:
    """One call's open handoff: the record routed to the agent that now holds the call.

    Not thread-safe: one conversation belongs to one task on one event loop, as a framework
    run does. Moves that lose a race (another replica moved or expired the record) leave the
    record as the store has it; `records` names every routed record of the call, in order.
    """

    def __init__(
        self, engine: AsyncEngine, session: Session, policy: LifecyclePolicy | None = None
    ) -> None:
        self.engine = engine
        self.session = session
        self.policy = policy or LifecyclePolicy()
        self.open: HandoffRecord | None = None
        self.records: list[str] = []

    def context(self, values: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The handoff context the adapter passes to the engine: the caller's values plus the
        session id, so records can be found by call."""
        return {**(values or {}), SESSION_KEY: self.session.session_id}

    async def handed_off(self, outcome: HandoffOutcome) -> None:
        """A handoff the engine routed: the previous holder's record completes (it handed on);
        the new one waits for its target's first turn. A refusal moves nothing."""
        if outcome.target is None:
            return
        await self._complete({"handed_on_to": outcome.target})
        self.open = outcome.record
        self.records.append(outcome.record.record_id)
        if self.policy.accept_on == "handoff":
            await self._take()

    async def turn(self, agent: str) -> None:
        """`agent` takes a turn: its routed record, if still pending, is accepted and started."""
        if self.policy.accept_on == "never" or self.open is None:
            return
        if self.open.request.to_agent == agent:
            await self._take()

    async def run_ended(self, agent: str) -> None:
        """A run ended normally with `agent` holding the call."""
        if self.policy.complete_on == "run_end" and self._holder() == agent:
            await self._complete({"ended": "run"})

    async def run_failed(self, error: BaseException) -> None:
        """A run errored or was cancelled: the holder's record fails with the typed reason."""
        if not self.policy.fail_on_error or self.open is None or not self.open.is_live:
            return
        if isinstance(error, (asyncio.CancelledError, KeyboardInterrupt, GeneratorExit)):
            await self._move(self.engine.cancel, "The run was cancelled.")
        else:
            await self._move(self.engine.fail,
                             f"The run failed: {type(error).__name__}: {error}"[:500])

    async def end(self) -> None:
        """The call is over: the holder's record completes."""
        await self._complete({"ended": "call"})

    # -- moves -----------------------------------------------------------------------------
    def _holder(self) -> str | None:
        return None if self.open is None else self.open.request.to_agent

    async def _take(self) -> None:
        if self.open is None:
            return
        if self.open.status is HandoffStatus.pending:
            await self._move(self.engine.accept)
        if self.open.status is HandoffStatus.accepted:
            await self._move(self.engine.start)

    async def _complete(self, result: Mapping[str, Any]) -> None:
        if self.policy.complete_on == "never" or self.open is None or not self.open.is_live:
            return
        if self.policy.accept_on != "never":
            await self._take()  # a record is completed from in progress only
        if self.open.status is HandoffStatus.in_progress:
            await self._move(self.engine.complete, result)

    async def _move(self, move: Callable[..., Awaitable[HandoffRecord]], *args: Any) -> None:
        """One move of the open record; one that lost a race (expired, or moved by another
        replica) leaves the record as the store now has it."""
        assert self.open is not None
        try:
            self.open = await move(self.open.record_id, *args)
        except (HandoffExpired, IllegalTransition):
            self.open = await self.engine.get(self.open.record_id)
