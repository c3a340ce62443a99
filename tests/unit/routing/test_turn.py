"""Several handoffs requested in one turn: `policies.multiple_handoffs` decides."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine.errors import UsageError
from engine.routing import Reason, Router, RouteRequest
from engine.routing.snapshot import Snapshot

Build = Callable[..., Snapshot]

REQUESTS = [
    RouteRequest("hub", "x", tool="to_a", priority=3),
    RouteRequest("hub", "x", tool="to_b", priority=8),
    RouteRequest("hub", "x", tool="to_c", priority=8),
]


def _router(build: Build, mode: str) -> Router:
    agents = [{"name": "hub"}] + [
        {"name": n, "handoff": {"trigger": f"to_{n}"}} for n in ("a", "b", "c")
    ]
    return Router(build(agents, policies={"multiple_handoffs": mode}))


def test_first_takes_the_first_request_and_records_the_rest(build: Build) -> None:
    decision = _router(build, "first").route_turn(REQUESTS)
    assert decision.target == "a"
    assert decision.dropped_requests == (REQUESTS[1], REQUESTS[2])


def test_highest_priority_takes_the_earliest_of_the_highest(build: Build) -> None:
    decision = _router(build, "highest_priority").route_turn(REQUESTS)
    assert decision.target == "b"
    assert decision.dropped_requests == (REQUESTS[0], REQUESTS[2])


def test_reject_refuses_every_request(build: Build) -> None:
    decision = _router(build, "reject").route_turn(REQUESTS)
    assert (decision.target, decision.rejection) == (None, Reason.multiple_handoffs)
    assert decision.dropped_requests == tuple(REQUESTS)


def test_a_single_request_is_routed_whatever_the_mode(build: Build) -> None:
    decision = _router(build, "reject").route_turn(REQUESTS[:1])
    assert (decision.target, decision.dropped_requests) == ("a", ())


def test_an_empty_turn_is_a_usage_error(build: Build) -> None:
    with pytest.raises(UsageError):
        _router(build, "first").route_turn([])
