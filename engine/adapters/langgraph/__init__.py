"""LangGraph adapter: handoff tools whose `Command(goto=...)` is the engine's decision, a router
node that routes the caller's words through the engine before any model runs, and the two usual
multi-agent graphs built from a config set (swarm: the active agent keeps the caller;
supervisor: workers report back to the entry agent). Translates only; decides nothing.

`HandoffGraph` is the entry point; `HandoffState` the graph state the adapter keeps the sender,
the hop history and the call's session id in.
"""

from __future__ import annotations

from engine.adapters.common import missing

try:
    import langchain_core.messages  # noqa: F401
    import langgraph.graph
    import langgraph.prebuilt  # noqa: F401
except ImportError as error:  # pragma: no cover - exercised without the extra
    raise missing("langgraph", "langgraph") from error

from engine.adapters.langgraph.graph import HandoffGraph
from engine.adapters.langgraph.state import HANDOFF_KEYS, HandoffState

__all__ = ["HANDOFF_KEYS", "HandoffGraph", "HandoffState"]
