"""What a runtime hears from the other replicas: records they created or moved, as
`handoff_created` / `handoff_moved` hook events marked `remote` (id, version and status, never
the record's content; read it from the store if you need it). Never writes a record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.records.models import HandoffRecord
from engine.records.store import Store
from engine.runtime.hooks import Event, Hooks
from engine.stores.changes import ChangeFeed, RecordChange


def event_data(record: HandoffRecord, **extra: Any) -> dict[str, Any]:
    """The data of a local record event: the record, plus the fields a remote event has."""
    return {"record": record, **_fields(record.record_id, record.version, record.status.value,
                                        remote=False), **extra}


def forward_remote_changes(store: Store, hooks: Hooks) -> Callable[[], None]:
    """Emit hook events for what other replicas write to `store`; returns the stop function.

    Only stores whose feed sees other writers report remote changes (PostgreSQL); on the others
    this does nothing. Hooks run on the feed's thread: keep them short, or async with a bound
    loop (`Hooks.bind_loop`).
    """
    if not isinstance(store, ChangeFeed):
        return lambda: None

    def forward(change: RecordChange) -> None:
        if change.remote:
            name = "handoff_created" if change.version == 1 else "handoff_moved"
            data = _fields(change.record_id, change.version, change.status.value, remote=True)
            hooks.emit(Event(name, data))

    return store.subscribe(forward)


def _fields(record_id: str, version: int, status: str, *, remote: bool) -> dict[str, Any]:
    return {"record_id": record_id, "version": version, "status": status, "remote": remote}
