"""Reading a routing request as `handoff route` and the playground take it: context values keep
their JSON type, and names the set does not know, in the request or its session's past hops,
are usage errors that say which flag and which name."""

from __future__ import annotations

import json

import pytest

from engine.errors import UsageError
from engine.routing.decision import RouteRequest
from engine.routing.requests import check_request, parse_context, parse_hops
from tests.unit.routing.conftest import Build


def test_context_values_keep_their_json_type_and_anything_else_is_text() -> None:
    context = parse_context(["n=3", "ok=true", "tier=gold", "x=1.5", "none=null", "obj={\"a\":1}"])
    assert context == {"n": 3, "ok": True, "tier": "gold", "x": 1.5, "none": None,
                       "obj": "{\"a\":1}"}


def test_numbers_json_cannot_hold_are_text_or_refused() -> None:
    """NaN and the infinities are no JSON: read as text, so output stays strict JSON."""
    context = parse_context(["a=NaN", "b=Infinity", "c=-Infinity"])
    assert context == {"a": "NaN", "b": "Infinity", "c": "-Infinity"}
    json.dumps(context, allow_nan=False)  # raises on a non-finite float
    with pytest.raises(UsageError, match=r"--context 'big=1e400': the number is too large"):
        parse_context(["big=1e400"])


def test_a_hop_naming_an_agent_the_set_does_not_know_is_a_usage_error(build: Build) -> None:
    snapshot = build([{"name": "desk"}, {"name": "fraud"}])
    request = RouteRequest(sender="desk", text="help")
    check_request(snapshot, request, parse_hops(["desk:fraud", "fraud:desk"]))
    for hop, unknown in (("desk:nobody", "nobody"), ("ghost:fraud", "ghost")):
        with pytest.raises(UsageError, match=rf"--hop '{hop}': unknown agent '{unknown}'"):
            check_request(snapshot, request, parse_hops([hop]))
