"""The graph state the adapter owns (`HandoffState`), the build-time check that a user's graph
carries it, and the pure translations between that state and the engine's outcomes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AnyMessage, HumanMessage
from langgraph.graph import StateGraph
from langgraph.graph.message import add_messages

from engine.config.models import AgentSpec
from engine.errors import UsageError
from engine.runtime.engine import HandoffOutcome


class HandoffState(TypedDict, total=False):
    """Graph state: the conversation, who holds it, the handoffs so far (the loop guard's
    history, `[from, to]` pairs), the system vars of the last handoff and the call's session
    id (the thread id, or one the router made up for a run without a thread). Extend it for
    keys of your own: `class MyState(HandoffState): ...`."""

    messages: Annotated[list[AnyMessage], add_messages]
    active_agent: str
    handoff_hops: list[list[str]]
    handoff: dict[str, Any]
    handoff_session: str


HANDOFF_KEYS = ("active_agent", "handoff_hops", "handoff", "handoff_session")
"""The keys of `HandoffState` beyond `messages`: where the sender and the hops live."""


def require_handoff_state(graph: StateGraph[Any]) -> None:
    """A graph the adapter adds its nodes to must hold `HandoffState`'s keys: LangGraph drops
    an update to a key its state lacks without a word, which would lose the sender and the
    loop guard's history. Raises a UsageError naming the missing keys."""
    lacking = [key for key in ("messages", *HANDOFF_KEYS) if key not in graph.channels]
    if lacking:
        name = getattr(graph.state_schema, "__name__", str(graph.state_schema))
        raise UsageError(
            f"the graph's state {name} lacks {', '.join(map(repr, lacking))}, where the "
            "handoff adapter keeps the sender, the hop history and the call's session; build "
            "the graph on engine.adapters.langgraph.HandoffState (or a subclass of it)"
        )


def moved(state: Mapping[str, Any], outcome: HandoffOutcome, marker: str | None) -> dict[str, Any]:
    """The state update of a routed handoff: the new holder, one more hop, the system vars,
    and `marker`, the id of the message the new holder's view starts at."""
    assert outcome.target is not None
    hops = [*state.get("handoff_hops", []), [outcome.decision.request.sender, outcome.target]]
    return {"active_agent": outcome.target, "handoff_hops": hops,
            "handoff": {**outcome.system_vars, "message_id": marker}}


def last_human(messages: Sequence[AnyMessage]) -> HumanMessage | None:
    """The caller's last message, if any."""
    return next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None)


def caller_text(messages: Sequence[AnyMessage]) -> str:
    """The caller's last words (the handoff's task text)."""
    message = last_human(messages)
    return message.content if message is not None and isinstance(message.content, str) else ""


def view(spec: AgentSpec, state: Mapping[str, Any]) -> list[AnyMessage]:
    """The agent's `context.share` as model input: `all` sees the whole conversation; `carry`
    and `none` see the caller's words that led to the handoff and what followed it (what may
    travel reaches them in the brief of their instructions). The marker is the handoff tool's
    result (the caller's last words before it are kept) or, for a handoff the router made on
    the caller's words, those words themselves."""
    messages: list[AnyMessage] = list(state.get("messages", []))
    marker = state.get("handoff", {}).get("message_id")
    if spec.context.share == "all" or state.get("active_agent") != spec.name or not marker:
        return messages
    cut = next((i for i, m in enumerate(messages) if m.id == marker), None)
    if cut is None:
        return messages
    if isinstance(messages[cut], HumanMessage):
        return messages[cut:]
    before = [m for m in messages[:cut] if isinstance(m, HumanMessage)][-1:]
    return [*before, *messages[cut + 1:]]
