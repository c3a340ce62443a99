"""Routing: the layered rule-based router over a Snapshot, its decisions, and seed parity APIs.

Import from here; the submodules are internal. Nothing in this package performs I/O.
"""

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
from engine.routing.normalize import Normalizer
from engine.routing.policy import Hop
from engine.routing.provider import HandoffProvider
from engine.routing.router import Router
from engine.routing.seed import AgentCapabilityRegistry, HandoffRouter
from engine.routing.text import _extract_keywords, words

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
