"""What travels with a handoff into the next agent's prompt (seed 002 parity): one sanitizing rule
(`sanitize_handoff_context`) and the system vars of an agent switch (`build_handoff_system_vars`),
with the target's context policy applied. Pure functions; no I/O."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.config.models import ContextPolicy

HANDOFF_CONTROL_FLAGS = frozenset(
    {
        "success",
        "handoff",
        "target_agent",
        "message",
        "handoff_summary",
        "should_interrupt_playback",
        "session_overrides",
    }
)
"""Internal signalling keys of a handoff tool result; never part of the context an agent sees."""

CARRIED_SESSION_VARS = ("session_profile", "client_id", "customer_intelligence", "institution_name")
"""Session variables that survive every agent switch."""

_EMPTY: tuple[Any, ...] = (None, "", [], {})


def _is_empty(value: Any) -> bool:
    # `value in _EMPTY` would also drop False and 0, which are real values.
    return any(value is item or (type(value) is type(item) and value == item) for item in _EMPTY)


def sanitize_handoff_context(raw: Any) -> dict[str, Any]:
    """Drop control flags and empty values (None, "", [], {}); a non-dict gives {}."""
    if not isinstance(raw, Mapping):
        return {}
    return {
        key: value
        for key, value in raw.items()
        if key not in HANDOFF_CONTROL_FLAGS and not _is_empty(value)
    }


def apply_context_policy(context: Mapping[str, Any], policy: ContextPolicy) -> dict[str, Any]:
    """Keep what the receiving agent's `context` policy lets through (`all`, `none`, `carry`)."""
    if policy.share == "none":
        return {}
    if policy.share == "carry":
        return {key: context[key] for key in policy.carry if key in context}
    return dict(context)


def _first(*candidates: Any) -> Any:
    return next((value for value in candidates if value), None)


def _handoff_context(
    tool_result: Mapping[str, Any], user_last_utterance: str | None, policy: ContextPolicy | None
) -> dict[str, Any]:
    raw = tool_result.get("handoff_context")
    handoff_context = dict(raw) if isinstance(raw, Mapping) else {}
    if user_last_utterance:
        handoff_context.setdefault("user_last_utterance", user_last_utterance)
        handoff_context.setdefault("details", user_last_utterance)
    handoff_context = sanitize_handoff_context(handoff_context)
    if policy is not None:
        handoff_context = apply_context_policy(handoff_context, policy)
    return handoff_context


def build_handoff_system_vars(
    *,
    source_agent: str,
    target_agent: str,
    tool_result: Mapping[str, Any],
    tool_args: Mapping[str, Any],
    current_system_vars: Mapping[str, Any],
    user_last_utterance: str | None = None,
    policy: ContextPolicy | None = None,
) -> dict[str, Any]:
    """System vars for the agent taking over, with the seed's keys and fallbacks.

    `handoff_reason` comes from the tool result's `handoff_summary`, else the context's `reason`,
    else the tool arguments' `reason`, else "unspecified". With `policy`, the handoff context is
    filtered by the target agent's context policy after sanitizing.
    """
    handoff_context = _handoff_context(tool_result, user_last_utterance, policy)
    overrides = tool_result.get("session_overrides")
    system_vars: dict[str, Any] = {
        "handoff_reason": _first(
            tool_result.get("handoff_summary"),
            handoff_context.get("reason"),
            tool_args.get("reason"),
        )
        or "unspecified",
        "previous_agent": source_agent,
        "active_agent": target_agent,
        "handoff_context": handoff_context,
        "handoff_message": tool_result.get("message"),
    }
    details = _first(
        handoff_context.get("details"),
        tool_result.get("details"),
        tool_args.get("details"),
        user_last_utterance,
    )
    if details:
        system_vars["details"] = details
    if user_last_utterance:
        system_vars["user_last_utterance"] = user_last_utterance
    if isinstance(overrides, Mapping) and overrides:
        system_vars["session_overrides"] = dict(overrides)
    for key in CARRIED_SESSION_VARS:
        if key in current_system_vars:
            system_vars[key] = current_system_vars[key]
    return system_vars


@dataclass(frozen=True, slots=True)
class HandoffContext:
    """Everything needed to switch agents: source, target, reason and user context."""

    source_agent: str
    target_agent: str
    reason: str = ""
    user_last_utterance: str = ""
    context_data: Mapping[str, Any] = field(default_factory=dict)
    session_overrides: Mapping[str, Any] = field(default_factory=dict)
    greeting: str | None = None

    def to_system_vars(self) -> dict[str, Any]:
        system_vars: dict[str, Any] = {
            "previous_agent": self.source_agent,
            "active_agent": self.target_agent,
            "handoff_reason": self.reason,
        }
        if self.user_last_utterance:
            system_vars["user_last_utterance"] = self.user_last_utterance
            system_vars["details"] = self.user_last_utterance
        if self.context_data:
            system_vars["handoff_context"] = sanitize_handoff_context(self.context_data)
        if self.session_overrides:
            system_vars["session_overrides"] = dict(self.session_overrides)
        if self.greeting:
            system_vars["greeting"] = self.greeting
        return system_vars


@dataclass(frozen=True, slots=True)
class HandoffResult:
    """The outcome of a handoff attempt: a signal telling the runtime what to do next."""

    success: bool
    target_agent: str | None = None
    message: str | None = None
    error: str | None = None
    should_interrupt: bool = True
    record_id: str | None = None
