"""Handlers of the example pipeline; each prints what it sees so the run can be followed."""

from __future__ import annotations

from typing import Any

from desk_models import Answer, Draft, Findings, Notes, Query, Question

from engine.pump import HandlerMetadata, HandlerResponse, SystemError, TodoRegistered

FACTS = {
    "tides": ["the moon pulls the oceans", "two high tides a day"],
    "bees": ["bees dance to share directions"],
}


def say(who: str, text: str) -> None:
    print(f"  [{who}] {text}", flush=True)


async def desk(payload: Any, metadata: HandlerMetadata) -> HandlerResponse | None:
    """The agent: plans with a todo, asks research, hands notes to the writer, answers."""
    if isinstance(payload, Question):
        say("desk", f"question {payload.text!r} from {metadata.from_id}")
        topic = payload.text.split()[-1].strip("?").lower()
        if topic == "nothing":
            say("desk", "sending a Query with an empty topic")
            return HandlerResponse({"topic": ""}, to="research.search")
        return HandlerResponse(Query(topic=topic), to="research.search")
    if isinstance(payload, Findings):
        say("desk", f"findings on {payload.topic}: {len(payload.facts)} fact(s)")
        return HandlerResponse({"wait_for": "Draft", "from_listener": "writer"}, to="system.todo")
    if isinstance(payload, TodoRegistered):
        say("desk", "todo registered: waiting for a Draft from writer")
        return HandlerResponse(Notes(facts=["see findings"]), to="writer")
    if isinstance(payload, Draft):
        nudged = "yes" if metadata.todo_nudge else "no"
        say("desk", f"draft received (todo nudge present: {nudged}); answering the caller")
        return HandlerResponse.respond(Answer(text=payload.text))
    if isinstance(payload, SystemError):
        say("desk", f"SystemError {payload.code}: {payload.message}")
        return HandlerResponse.respond(Answer(text=f"sorry, that failed ({payload.code})"))
    return None


async def search(payload: Query, metadata: HandlerMetadata) -> HandlerResponse:
    """A tool: looks the topic up; crashes on an unknown topic."""
    say("research.search", f"query {payload.topic!r} (agent? {metadata.own_name is not None})")
    facts = FACTS[payload.topic]  # KeyError for unknown topics: the pump turns it into an error
    return HandlerResponse.respond(Findings(topic=payload.topic, facts=facts))


async def writer(payload: Any, metadata: HandlerMetadata) -> HandlerResponse:
    """Tries to ask research itself (not a peer: blocked), then writes the draft."""
    if isinstance(payload, SystemError):
        say("writer", f"SystemError {payload.code}: {payload.message}")
        return HandlerResponse.respond(Draft(text="a short draft written from the notes"))
    say("writer", f"notes with {len(payload.facts)} item(s); asking research directly")
    return HandlerResponse(Query(topic="more"), to="research.search")
