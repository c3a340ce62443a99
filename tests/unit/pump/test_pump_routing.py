"""Envelope rules of the router, synchronously: peers, pruning, validation, caps, strikes."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from pydantic import BaseModel

from engine.errors import UsageError
from engine.pump import (
    ROUTING_ERROR,
    HandlerMetadata,
    HandlerResponse,
    Limits,
    ListenerRegistry,
    SystemError,
    TodoRegistered,
)
from engine.pump.contract import REPLY_BY_NAME_MESSAGE
from engine.pump.envelope import Envelope
from engine.pump.routing import Router


class Task(BaseModel):
    text: str


class Result(BaseModel):
    value: str


async def sink(payload: Any, metadata: HandlerMetadata) -> None:
    return None


def make_router(**limits: int) -> Router:
    registry = ListenerRegistry()
    registry.register("team.lead", sink, payload=[Task, Result], peers=["team.worker"], agent=True)
    registry.register("team.worker", sink, payload=Task, peers=[])
    registry.register("other", sink, payload=Task, peers="*")
    return Router(registry, limits=Limits(**limits))


def start(router: Router, target: str = "team.lead") -> tuple[Envelope, Any]:
    env = router.open(target, {"text": "go"}, sender="client")
    return env, router.registry[target]


def test_open_validates_target_sender_and_payload() -> None:
    router = make_router()
    with pytest.raises(UsageError, match="no listener"):
        router.open("nope", {}, sender="client")
    with pytest.raises(UsageError, match="reserved"):
        router.open("other", {"text": "x"}, sender="team.lead")
    with pytest.raises(UsageError, match="text: Field required"):
        router.open("other", {}, sender="client")


def test_forward_extends_the_chain_with_from_enforced() -> None:
    router = make_router()
    env, lead = start(router)
    outcome = router.route(lead, env, HandlerResponse({"text": "x"}, to="team.worker"))
    [out] = outcome.envelopes
    assert (out.to, out.from_id, out.payload, out.forward) == ("team.worker", "team.lead",
                                                               Task(text="x"), True)
    assert router.threads.chain(out.thread_id) == ("client", "team.lead", "team.worker")


def test_blocked_send_gets_the_generic_error_and_details_go_to_the_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    router = make_router()
    env, lead = start(router)
    with caplog.at_level(logging.WARNING, logger="engine.pump"):
        blocked = router.route(lead, env, HandlerResponse(Task(text="x"), to="other"))
        unknown = router.route(lead, env, HandlerResponse(Task(text="x"), to="ghost"))
    for outcome in (blocked, unknown):
        [error] = outcome.envelopes
        assert error.payload == ROUTING_ERROR and error.to == "team.lead"
        assert error.thread_id == env.thread_id and error.from_id == "system"
        assert "other" not in error.payload.message and "ghost" not in error.payload.message
    assert "team.lead -> 'other'" in caplog.text and "ghost" in caplog.text


def test_empty_peers_mean_no_one_and_self_sends_need_listing() -> None:
    router = make_router()
    env, lead = start(router)
    worker_env = router.route(lead, env, HandlerResponse(Task(text="x"), to="team.worker"))
    child = worker_env.envelopes[0]
    worker = router.registry["team.worker"]
    refused = router.route(worker, child, HandlerResponse(Task(text="x"), to="other"))
    assert refused.errors == ["routing"]
    other_env, other = start(router, "other")
    self_send = router.route(other, other_env, HandlerResponse(Task(text="x"), to="other"))
    assert self_send.errors == ["routing"]


def test_respond_prunes_to_the_caller_and_terminates_sub_threads() -> None:
    router = make_router()
    env, lead = start(router)
    child = router.route(lead, env, HandlerResponse(Task(text="x"), to="team.worker")).envelopes[0]
    worker = router.registry["team.worker"]
    reply = router.route(worker, child, HandlerResponse.respond({"value": "done"}))
    [out] = reply.envelopes
    assert (out.to, out.thread_id) == ("team.lead", env.thread_id)
    assert out.payload == Result(value="done")
    assert child.thread_id in reply.terminated and child.thread_id not in router.threads
    late = router.route(worker, child, HandlerResponse.respond({"value": "again"}))
    assert late.envelopes == [] and late.dropped == ["terminated"]
    final = router.route(lead, env, HandlerResponse.respond(Result(value="all")))
    [external] = final.envelopes
    assert external.external and external.to == "client" and external.thread_id == env.root


def test_response_failing_the_callers_schema_is_refused_to_the_responder() -> None:
    router = make_router()
    env, other = start(router, "other")
    child = router.route(other, env, HandlerResponse(Task(text="x"), to="team.lead")).envelopes[0]
    lead = router.registry["team.lead"]
    refused = router.route(lead, child, HandlerResponse.respond(Result(value="v")))
    [error] = refused.envelopes
    assert error.to == "team.lead" and isinstance(error.payload, SystemError)
    assert error.payload.code == "validation" and "expected a Task payload" in error.payload.message
    assert child.thread_id in router.threads


def test_validation_wrong_type_and_fanout_cap() -> None:
    router = make_router(max_fanout=2)
    env, lead = start(router)
    bad = router.route(lead, env, HandlerResponse({"txt": 1}, to="team.worker"))
    assert bad.envelopes[0].payload.code == "validation"
    assert "text: Field required" in bad.envelopes[0].payload.message
    wrong = router.route(lead, env, 42)
    assert wrong.errors == ["contract"] and "returned int" in wrong.envelopes[0].payload.message
    many = router.route(lead, env, [HandlerResponse(Task(text="x"), to="team.worker")] * 3)
    assert many.errors == ["limit"] and [e.to for e in many.envelopes] == ["team.lead"]
    assert "nothing was sent" in many.envelopes[0].payload.message


def test_fanout_within_the_cap_routes_every_valid_item() -> None:
    router = make_router()
    env, lead = start(router)
    sends = [HandlerResponse(Task(text=str(i)), to="team.worker") for i in range(3)]
    outcome = router.route(lead, env, [*sends, "junk"])
    assert [e.to for e in outcome.envelopes] == ["team.worker"] * 3 + ["team.lead"]
    assert outcome.errors == ["contract"]


def test_consecutive_errors_abort_the_thread_to_the_caller() -> None:
    router = make_router(max_strikes=2)
    env, lead = start(router)
    codes = [router.route(lead, env, 1).envelopes[0].payload.code for _ in range(3)]
    assert codes == ["contract", "contract", "aborted"]
    assert env.thread_id not in router.threads


def test_depth_cap() -> None:
    router = make_router(max_depth=2)
    env, lead = start(router)
    outcome = router.route(lead, env, HandlerResponse(Task(text="x"), to="team.worker"))
    assert outcome.errors == ["limit"] and "depth" in outcome.envelopes[0].payload.message


def test_todo_until_is_served_on_the_senders_thread_and_nudges() -> None:
    router = make_router()
    env, lead = start(router)
    ack = router.route(lead, env, HandlerResponse({"wait_for": "Result"}, to="system.todo"))
    [out] = ack.envelopes
    assert isinstance(out.payload, TodoRegistered) and out.to == "team.lead"
    assert out.from_id == "system.todo" and out.thread_id == env.thread_id
    reply = Envelope("team.lead", "team.worker", env.thread_id, Result(value="v"), env.root)
    metadata = router.metadata(lead, reply)
    assert out.payload.id in metadata.todo_nudge
    assert metadata.own_name == "team.lead" and metadata.from_id == "team.worker"
    assert "team.worker" in metadata.usage_instructions and not metadata.is_self_call


def test_a_listener_without_peers_answers_its_caller_by_name_as_a_reply() -> None:
    router = make_router()
    env, lead = start(router)
    child = router.route(lead, env, HandlerResponse(Task(text="x"), to="team.worker")).envelopes[0]
    worker = router.registry["team.worker"]
    answer = router.route(worker, child, HandlerResponse(Result(value="3"), to=child.from_id))
    [out] = answer.envelopes
    assert answer.errors == [] and answer.replied
    assert (out.to, out.from_id, out.thread_id, out.payload) == (
        "team.lead", "team.worker", env.thread_id, Result(value="3"))
    assert child.thread_id in answer.terminated  # pruned as by .respond()
    anyone_env, anyone = start(router, "other")  # peers "*": the outside caller is no listener
    outside = router.route(anyone, anyone_env, HandlerResponse(Task(text="y"), to="client"))
    assert outside.replied and [e.to for e in outside.envelopes] == ["client"]
    in_list = router.route(lead, env, [HandlerResponse(Result(value="x"), to="client")])
    assert in_list.errors == ["routing"]  # only a lone answer is a reply
    assert in_list.envelopes[0].payload.message == REPLY_BY_NAME_MESSAGE


def test_a_caller_that_is_a_peer_gets_a_send_not_a_reply() -> None:
    registry = ListenerRegistry()
    registry.register("a", sink, payload=[Task, Result], peers=["b"])
    registry.register("b", sink, payload=Task, peers=["a"])
    router = Router(registry)
    env = router.open("a", {"text": "go"}, sender="client")
    child = router.route(registry["a"], env, HandlerResponse(Task(text="x"), to="b")).envelopes[0]
    sent = router.route(registry["b"], child, HandlerResponse(Task(text="y"), to="a"))
    [out] = sent.envelopes
    assert out.forward and not sent.replied
    assert router.threads.chain(out.thread_id) == ("client", "a", "b", "a")


@pytest.mark.parametrize("legacy", [b"<result/>", bytearray(b"<result/>")])
def test_a_legacy_xml_result_fails_once_to_the_caller_and_ends_the_thread(legacy: Any) -> None:
    router = make_router()
    env, lead = start(router)
    child = router.route(lead, env, HandlerResponse(Task(text="x"), to="team.worker")).envelopes[0]
    failed = router.route(router.registry["team.worker"], child, legacy)
    [out] = failed.envelopes
    assert (out.to, failed.errors, failed.failure) == ("team.lead", ["contract"], "contract")
    assert isinstance(out.payload, SystemError) and not out.payload.retry_allowed
    assert "'team.worker' returned" in out.payload.message
    assert "HandlerResponse(payload, to=...)" in out.payload.message
    assert child.thread_id not in router.threads
