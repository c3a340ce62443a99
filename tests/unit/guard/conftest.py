"""One guard test suite, run against a sync and an async node built from the same body."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest


class Nodes:
    """Builds a node of the current mode from a plain body and calls it."""

    def __init__(self, mode: str) -> None:
        self.mode = mode

    def build(self, body: Callable[..., Any], *, with_retry: bool = False) -> Callable[..., Any]:
        if self.mode == "sync":
            if with_retry:
                def node_r(state: Any, retry: Any = None) -> Any:
                    return body(state, retry)
                return node_r

            def node(state: Any) -> Any:
                return body(state)
            return node
        if with_retry:
            async def anode_r(state: Any, retry: Any = None) -> Any:
                return body(state, retry)
            return anode_r

        async def anode(state: Any) -> Any:
            return body(state)
        return anode

    def call(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if self.mode == "sync":
            return func(*args, **kwargs)
        return asyncio.run(func(*args, **kwargs))


@pytest.fixture(params=["sync", "async"])
def nodes(request: pytest.FixtureRequest) -> Nodes:
    return Nodes(request.param)
