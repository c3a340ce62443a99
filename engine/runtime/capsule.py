"""A finished session exported as a sealed run capsule (`capsule_format_v1`); reads, never moves.

Each handoff record becomes `sub_agent_spawn` (`human_handoff`) + `sub_agent_result` steps, or one
`error` step when refused or ended before pickup; the full mapping is in `export_run`."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from enum import Enum
from typing import TYPE_CHECKING, Any, TypeVar

from engine.errors import UsageError
from engine.lifecycle import HandoffRecord, HandoffStatus
from engine.lifecycle.models import as_utc
from engine.runtime.capsule_steps import Step, record_steps, timestamp
from engine.runtime.session import Session
from engine.specs import new_capsule_id, parse_spec, seal, to_agent_error
from engine.specs.models import AgentError
from engine.specs.models.enums import Environment, ModelProvider, RunStatus, RunTrigger, SandboxTier

if TYPE_CHECKING:
    from engine.runtime.engine import Engine

CAPSULE_SCHEMA = "capsule_format_v1"
E = TypeVar("E", bound=Enum)


@dataclass(frozen=True, slots=True)
class RunExport:
    """A sealed capsule plus every error of the run as an `agent_error_taxonomy_v1` instance
    (`step_index` pointing at its `error` step, `run_id` set)."""

    capsule: dict[str, Any]
    errors: tuple[AgentError, ...]


def export_capsule(engine: Engine, session: Session, **options: Any) -> dict[str, Any]:
    """The session as a sealed, validated run capsule (a JSON-ready dict); see `export_run`."""
    return export_run(engine, session, **options).capsule


def export_run(
    engine: Engine,
    session: Session,
    *,
    outcome: RunStatus | str | None = None,
    summary: str | None = None,
    error_code: int | None = None,
    error_message: str | None = None,
    records: Iterable[HandoffRecord | str] = (),
    errors: Iterable[BaseException | AgentError] = (),
    trigger: RunTrigger | str = RunTrigger.HUMAN,
    environment: Environment | str = Environment.DEVELOPMENT,
    sandbox_tier: SandboxTier | str = SandboxTier.NONE,
    region: str | None = None,
    run_id: str | None = None,
    parent_run_id: str | None = None,
    started_at: datetime | None = None,
    at: datetime | None = None,
    signed_by: str | None = None,
) -> RunExport:
    """Export `session` from `engine` as a run capsule that passes `capsule_format_v1`.

    `records` adds handoffs the session made that did not move it (refusals: pass their
    `outcome.record`); hop records are found on their own. `errors` are engine errors of the
    run, best converted with `to_agent_error(..., at=...)` when raised so they keep their time
    (a bare exception is placed at `at`, the export time). Without `outcome`, the run is
    `partial` while a handoff is still live and `success` otherwise; a `failure` takes
    `error_code` or, without it, the code of the run's last error.

    Step mapping, per handoff record (steps ordered by start time, indices 0..n-1):

    - routed and picked up: `sub_agent_spawn` (`human_handoff` when the target agent's
      metadata says `human: true`) from creation until accepted (still pending: it ends where
      it began); once it ends, `sub_agent_result` from acceptance until completed or failed
      (`error_code` when it failed, from the failure reason: timeout/deadline 502,
      cancelled 607, error 608);
    - refused (by policy, by its payload, or by the target) or ended while pending: one
      `error` step from creation to that end, `error_code` from the reason's code
      (`not_allowed` 401, `invalid_payload` 301, `loop` 601, ..., other reasons 600);
    - an engine error passed in `errors`: one `error` step at its time, with its code.

    Each handoff step carries the record id as `tool_call_id` (a handoff is a handoff-tool
    call and the record id is the engine's id for it), so a capsule joins back to the audit
    trail. The capsule's agent is the agent that held the session first; its
    `agent_version` is the config version.
    """
    now = as_utc(at or datetime.now(timezone.utc))
    run = run_id or session.session_id
    found = _records(engine, session, records)
    steps = _steps(engine, found, [_as_agent_error(error, run, now) for error in errors], now)
    status = _status(outcome, found)
    code, message = _failure(status, error_code, error_message, steps)
    begin = min([as_utc(started_at or now), *(step.started_at for step in steps)])
    end = max([now, *(step.ended_at for step in steps)])
    capsule: dict[str, Any] = {
        "capsule_id": new_capsule_id(),
        "schema_version": "1.0.0",
        "created_at": timestamp(now),
        "agent": _agent(engine, session),
        "run": _drop_none({"run_id": run, "trigger": _choice(RunTrigger, trigger, "trigger"),
                           "started_at": timestamp(begin), "ended_at": timestamp(end),
                           "parent_run_id": parent_run_id}),
        "execution_trace": [step.to_dict(index) for index, step in enumerate(steps)],
        "environment": _environment(environment, sandbox_tier, region),
        "outcome": _drop_none({"status": status, "error_code": code, "error_message": message,
                               "summary": summary or _summary(session, found)}),
    }
    parse_spec(capsule, CAPSULE_SCHEMA)
    return RunExport(seal(capsule, signed_by=signed_by), _indexed_errors(steps, run, session))


def _steps(
    engine: Engine, records: Sequence[HandoffRecord], errors: Sequence[AgentError],
    now: datetime,
) -> list[Step]:
    """Every step of the run in time order (a stable sort: ties keep record order)."""
    steps = [step for record in records for step in record_steps(record, _human(engine, record))]
    for error in errors:
        at = as_utc(error.timestamp or now)
        steps.append(Step(at, at, "error", error.code, None, error, error.agent_id))
    steps.sort(key=lambda step: step.started_at)
    return steps


def _environment(
    environment: Environment | str, sandbox_tier: SandboxTier | str, region: str | None
) -> dict[str, Any]:
    return _drop_none({
        "environment": _choice(Environment, environment, "environment"),
        "sandbox_tier": _choice(SandboxTier, sandbox_tier, "sandbox_tier"),
        "runtime": f"python {sys.version_info.major}.{sys.version_info.minor}",
        "region": region,
    })


def _records(
    engine: Engine, session: Session, extra: Iterable[HandoffRecord | str]
) -> list[HandoffRecord]:
    """The latest stored version of each record, oldest first, each once."""
    ids = [hop.record_id for hop in session.hops if hop.record_id is not None]
    ids += [item.record_id if isinstance(item, HandoffRecord) else item for item in extra]
    unique = dict.fromkeys(ids)
    return sorted((engine.manager.get(record_id) for record_id in unique),
                  key=lambda record: record.created_at)


def _human(engine: Engine, record: HandoffRecord) -> bool:
    agent = engine.snapshot.agents.get(record.request.to_agent)
    return agent is not None and agent.metadata.get("human") is True


def _as_agent_error(error: BaseException | AgentError, run_id: str, now: datetime) -> AgentError:
    if isinstance(error, AgentError):
        return error
    if not isinstance(error, BaseException):
        raise UsageError(f"errors must be exceptions or AgentError, not {type(error).__name__}")
    return to_agent_error(error, run_id=run_id, at=now)


def _indexed_errors(steps: Sequence[Step], run_id: str, session: Session) -> tuple[AgentError, ...]:
    found = []
    for index, step in enumerate(steps):
        if step.error is not None:
            update = {"step_index": index, "run_id": step.error.run_id or run_id}
            if step.error.agent_id is None:
                update["agent_id"] = step.agent or session.path[0]
            found.append(step.error.model_copy(update=update))
    return tuple(found)


def _status(outcome: RunStatus | str | None, records: Sequence[HandoffRecord]) -> str:
    if outcome is not None:
        return _choice(RunStatus, outcome, "outcome")
    live = any(record.is_live for record in records)
    return RunStatus.PARTIAL.value if live else RunStatus.SUCCESS.value


def _failure(
    status: str, code: int | None, message: str | None, steps: Sequence[Step]
) -> tuple[int | None, str | None]:
    if status != RunStatus.FAILURE.value or code is not None:
        return code, message
    last = next((step.error for step in reversed(steps) if step.error is not None), None)
    if last is None:
        raise UsageError("a failure outcome needs error_code, or an error in the run to take "
                         "it from")
    return last.code, message or last.message


def _agent(engine: Engine, session: Session) -> dict[str, Any]:
    first = session.path[0]
    spec = engine.snapshot.agents.get(first)
    model: Any = spec.metadata.get("model") if spec is not None else None
    provider = None
    if isinstance(model, Mapping):
        provider, model = model.get("provider"), model.get("deployment") or model.get("name")
    providers = {item.value for item in ModelProvider}
    return _drop_none({
        "agent_id": first,
        "agent_name": first,
        "agent_version": engine.version,
        "model_provider": provider if provider in providers else None,
        "model": model if isinstance(model, str) else None,
    })


def _summary(session: Session, records: Sequence[HandoffRecord]) -> str:
    refused = sum(record.status is HandoffStatus.rejected for record in records)
    path = " -> ".join(session.path)
    return f"{len(records)} handoff(s), {refused} refused; path: {path}"[:4096]


def _choice(kind: type[E], value: E | str, what: str) -> str:
    try:
        return str(kind(value).value)
    except ValueError:
        choices = ", ".join(str(item.value) for item in kind)
        raise UsageError(f"{what} {value!r} is not one of: {choices}") from None


def _drop_none(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if value is not None}

