"""handoff-engine: declarative multi-agent handoffs.

The public surface is re-exported here; anything not in `__all__` is internal.
"""

from engine.config.models import AgentSpec, CapabilitySpec, ConfigSet, Policies, RuleSpec
from engine.config.snapshot import Snapshot, build_handoff_map
from engine.errors import (
    ConfigError,
    EngineError,
    HandoffViolation,
    IllegalTransition,
    LifecycleError,
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
)
from engine.issues import Issue, Severity

__version__ = "0.1.0"

__all__ = [
    "AgentSpec",
    "CapabilitySpec",
    "ConfigError",
    "ConfigSet",
    "EngineError",
    "HandoffViolation",
    "IllegalTransition",
    "Issue",
    "LifecycleError",
    "ParseError",
    "Policies",
    "RecordImportError",
    "RecordNotFound",
    "RegistrationError",
    "RoutingError",
    "RuleSpec",
    "SchemaNotFoundError",
    "SchemaParseError",
    "SchemaValidationError",
    "Severity",
    "Snapshot",
    "SpecError",
    "StoreError",
    "UsageError",
    "VersionConflict",
    "__version__",
    "build_handoff_map",
]
