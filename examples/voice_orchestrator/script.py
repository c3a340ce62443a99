"""The scripted calls: what the caller says and what each agent's model decides to do.

Pure data, one `Script` per shipped config set (by its name). A `Turn` is one caller
utterance and the active agent's reaction: a handoff tool call (name + arguments), a plain
task text to route by rules and keywords, or a reply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Turn:
    caller: str
    tool: str | None = None  # the handoff tool the active agent's model calls
    args: dict[str, Any] = field(default_factory=dict)
    route_text: bool = False  # no tool: the orchestrator routes the utterance itself
    reply: str = ""  # what the active agent says when it keeps the call
    work: str = ""  # what the agent that took the call does before the next turn


@dataclass(frozen=True)
class Script:
    """A whole call: its turns, the context every handoff carries, the session's system vars."""

    turns: tuple[Turn, ...]
    context: dict[str, Any]
    system_vars: dict[str, Any]


CONTEXT = {"customer_id": "C-1042", "caller_verified": True, "customer_tier": "standard"}

CALL: tuple[Turn, ...] = (
    Turn(
        caller="Hi, there are two charges on my card from last night that I didn't make.",
        tool="handoff_fraud_agent",
        args={"reason": "two unrecognised card charges", "card_last4": "4421",
              "suspected_amount": 312.5},
        work="freeze_card(card_last4='4421') -> frozen; open_fraud_case() -> case F-88231",
    ),
    Turn(
        caller="Thanks. While I have you, can you help me pick a new travel card?",
        tool="handoff_card_recommendation",  # not a peer of the fraud desk: policy refuses
        args={"reason": "wants a travel card"},
        reply="I can't move you to the card desk from here, but the concierge can.",
    ),
    Turn(
        caller="Okay, take me back then.",
        tool="handoff_concierge",
        args={"reason": "fraud case opened, caller has another request"},
    ),
    Turn(
        caller="I'd like a new travel card with miles and no foreign fees.",
        route_text=True,
        work="search_card_catalog(tags=['travel', 'miles']) -> 3 cards; check_preapproval() -> ok",
    ),
    Turn(caller="That's everything, thank you!", reply="You're welcome. Goodbye!"),
)

RESEARCH_CALL: tuple[Turn, ...] = (
    Turn(
        caller="Can you size the European heat-pump market for our board brief?",
        tool="handoff_analyst",
        args={"question": "European heat-pump market size, 2020-2025"},
        work="query_market_db(segment='heat pumps', region='EU') -> 5 series",
    ),
    Turn(
        caller="Great, please turn those findings into a one-page brief.",
        tool="handoff_writer",
        args={"reason": "findings ready for the board brief"},
        work="draft_brief(audience='board', pages=1) -> draft v1",
    ),
    Turn(
        caller="Could you also re-run the numbers for Nordic countries only?",
        tool="handoff_analyst",  # the writer may hand back only to the coordinator
        args={"question": "Nordic heat-pump market size"},
        reply="I can't commission analysis myself; the coordinator can.",
    ),
    Turn(
        caller="Fine, send it back to the coordinator.",
        tool="handoff_coordinator",
        args={"reason": "brief drafted, follow-up analysis requested"},
    ),
    Turn(caller="That's all for today.", reply="Thanks, the brief is on its way."),
)

SCRIPTS: dict[str, Script] = {
    "banking-concierge": Script(
        CALL, CONTEXT, {"client_id": CONTEXT["customer_id"], "institution_name": "Contoso Bank"}),
    "research-team": Script(RESEARCH_CALL, {"project_id": "P-77", "deadline": "Friday"},
                            {"team": "research"}),
}
"""Config set name -> the call scripted for it."""
