"""Seeing the engine in production: the observers of the `Observer` seam (defined below the
engine, in `engine.observer`, and re-exported here), one module each: `otel` (extra `otel`),
`prometheus` (extra `prometheus`), `jsonlog` and `textlog` (no extra). Importing this package
imports no telemetry library.
"""

from engine.observability.jsonlog import JsonFormatter, JsonLogObserver
from engine.observability.textlog import TextFormatter
from engine.observer import (
    Carrier,
    HandoffFacts,
    ObservedEngine,
    ObservedEnvelope,
    ObservedListener,
    ObservedOutcome,
    ObservedPump,
    ObservedSnapshot,
    Observer,
    Observers,
    ReloadFacts,
)

__all__ = [
    "Carrier",
    "HandoffFacts",
    "JsonFormatter",
    "JsonLogObserver",
    "ObservedEngine",
    "ObservedEnvelope",
    "ObservedListener",
    "ObservedOutcome",
    "ObservedPump",
    "ObservedSnapshot",
    "Observer",
    "Observers",
    "ReloadFacts",
    "TextFormatter",
]
