"""The `Observer` seam at the bottom of the package graph: what the engine, its lifecycle
manager, reloads and the pump call (`seam`), the facts they hand over (`facts`), what observers
may read of the engine and pump they watch (`watched`, protocols), and what may stand in one
line of a log (`lines`).

It imports nothing above `engine.records` and `engine.redaction`; the observers that export
traces, metrics and logs live on top, in `engine.observability`, and import what they observe
(but for the Prometheus observer `Engine.metrics()` builds: it sits in `engine.metrics`, below
the runtime that builds it).
"""

from engine.observer.facts import HandoffFacts, ReloadFacts
from engine.observer.seam import Carrier, Observer, Observers
from engine.observer.watched import (
    ObservedEngine,
    ObservedEnvelope,
    ObservedListener,
    ObservedOutcome,
    ObservedPump,
    ObservedSnapshot,
    PumpCounts,
    ReloadCounts,
)

__all__ = [
    "Carrier",
    "HandoffFacts",
    "ObservedEngine",
    "ObservedEnvelope",
    "ObservedListener",
    "ObservedOutcome",
    "ObservedPump",
    "ObservedSnapshot",
    "Observer",
    "Observers",
    "PumpCounts",
    "ReloadCounts",
    "ReloadFacts",
]
