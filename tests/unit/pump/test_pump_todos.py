"""TodoUntil watchers, the nudge text and the built-in todo listeners."""

from __future__ import annotations

import pytest

from engine.pump import TodoClosed, TodoComplete, TodoRegistered, TodoRegistry, TodoUntil
from engine.pump.payloads import PayloadRejected
from engine.pump.todos import TODO_COMPLETE_LISTENER, TODO_LISTENER, format_nudge, serve_todo


def test_watcher_raises_on_matching_type_and_sender_only() -> None:
    todos = TodoRegistry()
    wid = todos.register("t1", "greeter", "Result", from_listener="calc")
    assert todos.check("t1", "Result", "other") == []
    assert todos.check("t2", "Result", "calc") == []
    assert todos.check("t1", "ResultX", "calc") == []
    assert [w.watcher_id for w in todos.check("t1", "result", "calc")] == [wid]
    assert todos.check("t1", "Result", "calc") == []  # raised once
    raised = todos.get_raised_for("t1", "greeter")
    assert raised[0].eyebrow_raised and raised[0].triggered_from == "calc"
    assert todos.get_pending_for("t1", "greeter") == []


def test_nudge_lists_raised_watchers_until_closed() -> None:
    todos = TodoRegistry()
    wid = todos.register("t1", "greeter", "Result", description="sum ready")
    todos.check("t1", "Result", "calc")
    nudge = format_nudge(todos.get_raised_for("t1", "greeter"))
    assert "SYSTEM NOTE" in nudge and wid in nudge and "sum ready" in nudge
    assert TODO_COMPLETE_LISTENER in nudge
    assert todos.close(wid) is True
    assert todos.close(wid) is False
    assert format_nudge(todos.get_raised_for("t1", "greeter")) == ""


def test_close_threads_removes_their_watchers() -> None:
    todos = TodoRegistry()
    todos.register("t1", "a", "X")
    todos.register("t2", "a", "X")
    assert todos.close_threads(["t1", "t9"]) == 1
    assert len(todos) == 1


def test_serve_todo_registers_on_the_issuers_thread_and_closes() -> None:
    todos = TodoRegistry()
    ack = serve_todo(todos, TODO_LISTENER, {"wait_for": "Result"}, thread_id="t", issuer="a")
    assert isinstance(ack, TodoRegistered)
    assert todos.get_pending_for("t", "a")[0].watcher_id == ack.id
    foreign = serve_todo(todos, TODO_COMPLETE_LISTENER, TodoComplete(id=ack.id),
                         thread_id="t", issuer="b")
    assert foreign == TodoClosed(id=ack.id, was_raised=False) and len(todos) == 1
    closed = serve_todo(todos, TODO_COMPLETE_LISTENER, {"id": ack.id}, thread_id="t", issuer="a")
    assert closed == TodoClosed(id=ack.id, was_raised=False) and len(todos) == 0
    with pytest.raises(PayloadRejected, match="wait_for"):
        serve_todo(todos, TODO_LISTENER, {"wrong": 1}, thread_id="t", issuer="a")
    assert TodoUntil(wait_for="X").from_listener == ""
