"""Seeing the engine in production: the `Observer` seam the engine, its lifecycle manager,
reloads and the pump call, and the observers beside it, one module each: `otel` (extra `otel`),
`prometheus` (extra `prometheus`), `jsonlog` and `textlog` (no extra). Importing this package
imports no telemetry library.
"""

from engine.observability.facts import HandoffFacts, ReloadFacts
from engine.observability.jsonlog import JsonFormatter, JsonLogObserver
from engine.observability.observer import Carrier, Observer, Observers
from engine.observability.textlog import TextFormatter

__all__ = [
    "Carrier",
    "HandoffFacts",
    "JsonFormatter",
    "JsonLogObserver",
    "Observer",
    "Observers",
    "ReloadFacts",
    "TextFormatter",
]
