"""Routing the caller's own words through the engine, beside the model's tool choice.

A framework's user-turn hook asks `route_turn` whether the engine moves the caller before the
agent holding the call answers. The decision is made first without a record (the engine's pure
`route`), so a turn that stays where it is records nothing; a move is recorded by
`engine.handoff` like any handoff, and the adapter then feeds it to its `Conversation`.

Which layers may move a caller on their own words is a `TurnRouting`: by default every layer
but the fallback while the entry agent holds the call (the front door's job is to route), and
rules only while a specialist does (a rule is an explicit statement of the config, such as "a
stolen card goes to fraud before anything else"; a specialist's short answers, "it ends in
4421", must not match another agent's examples and move the caller mid-task). The fallback
never moves a caller: it is where a handoff goes when nothing matched, and a turn that matched
nothing stays. Pure asyncio over `AsyncEngine`; no framework imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.routing import Layer, RouteRequest
from engine.runtime.async_engine import AsyncEngine
from engine.runtime.engine import HandoffOutcome
from engine.runtime.session import Session


@dataclass(frozen=True)
class TurnRouting:
    """The routing layers allowed to move a caller on their own words."""

    entry: frozenset[Layer] = frozenset({Layer.rule, Layer.keyword, Layer.example})
    """While the config's entry agent holds the call."""
    specialists: frozenset[Layer] = frozenset({Layer.rule})
    """While any other agent holds it."""

    def allows(self, layer: Layer | None, *, at_entry: bool) -> bool:
        """Whether a decision of `layer` may move the caller (the fallback never does)."""
        return layer is not None and layer is not Layer.fallback and layer in (
            self.entry if at_entry else self.specialists)


TURNS_OFF = TurnRouting(entry=frozenset(), specialists=frozenset())
"""The caller's words never move them: only the models' handoff tools do."""
EVERY_TURN = TurnRouting(specialists=TurnRouting().entry)
"""Rules, keywords and examples move the caller from any agent (never the fallback)."""


async def route_turn(
    engine: AsyncEngine, session: Session, words: str, context: Mapping[str, Any],
    routing: TurnRouting | None = None, *, holder: str | None = None,
) -> HandoffOutcome | None:
    """The recorded handoff when the engine moves the caller on `words` (its outcome may still
    be a refusal if the config changed in between), or None when the holder keeps them:
    no route, a layer `routing` does not allow, or a target that is the holder itself.
    `holder`: the agent holding the call where the framework's own state says so (a LangGraph
    thread's checkpointed state, which the user may have forked or edited); by default the
    session's active agent."""
    routing = routing or TurnRouting()
    holder = holder or session.active_agent
    if not words.strip():
        return None
    request = RouteRequest(holder, words, context=context)
    decision = engine.route(request, session=session)
    at_entry = holder == engine.snapshot.config.engine.entry
    if decision.target in (None, holder) or not routing.allows(decision.layer,
                                                                at_entry=at_entry):
        return None
    return await engine.handoff(words, session=session, sender=holder, context=context)
