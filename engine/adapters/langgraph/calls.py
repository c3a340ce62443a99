"""The adapter's conversations, one per call (a LangGraph thread): each owns the engine session
whose history is the loop guard's, and the lifecycle of the call's records. Nodes and tools find
theirs from the graph state or the thread id; nothing here decides a route."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from langchain_core.runnables import RunnableConfig

from engine.adapters.common import not_in_team
from engine.adapters.lifecycle import Conversation, LifecyclePolicy
from engine.errors import UsageError
from engine.runtime.async_engine import AsyncEngine
from engine.runtime.engine import HandoffOutcome
from engine.runtime.session import Session


def thread_of(config: RunnableConfig | None) -> str | None:
    """The run's thread id (`config["configurable"]["thread_id"]`), if it has one."""
    thread = ((config or {}).get("configurable") or {}).get("thread_id")
    return None if thread is None else str(thread)


def session_id_of(state: Mapping[str, Any], config: RunnableConfig | None) -> str:
    """The call a run belongs to: the one its state names, else its thread, else a new one."""
    known = state.get("handoff_session") or thread_of(config)
    return str(known) if known else str(uuid.uuid4())


async def unbuilt(engine: AsyncEngine, outcome: HandoffOutcome) -> UsageError:
    """A handoff routed to an agent the graph has no node for (a reload enabled it after the
    build): its record is rejected with the reason, and the error to raise is returned."""
    assert outcome.target is not None
    error = not_in_team(outcome.target, outcome.decision.config_version)
    await engine.reject(outcome.record.record_id, str(error)[:500])
    return error


class Calls:
    """Open conversations by session id. In-process: a call resumed in another process (a
    checkpointed thread) gets a new conversation whose session replays the state's hops, so
    the loop guard still holds; records left open by the other process are its to finish."""

    def __init__(self, engine: AsyncEngine, policy: LifecyclePolicy | None) -> None:
        self.engine = engine
        self.policy = policy
        self.open: dict[str, Conversation] = {}

    def of(self, state: Mapping[str, Any], config: RunnableConfig | None) -> Conversation:
        """The conversation of the run `state` and `config` describe."""
        known = state.get("handoff_session") or thread_of(config)
        if not known:
            raise UsageError(
                "a handoff tool ran without a call to belong to: the graph's state has no "
                "'handoff_session' and the run no thread id; run it with config="
                "{'configurable': {'thread_id': ...}} or build it on HandoffState with the "
                "adapter's router node"
            )
        return self.get(str(known), state)

    def get(self, session_id: str, state: Mapping[str, Any] | None = None) -> Conversation:
        """The conversation `session_id` names, opened (from `state`'s hops) on first use."""
        call = self.open.get(session_id)
        if call is None:
            session = self._resumed(session_id, state or {})
            call = self.open[session_id] = Conversation(self.engine, session, self.policy)
        return call

    async def end(self, session_id: str) -> Conversation | None:
        """The call is over: its open record completes and the conversation is let go."""
        call = self.open.pop(session_id, None)
        if call is not None:
            await call.end()
        return call

    def _resumed(self, session_id: str, state: Mapping[str, Any]) -> Session:
        """A session for the call, replaying the hops its graph state holds (none for a new
        call), so a checkpointed thread resumes with its loop guard's history."""
        hops = state.get("handoff_hops") or []
        start = hops[0][0] if hops else state.get("active_agent")
        session = self.engine.session(session_id=session_id, active_agent=start,
                                      system_vars=state.get("handoff"))
        for _, target in hops:
            session.record_hop(target, returning=target == session.previous_agent, routed=True)
        return session
