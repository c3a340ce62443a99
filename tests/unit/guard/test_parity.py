"""Property: a sync and an async node with the same body behave identically under @guard."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from engine.errors import HandoffViolation
from engine.guard import guard, parse_json, retry


class Answer(BaseModel):
    name: str = Field(min_length=2)
    score: int = Field(ge=0, le=10)


VALUES = st.sampled_from(["ab", "a", "", 3, -1, 11, 5, None, [], "7"])
REPLY = st.one_of(
    st.dictionaries(st.sampled_from(["name", "score", "extra"]), VALUES, max_size=3),
    st.sampled_from(['{"name": "ab", "score": 1}', "no json", '{"name": "ab", "score": ',
                     "```json\n{'name': 'xy', 'score': 2,}\n```", "[1, 2]"]),
)


def _outcome(run: Any) -> Any:
    try:
        return ("value", run())
    except HandoffViolation as violation:
        found = violation.to_dict()
        found.pop("timestamp")
        for record in found["history"]:
            record.pop("timestamp")
            record.pop("duration_ms")
        return ("violation", found)


@settings(max_examples=150, deadline=None)
@given(st.lists(REPLY, min_size=1, max_size=4), st.integers(1, 3),
       st.sampled_from(["raise", "return_none", "return_input"]),
       st.sampled_from([("validation", "parse"), ("validation",), ("parse",)]))
def test_sync_and_async_nodes_agree(replies: list[Any], attempts: int, on_fail: str,
                                    retry_on: tuple[str, ...]) -> None:
    def body() -> Any:
        reply = replies[min(retry.attempt, len(replies)) - 1]
        return parse_json(reply) if isinstance(reply, str) else reply

    def node(state: Any) -> Any:
        return body()

    async def anode(state: Any) -> Any:
        return body()

    options: dict[str, Any] = {"output": Answer, "max_attempts": attempts,
                               "on_fail": on_fail, "retry_on": retry_on, "node_name": "n"}
    sync_node, async_node = guard(**options)(node), guard(**options)(anode)

    def run_sync() -> Any:
        return sync_node({"in": 1})

    def run_async() -> Any:
        return asyncio.run(async_node({"in": 1}))

    def outcome(run: Any) -> Any:
        try:
            return _outcome(run)
        except Exception as error:  # errors that are not violations must match too
            return ("error", type(error).__name__, str(error))

    assert outcome(run_sync) == outcome(run_async)
