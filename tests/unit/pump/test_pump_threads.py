"""Thread registry: chains as lists, pruning to the caller, sub-thread termination."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.pump import ThreadRegistry


def test_chains_are_lists_and_names_may_contain_dots() -> None:
    threads = ThreadRegistry()
    root = threads.start("console", "team.router")
    child = threads.extend(root, "team.greeter")
    assert threads.chain(child) == ("console", "team.router", "team.greeter")
    assert threads.root_of(child) == root
    assert threads.depth(child) == 3


def test_each_send_gets_its_own_opaque_thread() -> None:
    threads = ThreadRegistry()
    root = threads.start("client", "a")
    first, second = threads.extend(root, "b"), threads.extend(root, "b")
    assert first != second
    assert threads.chain(first) == threads.chain(second) == ("client", "a", "b")
    assert "client" not in first and "." not in first.replace("-", "")


def test_prune_routes_to_the_caller_on_its_thread_and_terminates_sub_threads() -> None:
    threads = ThreadRegistry()
    root = threads.start("client", "a")
    b = threads.extend(root, "b")
    c = threads.extend(b, "c")
    d = threads.extend(c, "d")
    pruned = threads.prune(b)
    assert pruned.target == "a"
    assert pruned.thread_id == root
    assert set(pruned.terminated) == {b, c, d}
    assert b not in threads and d not in threads and root in threads


def test_pruning_the_root_goes_back_to_the_initiator() -> None:
    threads = ThreadRegistry()
    root = threads.start("client", "a")
    sub = threads.extend(root, "b")
    pruned = threads.prune(root)
    assert (pruned.target, pruned.thread_id) == ("client", None)
    assert set(pruned.terminated) == {root, sub}
    assert len(threads) == 0


def test_unknown_threads() -> None:
    threads = ThreadRegistry()
    assert threads.terminate("nope") == ()
    with pytest.raises(KeyError, match="no live thread"):
        threads.extend("nope", "a")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["extend", "prune"]), st.integers(0, 50),
                          st.sampled_from(["a", "b.c", "d.e.f"])), max_size=40))
def test_registry_invariants_under_random_sends_and_replies(
    ops: list[tuple[str, int, str]],
) -> None:
    """Live threads always extend a live parent's chain by one name; a prune removes exactly
    the responder's subtree."""
    threads = ThreadRegistry()
    parents: dict[str, str | None] = {}
    root = threads.start("client", "a")
    parents[root] = None
    for op, pick, hop in ops:
        live = sorted(parents)
        if not live:
            break
        current = live[pick % len(live)]
        if op == "extend":
            parents[threads.extend(current, hop)] = current
            continue
        subtree = {current}
        while True:
            more = {t for t, p in parents.items() if p in subtree} - subtree
            if not more:
                break
            subtree |= more
        pruned = threads.prune(current)
        assert set(pruned.terminated) == subtree
        assert pruned.thread_id == parents[current]
        for thread_id in subtree:
            del parents[thread_id]
    assert len(threads) == len(parents)
    for thread_id, parent in parents.items():
        if parent is not None:
            assert threads.chain(thread_id)[:-1] == threads.chain(parent)
