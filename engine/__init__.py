# Over 300 lines on purpose: each public name twice, in the lazy table and the type checkers' view.
"""handoff-engine: declarative multi-agent handoffs.

The curated public surface. Names load lazily on first use, so `import engine` (and every CLI
start) stays cheap; anything not in `__all__` is internal. Subpackages keep their own surfaces:
`engine.guard` (seed 004), `engine.specs` (seed 003), `engine.pump` (seed 001).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    # config pipeline
    "AcceptsSpec": "engine.config.models",
    "AgentSpec": "engine.config.models",
    "CapabilitySpec": "engine.config.models",
    "CheckResult": "engine.loading.loader",
    "Condition": "engine.config.models",
    "ConfigSet": "engine.config.models",
    "ContextPolicy": "engine.config.models",
    "EngineSpec": "engine.config.models",
    "HandoffConfig": "engine.config.models",
    "HandoffSpec": "engine.config.models",
    "ModelConfig": "engine.config.agent_runtime",
    "Policies": "engine.config.models",
    "RuleSpec": "engine.config.models",
    "UnifiedAgent": "engine.config.models",
    "VoiceConfig": "engine.config.agent_runtime",
    "Snapshot": "engine.routing.snapshot",
    "build_handoff_map": "engine.routing.snapshot",
    "check_paths": "engine.loading.loader",
    "load_config": "engine.loading.loader",
    "load_document": "engine.loading.loader",
    "Issue": "engine.issues",
    "Severity": "engine.issues",
    # routing
    "AgentCapabilityRegistry": "engine.routing",
    "Candidate": "engine.routing",
    "HandoffProvider": "engine.routing",
    "HandoffRouter": "engine.routing",
    "Layer": "engine.routing",
    "Reason": "engine.routing",
    "RouteDecision": "engine.routing",
    "RouteRequest": "engine.routing",
    "Router": "engine.routing",
    # lifecycle and stores
    "FailureReason": "engine.lifecycle",
    "HandoffManager": "engine.lifecycle",
    "HandoffRecord": "engine.lifecycle",
    "HandoffRequest": "engine.lifecycle",
    "HandoffResponse": "engine.lifecycle",
    "HandoffStatus": "engine.lifecycle",
    "Move": "engine.lifecycle",
    "Sweeper": "engine.lifecycle",
    "MemoryStore": "engine.stores",
    "PostgresStore": "engine.stores",
    "RecordQuery": "engine.stores",
    "SQLiteStore": "engine.stores",
    "Store": "engine.stores",
    # runtime embedding
    "AsyncEngine": "engine.runtime.async_engine",
    "ConfigWatcher": "engine.runtime.watch",
    "Engine": "engine.runtime.engine",
    "Event": "engine.runtime.hooks",
    "HandoffContext": "engine.runtime.context",
    "HandoffOutcome": "engine.runtime.engine",
    "HandoffResult": "engine.runtime.context",
    "HandoffTool": "engine.runtime.tools",
    "ToolRegistry": "engine.runtime.tool_registry",
    "PayloadRefusal": "engine.runtime.payloads",
    "ReloadResult": "engine.runtime.reload",
    "Reloader": "engine.runtime.reload",
    "RunExport": "engine.runtime.capsule",
    "SessionAgentManager": "engine.runtime.session_manager",
    "SessionHop": "engine.runtime.session",
    "check_payload": "engine.runtime.payloads",
    "export_capsule": "engine.runtime.capsule",
    "export_run": "engine.runtime.capsule",
    "Hooks": "engine.runtime.hooks",
    "ReloadStats": "engine.runtime.reload",
    "Session": "engine.runtime.session",
    "WatchOptions": "engine.runtime.watch_options",
    "build_handoff_system_vars": "engine.runtime.context",
    "handoff_tools": "engine.runtime.tools",
    "sanitize_handoff_context": "engine.runtime.context",
    # message pump (seed 001)
    "HandlerMetadata": "engine.pump",
    "HandlerResponse": "engine.pump",
    "Pump": "engine.pump",
    "load_pump_config": "engine.pump.config",
    # guard (seed 004); the decorator itself is `engine.guard.guard`: the name `guard` here
    # is the subpackage, and a public name never shadows a submodule
    "parse_json": "engine.guard",
    "retry": "engine.guard",
    # errors
    "ConfigError": "engine.errors",
    "EngineError": "engine.errors",
    "HandoffExpired": "engine.errors",
    "HandoffViolation": "engine.errors",
    "IllegalTransition": "engine.errors",
    "LifecycleError": "engine.errors",
    "MissingExtra": "engine.errors",
    "ParseError": "engine.errors",
    "RecordImportError": "engine.errors",
    "RecordNotFound": "engine.errors",
    "RegistrationError": "engine.errors",
    "RoutingError": "engine.errors",
    "SchemaNotFoundError": "engine.errors",
    "SchemaParseError": "engine.errors",
    "SchemaValidationError": "engine.errors",
    "SpecError": "engine.errors",
    "StoreError": "engine.errors",
    "UsageError": "engine.errors",
    "VersionConflict": "engine.errors",
    "WaitTimeout": "engine.errors",
}

__all__ = [
    "AcceptsSpec",
    "AgentCapabilityRegistry",
    "AgentSpec",
    "AsyncEngine",
    "Candidate",
    "CapabilitySpec",
    "CheckResult",
    "Condition",
    "ConfigError",
    "ConfigSet",
    "ConfigWatcher",
    "ContextPolicy",
    "Engine",
    "EngineError",
    "EngineSpec",
    "Event",
    "FailureReason",
    "HandlerMetadata",
    "HandlerResponse",
    "HandoffConfig",
    "HandoffContext",
    "HandoffExpired",
    "HandoffManager",
    "HandoffOutcome",
    "HandoffProvider",
    "HandoffRecord",
    "HandoffRequest",
    "HandoffResponse",
    "HandoffResult",
    "HandoffRouter",
    "HandoffSpec",
    "HandoffStatus",
    "HandoffTool",
    "HandoffViolation",
    "Hooks",
    "IllegalTransition",
    "Issue",
    "Layer",
    "LifecycleError",
    "MemoryStore",
    "MissingExtra",
    "ModelConfig",
    "Move",
    "ParseError",
    "PayloadRefusal",
    "Policies",
    "PostgresStore",
    "Pump",
    "Reason",
    "RecordImportError",
    "RecordNotFound",
    "RecordQuery",
    "RegistrationError",
    "ReloadResult",
    "ReloadStats",
    "Reloader",
    "RouteDecision",
    "RouteRequest",
    "Router",
    "RoutingError",
    "RuleSpec",
    "RunExport",
    "SQLiteStore",
    "SchemaNotFoundError",
    "SchemaParseError",
    "SchemaValidationError",
    "Session",
    "SessionAgentManager",
    "SessionHop",
    "Severity",
    "Snapshot",
    "SpecError",
    "Store",
    "StoreError",
    "Sweeper",
    "ToolRegistry",
    "UnifiedAgent",
    "UsageError",
    "VersionConflict",
    "VoiceConfig",
    "WaitTimeout",
    "WatchOptions",
    "__version__",
    "build_handoff_map",
    "build_handoff_system_vars",
    "check_paths",
    "check_payload",
    "export_capsule",
    "export_run",
    "handoff_tools",
    "load_config",
    "load_document",
    "load_pump_config",
    "parse_json",
    "retry",
    "sanitize_handoff_context",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


if TYPE_CHECKING:  # static view of the lazy names, for type checkers and editors
    from engine.config.agent_runtime import ModelConfig, VoiceConfig
    from engine.config.models import (
        AcceptsSpec,
        AgentSpec,
        CapabilitySpec,
        Condition,
        ConfigSet,
        ContextPolicy,
        EngineSpec,
        HandoffConfig,
        HandoffSpec,
        Policies,
        RuleSpec,
        UnifiedAgent,
    )
    from engine.errors import (
        ConfigError,
        EngineError,
        HandoffExpired,
        HandoffViolation,
        IllegalTransition,
        LifecycleError,
        MissingExtra,
        ParseError,
        RecordImportError,
        RecordNotFound,
        RegistrationError,
        RoutingError,
        SchemaNotFoundError,
        SchemaParseError,
        SchemaValidationError,
        SpecError,
        StoreError,
        UsageError,
        VersionConflict,
        WaitTimeout,
    )
    from engine.guard import parse_json, retry
    from engine.issues import Issue, Severity
    from engine.lifecycle import (
        FailureReason,
        HandoffManager,
        HandoffRecord,
        HandoffRequest,
        HandoffResponse,
        HandoffStatus,
        Move,
        Sweeper,
    )
    from engine.loading.loader import CheckResult, check_paths, load_config, load_document
    from engine.pump import HandlerMetadata, HandlerResponse, Pump
    from engine.pump.config import load_pump_config
    from engine.routing import (
        AgentCapabilityRegistry,
        Candidate,
        HandoffProvider,
        HandoffRouter,
        Layer,
        Reason,
        RouteDecision,
        Router,
        RouteRequest,
    )
    from engine.routing.snapshot import Snapshot, build_handoff_map
    from engine.runtime.async_engine import AsyncEngine
    from engine.runtime.capsule import RunExport, export_capsule, export_run
    from engine.runtime.context import (
        HandoffContext,
        HandoffResult,
        build_handoff_system_vars,
        sanitize_handoff_context,
    )
    from engine.runtime.engine import Engine, HandoffOutcome
    from engine.runtime.hooks import Event, Hooks
    from engine.runtime.payloads import PayloadRefusal, check_payload
    from engine.runtime.reload import Reloader, ReloadResult, ReloadStats
    from engine.runtime.session import Session, SessionHop
    from engine.runtime.session_manager import SessionAgentManager
    from engine.runtime.tool_registry import ToolRegistry
    from engine.runtime.tools import HandoffTool, handoff_tools
    from engine.runtime.watch import ConfigWatcher
    from engine.runtime.watch_options import WatchOptions
    from engine.stores import MemoryStore, PostgresStore, RecordQuery, SQLiteStore, Store
