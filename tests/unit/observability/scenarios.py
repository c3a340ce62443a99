"""The situations every observer is tested on: a routed handoff, a loop-guard refusal, a
rejected reload and a pump chain across three listeners. Real engines on real config files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from engine import Engine
from engine.pump import HandlerMetadata, HandlerResponse, ListenerRegistry, Pump
from engine.pump.bridge import HandoffBridge
from engine.runtime.handoff import HandoffOutcome
from engine.runtime.reload import ReloadResult
from tests.patience import HANG_S


def routed(engine: Engine) -> HandoffOutcome:
    """A session on the concierge hands a stolen card to the fraud desk (rule layer)."""
    session = engine.session(session_id="call-1")
    outcome = engine.handoff("my card was stolen last night", session=session,
                             context={"card_number": "4111 1111 1111 1111"})
    assert outcome.target == "fraud_agent"
    return outcome


def bounce(engine: Engine, session_id: str = "call-2") -> tuple[Any, int]:
    """Concierge and fraud desk hand the caller back and forth until the loop guard refuses;
    returns the session and how many handoffs were routed before that."""
    session = engine.session(session_id=session_id)
    for _ in range(5):
        other = "fraud_agent" if session.active_agent == "concierge" else "concierge"
        assert engine.handoff("help", session=session, tool=f"handoff_{other}").target == other
    return session, 5


def refused(engine: Engine, session: Any) -> HandoffOutcome:
    outcome = engine.handoff("help me", session=session, tool="handoff_concierge")
    assert outcome.reason == "loop"
    return outcome


def reject_reload(folder: Path, engine: Engine) -> ReloadResult:
    """Break a rule priority ('high' is not an integer) and reload: rejected, old one serves."""
    routing = folder / "routing.yaml"
    text = routing.read_text(encoding="utf-8")
    routing.write_text(text.replace("priority: 90", "priority: high", 1), encoding="utf-8")
    result = engine.reload()
    assert result.outcome == "rejected"
    return result


class Ask(BaseModel):
    text: str


class Answer(BaseModel):
    text: str


def chain() -> ListenerRegistry:
    """desk -> triage -> specialist, each an agent; the answer travels back the same way."""

    def forward(to: str) -> Any:
        async def handler(payload: Any, metadata: HandlerMetadata) -> HandlerResponse:
            if isinstance(payload, Ask):
                return HandlerResponse(payload, to=to)
            return HandlerResponse.respond(payload)
        return handler

    async def specialist(payload: Ask, metadata: HandlerMetadata) -> HandlerResponse:
        return HandlerResponse.respond(Answer(text=payload.text.upper()))

    registry = ListenerRegistry()
    registry.register("desk", forward("triage"), payload=[Ask, Answer], peers=["triage"],
                      agent=True)
    registry.register("triage", forward("specialist"), payload=[Ask, Answer],
                      peers=["specialist"], agent=True)
    registry.register("specialist", specialist, payload=Ask, agent=True)
    return registry


async def run_chain(engine: Engine) -> Pump:
    """One request through the chain, with the engine's observer and a handoff bridge."""
    registry = chain()
    bridge = HandoffBridge(engine.manager, registry)
    async with Pump(registry, bridge=bridge, observer=engine.observer) as pump:
        assert await pump.request("desk", Ask(text="hi"), timeout=HANG_S) == Answer(text="HI")
        await pump.join()
    return pump
