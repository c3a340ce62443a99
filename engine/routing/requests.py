"""Reading a routing request as `handoff route` and the console's playground take it: context
items (`KEY=VALUE`), session hops (`FROM:TO`), and the checks of its names and values against a
config set. Messages name the command-line flags, which the playground's fields mirror.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.errors import UsageError
from engine.routing.decision import RouteRequest
from engine.routing.policy import Hop

if TYPE_CHECKING:
    from engine.routing.snapshot import Snapshot


def parse_context(items: Sequence[str]) -> dict[str, Any]:
    """`["tier=gold", "n=3"]` -> `{"tier": "gold", "n": 3}`; JSON scalars keep their type, and
    anything else is text (`NaN` too: JSON has no such number). A number too large for a float
    (`1e400`) is a UsageError: it would be infinite, which JSON cannot hold either."""
    context: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--context {item!r}: expected KEY=VALUE")
        try:
            value: Any = json.loads(raw, parse_constant=_not_json)
        except ValueError:
            value = raw
        if isinstance(value, float) and not math.isfinite(value):
            raise UsageError(f"--context {item!r}: the number is too large for a float")
        context[key.strip()] = raw if isinstance(value, (dict, list)) else value
    return context


def _not_json(constant: str) -> Any:
    """`NaN`, `Infinity` and `-Infinity` are no JSON values: read such a value as text."""
    raise ValueError(f"{constant} is not JSON")


def parse_hops(items: Sequence[str]) -> tuple[Hop, ...]:
    hops = []
    for item in items:
        source, sep, target = item.partition(":")
        if not sep or not source or not target:
            raise UsageError(f"--hop {item!r}: expected FROM:TO")
        hops.append((source, target))
    return tuple(hops)


def check_request(
    snapshot: Snapshot, request: RouteRequest, history: Sequence[Hop] = ()
) -> None:
    """Usage errors for names the config set does not know (in the request and in the session's
    past `history`) and for out-of-range values."""
    agents = snapshot.agents
    if request.sender not in agents:
        raise UsageError(f"--from {request.sender!r}: unknown agent; known: {', '.join(agents)}")
    for source, target in history:
        for name in (source, target):
            if name not in agents:
                raise UsageError(f"--hop '{source}:{target}': unknown agent {name!r}; known: "
                                 f"{', '.join(agents)}")
    tables = snapshot.tables
    rule_tools = tables.rule_tools if tables is not None else frozenset()
    if request.tool is not None and not (
        snapshot.is_handoff_tool(request.tool) or request.tool in rule_tools
    ):
        known = ", ".join(sorted({*snapshot.handoff_map, *rule_tools})) or "none"
        raise UsageError(f"--tool {request.tool!r}: unknown tool; known: {known}")
    vocabulary = snapshot.config.capabilities
    for capability in request.capabilities:
        if capability not in vocabulary:
            known = ", ".join(vocabulary) or "none"
            raise UsageError(f"--capability {capability!r}: unknown capability; known: {known}")
    if not 1 <= request.priority <= 10:
        raise UsageError(f"--priority {request.priority}: must be between 1 and 10")
