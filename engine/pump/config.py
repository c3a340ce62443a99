"""Listeners YAML read through the shared config pipeline, then resolved and checked (handler and
payload imports, async handlers, peers, duplicates) into a `PumpConfig`. It never runs handlers.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from engine.config.codes import issue
from engine.config.document import read_document
from engine.config.positions import Document, json_path
from engine.config.read import DEFAULT_MAX_BYTES
from engine.errors import ConfigError, RegistrationError
from engine.issues import Issue
from engine.pump.contract import Handler
from engine.pump.envelope import Limits
from engine.pump.pump import Pump, ReplyCallback
from engine.pump.registry import ANYONE, ListenerRegistry, is_async_handler

LISTENERS_SCHEMA = "listeners.schema.json"
_LIMIT_KEYS = ("max_fanout", "max_depth", "max_strikes", "max_hops")

PUMP_CODES: dict[str, str] = {
    "unknown-handler": "a handler import path that cannot be imported or found",
    "sync-handler": "a handler that is not an async function",
    "missing-handler": "a listener with no handler in the file nor passed in code",
    "unknown-payload": "a payload import path that is not an importable pydantic model",
    "invalid-payload-schema": "an inline payload JSON Schema that is not valid",
    "unknown-peer": "a peer name that no listener of the file declares",
    "duplicate-listener": "two listeners with the same name",
    "invalid-listener": "a listener the pump refuses for another reason (e.g. reserved name)",
}


@dataclass(frozen=True, slots=True)
class PumpConfig:
    """A checked listeners file: the registry plus the pump settings."""

    registry: ListenerRegistry
    queue_size: int = 1000
    send_timeout: float = 5.0
    limits: Limits = field(default_factory=Limits)

    def build(self, *, on_reply: ReplyCallback | None = None) -> Pump:
        """A new (not yet started) pump for these listeners."""
        return Pump(self.registry, queue_size=self.queue_size, send_timeout=self.send_timeout,
                    limits=self.limits, on_reply=on_reply)


def load_pump_config(
    path: str | Path,
    *,
    handlers: Mapping[str, Handler] | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> PumpConfig:
    """Load a listeners file; raise ConfigError listing every issue found.

    `handlers` supplies in-code handlers by listener name (they win over an import path).
    """
    document, _, issues = read_document(path, LISTENERS_SCHEMA, max_bytes=max_bytes)
    if document is None:
        raise ConfigError(issues)
    registry, issues = _build(document, dict(handlers or {}))
    if issues:
        raise ConfigError(issues)
    settings = document.data.get("pump", {})
    limits = {k: settings[k] for k in _LIMIT_KEYS if k in settings}
    return PumpConfig(
        registry,
        queue_size=settings.get("queue_size", 1000),
        send_timeout=float(settings.get("send_timeout", 5.0)),
        limits=Limits(**limits),
    )


def _build(
    document: Document, handlers: dict[str, Handler]
) -> tuple[ListenerRegistry, list[Issue]]:
    registry = ListenerRegistry()
    issues: list[Issue] = []
    entries: list[dict[str, Any]] = document.data["listeners"]
    names = [entry["name"] for entry in entries]
    for index, entry in enumerate(entries):
        at = _Locator(document, ("listeners", index))
        if entry["name"] in names[:index]:
            issues.append(at("name", "duplicate-listener",
                             f"listener {entry['name']!r} is declared twice"))
            continue
        handler = _handler(entry, handlers, at, issues)
        payload = _payload(entry, at, issues)
        peers = entry.get("peers", [])
        for peer_index, peer in enumerate([] if peers == ANYONE else peers):
            if peer not in names:
                issues.append(at(("peers", peer_index), "unknown-peer",
                                 f"peer {peer!r} is not a listener of this file"))
        if handler is None or payload is _MISSING:
            continue
        try:
            registry.register(
                entry["name"], handler, payload=payload, peers=peers,
                agent=entry.get("agent", False), description=entry.get("description", ""),
                timeout=entry.get("timeout", 30.0), concurrency=entry.get("concurrency", 4),
            )
        except RegistrationError as e:
            code = "invalid-payload-schema" if "JSON Schema" in e.detail else "invalid-listener"
            where = "payload" if code == "invalid-payload-schema" else "name"
            issues.append(at(where, code, e.detail))
    return registry, issues


class _Locator:
    """Builds issues located at a key below one listener entry."""

    def __init__(self, document: Document, base: tuple[str | int, ...]) -> None:
        self._document = document
        self._base = base

    def __call__(self, key: str | tuple[str | int, ...], code: str, message: str) -> Issue:
        path = (*self._base, *((key,) if isinstance(key, str) else key))
        return issue(self._document.file, self._document.locate(path), json_path(path),
                     code, message)


_MISSING: Any = object()


def _handler(
    entry: dict[str, Any], handlers: dict[str, Handler], at: _Locator, issues: list[Issue]
) -> Handler | None:
    name = entry["name"]
    if name in handlers:
        handler: Any = handlers[name]
    elif "handler" not in entry:
        issues.append(at("name", "missing-handler",
                         f"listener {name!r} has no `handler` and none was passed in code"))
        return None
    else:
        try:
            handler = _import(entry["handler"])
        except (ImportError, AttributeError) as e:
            issues.append(at("handler", "unknown-handler",
                             f"cannot import handler {entry['handler']!r}: {e}"))
            return None
    if not is_async_handler(handler):
        issues.append(at("handler" if "handler" in entry else "name", "sync-handler",
                         f"handler of {name!r} is not an async function; declare it "
                         "`async def handler(payload, metadata)`"))
        return None
    result: Handler = handler
    return result


def _payload(entry: dict[str, Any], at: _Locator, issues: list[Issue]) -> Any:
    spec = entry["payload"]
    if isinstance(spec, dict):
        return spec
    paths = [spec] if isinstance(spec, str) else spec
    models: list[type[BaseModel]] = []
    for index, import_path in enumerate(paths):
        where: str | tuple[str | int, ...] = "payload" if isinstance(spec, str) else (
            "payload", index)
        try:
            model = _import(import_path)
        except (ImportError, AttributeError) as e:
            issues.append(at(where, "unknown-payload", f"cannot import {import_path!r}: {e}"))
            continue
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            issues.append(at(where, "unknown-payload",
                             f"{import_path!r} is not a pydantic model class"))
            continue
        models.append(model)
    return models if len(models) == len(paths) else _MISSING


def _import(path: str) -> Any:
    """`pkg.module:attr.sub` -> the object. Import failures of any kind become ImportError."""
    module_name, _, attribute = path.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError:
        raise
    except Exception as e:  # a module that fails while importing
        raise ImportError(f"importing {module_name!r} raised {type(e).__name__}: {e}") from e
    for part in attribute.split("."):
        target = getattr(target, part)
    return target
