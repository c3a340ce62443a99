"""Routing: the layered rule-based router over a Snapshot, its decisions, and seed parity APIs.

Import from here; the submodules are internal. Nothing in this package performs I/O. Names load
lazily on first use (as `engine`'s do): compiling a snapshot, which `handoff check` does, needs
the index and table modules only, not the router or the seed 000 port.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy import lazy_surface

_EXPORTS: dict[str, str] = {
    "AgentCapabilityRegistry": "engine.routing.seed",
    "Candidate": "engine.routing.decision",
    "Candidates": "engine.routing.decision",
    "ExampleIndex": "engine.routing.examples",
    "ExampleMatch": "engine.routing.evidence",
    "HandoffProvider": "engine.routing.provider",
    "HandoffRouter": "engine.routing.seed",
    "Hop": "engine.routing.policy",
    "KeywordIndex": "engine.routing.index",
    "Layer": "engine.routing.decision",
    "NearestExample": "engine.routing.evidence",
    "Normalizer": "engine.text.normalize",
    "Reason": "engine.routing.decision",
    "RouteDecision": "engine.routing.decision",
    "RouteRequest": "engine.routing.decision",
    "Router": "engine.routing.router",
    "_extract_keywords": "engine.routing.text",
    "build_example_index": "engine.routing.examples",
    "build_keyword_index": "engine.routing.index",
    "words": "engine.routing.text",
}

__all__ = [
    "AgentCapabilityRegistry",
    "Candidate",
    "Candidates",
    "ExampleIndex",
    "ExampleMatch",
    "HandoffProvider",
    "HandoffRouter",
    "Hop",
    "KeywordIndex",
    "Layer",
    "NearestExample",
    "Normalizer",
    "Reason",
    "RouteDecision",
    "RouteRequest",
    "Router",
    "_extract_keywords",
    "build_example_index",
    "build_keyword_index",
    "words",
]


__getattr__, __dir__ = lazy_surface(__name__, _EXPORTS)


if TYPE_CHECKING:  # static view of the lazy names, for type checkers and editors
    from engine.routing.decision import (
        Candidate,
        Candidates,
        Layer,
        Reason,
        RouteDecision,
        RouteRequest,
    )
    from engine.routing.evidence import ExampleMatch, NearestExample
    from engine.routing.examples import ExampleIndex, build_example_index
    from engine.routing.index import KeywordIndex, build_keyword_index
    from engine.routing.policy import Hop
    from engine.routing.provider import HandoffProvider
    from engine.routing.router import Router
    from engine.routing.seed import AgentCapabilityRegistry, HandoffRouter
    from engine.routing.text import _extract_keywords, words
    from engine.text.normalize import Normalizer
