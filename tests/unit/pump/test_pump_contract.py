"""The handler contract keeps the seed's names, field order, defaults and semantics."""

from __future__ import annotations

import dataclasses

from engine.pump import ROUTING_ERROR, HandlerMetadata, HandlerResponse, SystemError


def test_handler_metadata_fields_match_the_seed() -> None:
    fields = [(f.name, f.default) for f in dataclasses.fields(HandlerMetadata)]
    assert fields == [
        ("thread_id", dataclasses.MISSING),
        ("from_id", dataclasses.MISSING),
        ("own_name", None),
        ("is_self_call", False),
        ("usage_instructions", ""),
        ("todo_nudge", ""),
    ]
    assert HandlerMetadata("t", "f") == HandlerMetadata(thread_id="t", from_id="f")


def test_handler_response_forward_and_respond() -> None:
    forward = HandlerResponse(payload={"a": 1}, to="shouter")
    assert [f.name for f in dataclasses.fields(HandlerResponse)] == ["payload", "to"]
    assert not forward.is_response and forward.to == "shouter"
    reply = HandlerResponse.respond({"value": 42})
    assert reply.is_response and reply.payload == {"value": 42}
    assert repr(reply.to) == "RESPOND_TO_CALLER"


def test_the_routing_error_is_the_seeds_generic_message() -> None:
    assert SystemError(
        code="routing",
        message="Message could not be delivered. Please verify your target and try again.",
        retry_allowed=True,
    ) == ROUTING_ERROR
    assert SystemError(code="timeout", message="m").retry_allowed is True
