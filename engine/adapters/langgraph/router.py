"""The router node: before any model runs, the caller's words go through the engine's rules,
keywords and examples from the agent holding the call (`turn_routing.route_turn`, the decision
every adapter's user-turn hook makes, with `EVERY_TURN`: any of those layers moves the caller,
from any agent). A route to another agent is a recorded handoff and moves the graph there; no
route keeps the caller where they are and records nothing. The fallback layer does not move a
caller here: words that match nothing are the holder's to answer, not a request to leave. The
holder is the one the graph state names (a thread forked or edited with `update_state` holds
the call where its state says), else the session's. The models' handoff tools stay the trigger
layer."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime
from langgraph.types import Command

from engine.adapters.langgraph.calls import Calls, session_id_of, unbuilt
from engine.adapters.langgraph.state import caller_text, last_human, moved
from engine.adapters.turn_routing import EVERY_TURN, route_turn

ROUTER = "route"
"""The router node's name in the graphs the adapter builds."""


def router_node(
    calls: Calls, team: Callable[[], Collection[str]]
) -> Callable[..., Any]:
    """The node: `Command(goto=holder)`, or `Command(goto=target)` after a routed handoff."""

    async def route(
        state: Mapping[str, Any], config: RunnableConfig, runtime: Runtime[Any]
    ) -> Command[Any]:
        session_id = session_id_of(state, config)
        call = calls.get(session_id, state)
        entry = calls.engine.snapshot.config.engine.entry
        holder = state.get("active_agent") or call.session.active_agent or entry
        update: dict[str, Any] = {"handoff_session": session_id, "active_agent": holder}
        text = caller_text(state.get("messages", []))
        values = runtime.context if isinstance(runtime.context, Mapping) else None
        outcome = await route_turn(calls.engine, call.session, text, call.context(values),
                                   EVERY_TURN, holder=holder)
        if outcome is None or outcome.target is None:  # stays (a refusal is audited)
            return Command(goto=holder, update=update)
        if outcome.target not in team():
            error = await unbuilt(calls.engine, outcome)
            await call.run_failed(error)  # the run fails while the holder holds the call
            raise error
        await call.handed_off(outcome)
        words = last_human(state.get("messages", []))
        update.update(moved(state, outcome, None if words is None else words.id))
        return Command(goto=outcome.target, update=update)

    return route
