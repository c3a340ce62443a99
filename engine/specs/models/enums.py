"""The enumerations of the canonical specs (seed 003), values exactly as in the schemas."""

from __future__ import annotations

import enum


class CostEstimate(str, enum.Enum):
    FREE = "free"
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


class DataClassification(str, enum.Enum):
    PUBLIC = "public"
    INTERNAL = "internal"
    CONFIDENTIAL = "confidential"
    RESTRICTED = "restricted"


class PiiHandling(str, enum.Enum):
    NONE = "none"
    READ = "read"
    WRITE = "write"
    BOTH = "both"


class SeverityLevel(str, enum.Enum):
    DEBUG = "debug"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"
    CRITICAL = "critical"


class RetryStrategy(str, enum.Enum):
    NONE = "none"
    IMMEDIATE = "immediate"
    EXPONENTIAL_BACKOFF = "exponential_backoff"
    HUMAN_ESCALATION = "human_escalation"


class ErrorCategory(str, enum.Enum):
    PLANNING = "planning"
    TOOL_EXECUTION = "tool_execution"
    CONTEXT = "context"
    SECURITY = "security"
    RESOURCE = "resource"
    ORCHESTRATION = "orchestration"


class SandboxTier(str, enum.Enum):
    E2B_MICRO = "e2b_micro"
    E2B_STANDARD = "e2b_standard"
    MODAL_EPHEMERAL = "modal_ephemeral"
    DOCKER_LOCAL = "docker_local"
    NONE = "none"


class EgressMode(str, enum.Enum):
    ISOLATED = "isolated"
    ALLOWLIST_ONLY = "allowlist_only"
    FULL_ACCESS = "full_access"


class FilesystemMode(str, enum.Enum):
    NONE = "none"
    READ_ONLY = "read_only"
    READ_WRITE_EPHEMERAL = "read_write_ephemeral"
    READ_WRITE_PERSISTENT = "read_write_persistent"


class ModelProvider(str, enum.Enum):
    ANTHROPIC = "anthropic"
    OPENAI = "openai"
    GOOGLE = "google"
    MISTRAL = "mistral"
    COHERE = "cohere"
    LOCAL = "local"


class RunStatus(str, enum.Enum):
    SUCCESS = "success"
    FAILURE = "failure"
    PARTIAL = "partial"
    CANCELLED = "cancelled"
    TIMEOUT = "timeout"


class RunTrigger(str, enum.Enum):
    HUMAN = "human"
    SCHEDULER = "scheduler"
    WEBHOOK = "webhook"
    AGENT = "agent"
    TEST = "test"


class StepType(str, enum.Enum):
    LLM_INFERENCE = "llm_inference"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    PLANNING = "planning"
    REFLECTION = "reflection"
    MEMORY_READ = "memory_read"
    MEMORY_WRITE = "memory_write"
    HUMAN_HANDOFF = "human_handoff"
    SUB_AGENT_SPAWN = "sub_agent_spawn"
    SUB_AGENT_RESULT = "sub_agent_result"
    ERROR = "error"


class SideEffect(str, enum.Enum):
    NETWORK_EGRESS = "network_egress"
    FILESYSTEM_WRITE = "filesystem_write"
    FILESYSTEM_READ = "filesystem_read"
    DATABASE_WRITE = "database_write"
    DATABASE_READ = "database_read"
    MEMORY_MUTATION = "memory_mutation"
    EXTERNAL_API_CALL = "external_api_call"
    EMAIL_SEND = "email_send"
    PROCESS_SPAWN = "process_spawn"
    ENVIRONMENT_MUTATION = "environment_mutation"


class NetworkProtocol(str, enum.Enum):
    TCP = "tcp"
    UDP = "udp"
    HTTPS = "https"
    HTTP = "http"


class Environment(str, enum.Enum):
    DEVELOPMENT = "development"
    STAGING = "staging"
    PRODUCTION = "production"
