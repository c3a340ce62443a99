"""What an observer may read of the things it watches, as protocols: the engine it is attached
to, a pump that started with it, and a pump's listeners, messages and handler outcomes.

The seam sits below the runtime and the pump, so it names them by what observers read, never
by class: `Engine` and `Pump` (and the pump's `Listener`, `Envelope` and `Outcome`) match these
protocols, and the type checker holds them to it where they hand themselves to observers. Annotate
your observer's parameters with these names: an override may not ask for more than the seam gives.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Sized
from typing import Protocol

from engine.records.store import Store


class ReloadCounts(Protocol):
    """Reloads of one engine by result, and whether the last one was applied."""

    @property
    def applied(self) -> int: ...
    @property
    def unchanged(self) -> int: ...
    @property
    def rejected(self) -> int: ...
    @property
    def last_ok(self) -> bool: ...
    @property
    def last_success_at(self) -> float | None: ...


class ObservedReloader(Protocol):
    @property
    def stats(self) -> ReloadCounts: ...


class ObservedSnapshot(Protocol):
    """A loaded config set: its `engine.name` and its version."""

    @property
    def name(self) -> str: ...
    @property
    def version(self) -> str: ...


class ObservedEngine(Protocol):
    """An engine an observer is attached to (`Observer.attach`), read at collection time."""

    @property
    def snapshot(self) -> ObservedSnapshot:
        """The config serving now (read it once to see one name and version)."""
    @property
    def store(self) -> Store:
        """Where its records are kept."""
    @property
    def reloader(self) -> ObservedReloader: ...


class PumpCounts(Protocol):
    """A pump's counters (its `PumpStats`), as far as observers read them."""

    @property
    def delivered(self) -> int: ...
    @property
    def handled(self) -> int: ...
    @property
    def in_flight(self) -> int: ...
    @property
    def errors(self) -> Mapping[str, int]: ...
    @property
    def dropped(self) -> Mapping[str, int]: ...


class ObservedPump(Protocol):
    """A pump that started with an observer (`Observer.pump_started`)."""

    def stats(self) -> PumpCounts: ...
    def queue_depths(self) -> Mapping[str, int]: ...


class ObservedListener(Protocol):
    """The listener a pump message is handed to: its name, and whether it is an agent."""

    @property
    def name(self) -> str: ...
    @property
    def agent(self) -> bool: ...


class ObservedEnvelope(Protocol):
    """A pump message: its conversation (`root`), thread, sender and the trace context it
    carries from its sender."""

    @property
    def root(self) -> str: ...
    @property
    def thread_id(self) -> str: ...
    @property
    def from_id(self) -> str: ...
    @property
    def trace(self) -> Mapping[str, str] | None: ...


class ObservedOutcome(Protocol):
    """What one handler call produced: the messages it sends, the SystemError codes it raised,
    and `failure`, the code it ended with (empty when it did not fail)."""

    @property
    def envelopes(self) -> Sized: ...
    @property
    def errors(self) -> Sequence[str]: ...
    @property
    def failure(self) -> str: ...
