"""Listeners and their registration checks; the peer rule (`[]` = no one, `"*"` = anyone) and
usage instructions. Synchronous; it must not run handlers or touch queues.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jsonschema
from pydantic import BaseModel

from engine.errors import RegistrationError
from engine.observer.lines import has_controls
from engine.pump.contract import RESPONSE_SEMANTICS, Handler
from engine.pump.payloads import PayloadSpec
from engine.pump.todos import TODO_COMPLETE_LISTENER, TODO_LISTENER

ANYONE = "*"
SYSTEM_SENDER = "system"
SYSTEM_LISTENERS = frozenset({TODO_LISTENER, TODO_COMPLETE_LISTENER})
NAME_MAX_CHARS = 256
"""Longest listener or outside sender name."""
DEFAULT_TIMEOUT = 30.0
DEFAULT_CONCURRENCY = 4

PayloadArg = type[BaseModel] | Sequence[type[BaseModel]] | Mapping[str, Any] | None


@dataclass(frozen=True, slots=True)
class Listener:
    """One registered listener. `peers` is a tuple of names, or None for anyone (`"*"`)."""

    name: str
    handler: Handler
    payload: PayloadSpec
    peers: tuple[str, ...] | None
    agent: bool = False
    description: str = ""
    timeout: float | None = DEFAULT_TIMEOUT
    concurrency: int = DEFAULT_CONCURRENCY

    def may_send_to(self, target: str) -> bool:
        """The peer rule. Self-sends need the listener's own name in `peers` ("*" excludes
        self); the built-in todo listeners are always reachable."""
        if target in SYSTEM_LISTENERS:
            return True
        if self.peers is None:
            return target != self.name
        return target in self.peers


def is_async_handler(handler: object) -> bool:
    """True for `async def` functions, partials of them and objects with an async __call__."""
    while isinstance(handler, functools.partial):
        handler = handler.func
    if inspect.iscoroutinefunction(handler):
        return True
    call = getattr(handler, "__call__", None)  # noqa: B004 - looking for an async __call__
    return call is not None and not inspect.isroutine(handler) and (
        inspect.iscoroutinefunction(call)
    )


class ListenerRegistry:
    """Listeners registered in code or from YAML; `check()` verifies the whole set."""

    def __init__(self) -> None:
        self._listeners: dict[str, Listener] = {}

    def __contains__(self, name: object) -> bool:
        return name in self._listeners

    def __len__(self) -> int:
        return len(self._listeners)

    def __getitem__(self, name: str) -> Listener:
        return self._listeners[name]

    @property
    def listeners(self) -> Mapping[str, Listener]:
        return dict(self._listeners)

    def register(
        self,
        name: str,
        handler: Handler,
        *,
        payload: PayloadArg = None,
        peers: Iterable[str] | str = (),
        agent: bool = False,
        description: str = "",
        timeout: float | None = DEFAULT_TIMEOUT,
        concurrency: int = DEFAULT_CONCURRENCY,
    ) -> Listener:
        """Register a listener; raises RegistrationError when it breaks the contract."""
        _check_name(name, self._listeners)
        if not is_async_handler(handler):
            raise RegistrationError(
                name,
                f"handler {_qualname(handler)} is not an async function; handlers must be "
                "declared `async def handler(payload, metadata)` and are never auto-wrapped",
            )
        if timeout is not None and not timeout > 0:
            raise RegistrationError(name, f"timeout must be a positive number, got {timeout!r}")
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise RegistrationError(
                name, f"concurrency must be an integer >= 1, got {concurrency!r}"
            )
        listener = Listener(
            name=name,
            handler=handler,
            payload=_payload_spec(name, payload),
            peers=_peers(name, peers),
            agent=agent,
            description=description,
            timeout=timeout,
            concurrency=concurrency,
        )
        self._listeners[name] = listener
        return listener

    def listener(self, name: str, **options: Any) -> Callable[[Handler], Handler]:
        """Decorator form of `register`; returns the handler unchanged."""

        def decorate(handler: Handler) -> Handler:
            self.register(name, handler, **options)
            return handler

        return decorate

    def check(self) -> None:
        """Raise RegistrationError for the first listener naming an unknown peer."""
        for listener in self._listeners.values():
            unknown = [p for p in listener.peers or () if p not in self._listeners]
            if unknown:
                raise RegistrationError(
                    listener.name, f"unknown peer(s): {', '.join(repr(p) for p in unknown)}"
                )

    def usage_instructions(self, listener: Listener) -> str:
        """Peer payload schemas and the response semantics, for agent prompts ("" otherwise)."""
        if not listener.agent:
            return ""
        names = sorted(self._listeners) if listener.peers is None else list(listener.peers)
        peers = [self._listeners[n] for n in names if n in self._listeners]
        peers = [p for p in peers if p.name != listener.name or listener.peers is not None]
        lines = [f"You are the {listener.name} agent."]
        if listener.description:
            lines.append(f"Description: {listener.description}")
        lines.append("")
        if not peers:
            lines.append("You cannot send messages to any peer; reply to your caller.")
        else:
            lines.append("You can send messages to the following peers:")
        for peer in peers:
            lines.append(f"\n## {peer.name}")
            if peer.description:
                lines.append(f"Description: {peer.description}")
            schema = json.dumps(peer.payload.json_schema(), indent=2, sort_keys=True)
            lines.append(f"Expected payload ({peer.payload.name}) JSON Schema:")
            lines.append(f"```json\n{schema}\n```")
        lines += ["", "---", RESPONSE_SEMANTICS]
        return "\n".join(lines)


def is_reserved(name: str) -> bool:
    """True for the names of the pump's own senders and listeners: `*`, `system`, `system.*`."""
    return name in (ANYONE, SYSTEM_SENDER) or name.startswith(SYSTEM_SENDER + ".")


