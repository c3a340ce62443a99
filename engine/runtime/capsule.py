"""A finished session exported as a sealed run capsule (`capsule_format_v1`); reads, never moves.

Each handoff record becomes `sub_agent_spawn` (`human_handoff`) + `sub_agent_result` steps, or one
`error` step when refused or ended before pickup; the full mapping is in `export_run`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from engine.errors import UsageError
from engine.lifecycle import HandoffRecord, HandoffStatus
from engine.records.models import as_utc
from engine.runtime.capsule_parts import capsule_agent, capsule_environment, choice
from engine.runtime.capsule_steps import Step, record_steps, timestamp
from engine.runtime.session import Session
from engine.specs import new_capsule_id, parse_spec, seal, to_agent_error
from engine.specs.models import AgentError
from engine.specs.models.enums import Environment, ModelProvider, RunStatus, RunTrigger, SandboxTier

if TYPE_CHECKING:
    from engine.runtime.engine import Engine

CAPSULE_SCHEMA = "capsule_format_v1"


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
    model_provider: ModelProvider | str | None = None,
    model_id: str | None = None,
    goal: str | None = None,
    region: str | None = None,
    run_id: str | None = None,
    parent_run_id: str | None = None,
    started_at: datetime | None = None,
    at: datetime | None = None,
) -> RunExport:
    """Export `session` from `engine` as a sealed run capsule that passes `capsule_format_v1`.

    `records` adds handoffs the session made that did not move it (refusals: pass their
    `outcome.record`); hop records are found on their own. `errors` are engine errors of the
    run, best converted with `to_agent_error(..., at=...)` when raised so they keep their time
    (a bare exception is placed at `at`, the export time). Without `outcome` (`run.status`),
    the run is `partial` while a handoff is still live and `success` otherwise; `error_code`
    joins `outcome.errors_encountered` and `error_message` the final answer.

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

    Each handoff step carries the record id as `tool_call_id`, so a capsule joins back to the
    audit trail. The capsule's agent is the agent that held the session first; the engine's
    config version is `environment.extra.config_version` (see `capsule_agent`).
    """
    now = as_utc(at or datetime.now(timezone.utc))
    run = run_id or session.session_id
    found = _records(engine, session, records)
    steps = _steps(engine, found, [_as_agent_error(error, run, now) for error in errors], now)
    status = _status(outcome, found)
    begin = min([as_utc(started_at or now), *(step.started_at for step in steps)])
    end = max([now, *(step.ended_at for step in steps)])
    capsule: dict[str, Any] = {
        "capsule_id": new_capsule_id(),
        "schema_version": "1.0.0",
        "created_at": timestamp(now),
        "agent": capsule_agent(engine, session.path[0], provider=model_provider,
                               model_id=model_id),
        "run": _drop_none({"run_id": run, "started_at": timestamp(begin),
                           "ended_at": timestamp(end), "status": status,
                           "triggered_by": choice(RunTrigger, trigger, "trigger"),
                           "parent_run_id": parent_run_id, "goal": goal}),
        "execution_trace": [step.to_dict(index) for index, step in enumerate(steps)],
        "environment": capsule_environment(engine, environment, sandbox_tier, region),
        "outcome": _outcome(steps, summary or _summary(session, found), error_code,
                            error_message),
    }
    parse_spec(capsule, CAPSULE_SCHEMA)
    return RunExport(seal(capsule), _indexed_errors(steps, run, session))


def _outcome(
    steps: Sequence[Step], answer: str, error_code: int | None, error_message: str | None
) -> dict[str, Any]:
    codes = [step.error_code for step in steps if step.error_code is not None]
    if error_code is not None and error_code not in codes:
        codes.append(error_code)
    final = f"{answer}; failed: {error_message}" if error_message else answer
    return {"final_answer": final, "total_steps": len(steps), "errors_encountered": codes}


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


def _records(
    engine: Engine, session: Session, extra: Iterable[HandoffRecord | str]
) -> list[HandoffRecord]:
    """The latest stored version of each record, oldest first, each once."""
    ids = [hop.record_id for hop in session.hops if hop.record_id is not None]
    ids += [item.record_id if isinstance(item, HandoffRecord) else item for item in extra]
    unique = dict.fromkeys(ids)
    return sorted((engine.manager.store.get(record_id) for record_id in unique),
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
        return choice(RunStatus, outcome, "outcome")
    live = any(record.is_live for record in records)
    return RunStatus.PARTIAL.value if live else RunStatus.SUCCESS.value


def _summary(session: Session, records: Sequence[HandoffRecord]) -> str:
    refused = sum(record.status is HandoffStatus.rejected for record in records)
    path = " -> ".join(session.path)
    return f"{len(records)} handoff(s), {refused} refused; path: {path}"[:4096]


def _drop_none(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if value is not None}

