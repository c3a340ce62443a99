"""Property: whatever handlers do, the pump goes idle, answers and accounts for every message."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from engine.pump import HandlerMetadata, HandlerResponse, Limits, ListenerRegistry, Pump
from tests.patience import HANG_S

NAMES = ["a", "b.x", "c"]
ACTIONS = ["respond", "none", "raise", "wrong", "bad-payload", "fanout", *NAMES, "ghost"]


class Msg(BaseModel):
    n: int


def behaviour(plan: list[str]) -> Any:
    calls = 0

    async def handler(payload: Any, metadata: HandlerMetadata) -> Any:
        nonlocal calls
        action = plan[calls % len(plan)]
        calls += 1
        if action == "respond":
            return HandlerResponse.respond(Msg(n=1))
        if action == "raise":
            raise ValueError("boom")
        if action == "wrong":
            return 42
        if action == "bad-payload":
            return HandlerResponse({"n": "x"}, to="c")
        if action == "fanout":
            return [HandlerResponse(Msg(n=2), to=name) for name in NAMES]
        if action == "none":
            return None
        return HandlerResponse(Msg(n=3), to=action)

    return handler


@settings(max_examples=40, deadline=None)
@given(
    st.fixed_dictionaries({name: st.lists(st.sampled_from(ACTIONS), min_size=1, max_size=5)
                           for name in NAMES}),
    st.sampled_from([[], ["a", "c"], "*"]),
)
def test_the_pump_always_settles(plans: dict[str, list[str]], peers: Any) -> None:
    registry = ListenerRegistry()
    for name in NAMES:
        registry.register(name, behaviour(plans[name]), payload=Msg, peers=peers, timeout=HANG_S)

    async def main() -> None:
        limits = Limits(max_depth=8, max_fanout=2, max_hops=300)
        async with Pump(registry, limits=limits) as pump:
            replies = await asyncio.wait_for(
                asyncio.gather(*(pump.request(name, {"n": 0}) for name in NAMES)), HANG_S
            )
            await asyncio.wait_for(pump.join(), HANG_S)
            stats = pump.stats()
        assert len(replies) == 3
        assert stats.in_flight == 0 and stats.injected == 3
        assert stats.handled <= stats.delivered <= stats.handled + sum(stats.dropped.values())

    asyncio.run(main())
