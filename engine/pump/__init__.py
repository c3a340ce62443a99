"""Async message pump with the seed 001 handler contract (payloads as pydantic models / JSON).
Public names of the pump; each submodule holds one concept.
"""

from engine.pump.contract import (
    RESPOND_TO_CALLER,
    ROUTING_ERROR,
    Handler,
    HandlerMetadata,
    HandlerResponse,
    SystemError,
)
from engine.pump.envelope import Limits
from engine.pump.payloads import PayloadSpec
from engine.pump.pump import Pump
from engine.pump.registry import Listener, ListenerRegistry
from engine.pump.stats import InFlight, PumpStats, ShutdownReport
from engine.pump.threads import ThreadRegistry
from engine.pump.todo_access import ProcessTodos, get_todo_registry
from engine.pump.todos import (
    TODO_COMPLETE_LISTENER,
    TODO_LISTENER,
    TodoClosed,
    TodoComplete,
    TodoRegistered,
    TodoRegistry,
    TodoUntil,
    TodoWatcher,
)

__all__ = [
    "RESPOND_TO_CALLER",
    "ROUTING_ERROR",
    "TODO_COMPLETE_LISTENER",
    "TODO_LISTENER",
    "Handler",
    "HandlerMetadata",
    "HandlerResponse",
    "InFlight",
    "Limits",
    "Listener",
    "ListenerRegistry",
    "PayloadSpec",
    "ProcessTodos",
    "Pump",
    "PumpStats",
    "ShutdownReport",
    "SystemError",
    "ThreadRegistry",
    "TodoClosed",
    "TodoComplete",
    "TodoRegistered",
    "TodoRegistry",
    "TodoUntil",
    "TodoWatcher",
    "get_todo_registry",
]