def name_problem(name: object) -> str | None:
    """Why `name` cannot name a listener or an outside sender (reserved names aside), or None:
    not a non-empty string, too long, or holding a control character (a line break, a
    terminal escape or a bidi control would let it forge log lines)."""
    if not isinstance(name, str) or not name.strip():
        return "must be a non-empty string"
    if len(name) > NAME_MAX_CHARS:
        return f"must be at most {NAME_MAX_CHARS} characters"
    if has_controls(name):
        return "may not hold a control character (line break, escape or bidi control)"
    return None


def _check_name(name: str, existing: Mapping[str, Listener]) -> None:
    problem = name_problem(name)
    if problem is not None:
        raise RegistrationError(str(name)[:NAME_MAX_CHARS], f"a listener name {problem}")
    if is_reserved(name):
        raise RegistrationError(name, "the names '*', 'system' and 'system.*' are reserved")
    if name in existing:
        raise RegistrationError(name, "a listener with this name is already registered")


def _peers(name: str, peers: Iterable[str] | str) -> tuple[str, ...] | None:
    items = [peers] if isinstance(peers, str) else list(peers)
    if ANYONE in items:
        if len(items) > 1:
            raise RegistrationError(name, "peers: '*' (anyone) cannot be combined with names")
        return None
    if not all(isinstance(p, str) and p for p in items):
        raise RegistrationError(name, f"peers must be listener names, got {items!r}")
    return tuple(dict.fromkeys(items))


def _payload_spec(name: str, payload: PayloadArg) -> PayloadSpec:
    if payload is None:
        return PayloadSpec.any()
    if isinstance(payload, type) and issubclass(payload, BaseModel):
        return PayloadSpec.of_model(payload)
    if isinstance(payload, (list, tuple)) and payload and all(
        isinstance(m, type) and issubclass(m, BaseModel) for m in payload
    ):
        return PayloadSpec.of_model(*payload)
    if isinstance(payload, Mapping):
        try:
            return PayloadSpec.of_json_schema(dict(payload), default_name=name)
        except jsonschema.SchemaError as e:
            raise RegistrationError(name, f"invalid payload JSON Schema: {e.message}") from e
    raise RegistrationError(
        name, f"payload must be a pydantic model class or a JSON Schema, got {payload!r}"
    )


def _qualname(handler: object) -> str:
    return str(getattr(handler, "__qualname__", repr(handler)))
