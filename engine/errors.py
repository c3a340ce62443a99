"""Every exception the engine raises on purpose, in one tree.

Errors carry typed fields and build their own message, so call sites pass data, not prose.
The name tells who is to blame: a *config* or *usage* error means the caller wrote something
wrong; a *routing* or *lifecycle* error means the runtime state forbids the request.

    EngineError
    ├── ConfigError(issues)                     config files failed to load; every issue listed
    ├── UsageError(message)                     an API or CLI argument is wrong; a ValueError
    ├── RoutingError(reason, detail)            a handoff the router or its policy refuses
    ├── LifecycleError
    │   ├── IllegalTransition(record_id, state, trigger)   also a ValueError (seed parity)
    │   ├── RecordNotFound(record_id)                      also a KeyError (seed parity)
    │   ├── VersionConflict(record_id, expected, actual)   a concurrent writer moved first
    │   ├── RecordImportError(index, detail)               also a ValueError
    │   └── WaitTimeout(record_id, statuses, timeout_s, status)  also a TimeoutError
    ├── StoreError(path, detail)                a store (file or database) that cannot be used
    ├── SpecError
    │   ├── SchemaNotFoundError(schema_name)    also a FileNotFoundError (seed 003 parity)
    │   ├── SchemaParseError(path, cause)       also a ValueError
    │   └── SchemaValidationError(validation_error)  also a ValueError
    ├── HandoffViolation(context, history)      guarded data failed its contract (seed 004)
    ├── ParseError(message, line, col, preview) text that holds no recoverable JSON; a ValueError
    └── RegistrationError(listener, detail)     a pump listener that breaks the handler contract
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from engine.issues import Issue, sort_key


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""


class ConfigError(EngineError):
    """Config files failed to load. `issues` holds every problem found, errors and warnings."""

    def __init__(self, issues: Iterable[Issue]) -> None:
        self.issues: tuple[Issue, ...] = tuple(sorted(issues, key=sort_key))
        errors = [issue for issue in self.issues if issue.is_error]
        shown = errors or list(self.issues)
        lines = [f"config has {len(errors)} error(s):"] + [f"  {issue}" for issue in shown[:20]]
        if len(shown) > 20:
            lines.append(f"  ... and {len(shown) - 20} more")
        super().__init__("\n".join(lines))


class UsageError(EngineError, ValueError):
    """An argument to an API call or the CLI is wrong; the message says which and why."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


class RoutingError(EngineError):
    """The router or its policy refuses a handoff. `reason` is a stable code such as
    `not_allowed`, `loop`, `disabled`, `unknown_target`, `self_handoff`, `no_route`."""

    def __init__(self, reason: str, detail: str) -> None:
        self.reason = reason
        self.detail = detail
        super().__init__(f"handoff refused ({reason}): {detail}")


class LifecycleError(EngineError):
    """A handoff record cannot make the requested move."""


class IllegalTransition(LifecycleError, ValueError):
    """The record's current state does not allow the trigger."""

    def __init__(self, record_id: str, state: str, trigger: str) -> None:
        self.record_id = record_id
        self.state = state
        self.trigger = trigger
        super().__init__(f"handoff {record_id}: cannot {trigger} in state {state!r}")


class RecordNotFound(LifecycleError, KeyError):
    """No record has this id."""

    def __init__(self, record_id: str) -> None:
        self.record_id = record_id
        super().__init__(record_id)

    def __str__(self) -> str:  # KeyError would show a repr of the argument
        return f"no handoff record with id {self.record_id!r}"


class VersionConflict(LifecycleError):
    """Another writer changed the record first; reload it and retry the move."""

    def __init__(self, record_id: str, expected: int, actual: int | None) -> None:
        self.record_id = record_id
        self.expected = expected
        self.actual = actual
        now = "it was deleted" if actual is None else f"it is now at version {actual}"
        super().__init__(
            f"handoff {record_id}: expected version {expected} but {now}; "
            "another writer moved it first, reload and retry"
        )


class RecordImportError(LifecycleError, ValueError):
    """An imported item is not a valid record; nothing of the import was applied."""

    def __init__(self, index: int, detail: str) -> None:
        self.index = index
        self.detail = detail
        super().__init__(f"record #{index} is invalid, nothing imported: {detail}")


class WaitTimeout(LifecycleError, TimeoutError):
    """A record did not reach any of the awaited statuses in time; `status` is where it is."""

    def __init__(
        self, record_id: str, statuses: Iterable[str], timeout_s: float, status: str
    ) -> None:
        self.record_id = record_id
        self.statuses = tuple(statuses)
        self.timeout_s = timeout_s
        self.status = status
        wanted = " or ".join(repr(name) for name in self.statuses)
        super().__init__(
            f"handoff {record_id}: still {status!r} after {timeout_s:g}s waiting for {wanted}"
        )

    def __str__(self) -> str:  # OSError would format errno/filename fields instead
        return str(self.args[0])


class StoreError(EngineError):
    """A store cannot be opened or used (corrupt or foreign file, read-only location, lost
    database connection...). `path` is the file or the database URL without its password."""

    def __init__(self, path: str | Path, detail: str) -> None:
        self.path = str(path)
        self.detail = detail
        super().__init__(f"{self.path}: {detail}")


class SpecError(EngineError):
    """Base of the canonical-spec errors (seed 003)."""


class SchemaNotFoundError(SpecError, FileNotFoundError):
    """No bundled canonical schema has this name."""

    def __init__(self, schema_name: str, known: Iterable[str] = ()) -> None:
        self.schema_name = schema_name
        names = ", ".join(sorted(known))
        hint = f" (known: {names})" if names else ""
        super().__init__(f"no canonical schema named {schema_name!r}{hint}")

    def __str__(self) -> str:  # OSError would format errno/filename fields instead
        return str(self.args[0])


class SchemaParseError(SpecError, ValueError):
    """A schema file is not valid JSON or YAML."""

    def __init__(self, path: Path, cause: Exception) -> None:
        self.path = path
        self.cause = cause
        super().__init__(f"{path}: cannot parse schema: {cause}")


class SchemaValidationError(SpecError, ValueError):
    """Data does not validate against a canonical schema."""

    def __init__(self, validation_error: Any, schema_name: str = "") -> None:
        self.validation_error = validation_error
        self.schema_name = schema_name
        where = "/".join(str(p) for p in getattr(validation_error, "absolute_path", ()))
        label = f"{schema_name}: " if schema_name else ""
        at = f" at /{where}" if where else ""
        message = getattr(validation_error, "message", str(validation_error))
        super().__init__(f"{label}invalid{at}: {message}")


class HandoffViolation(EngineError):
    """Data crossing an agent boundary broke its contract (seed 004). Built by the guard."""

    def __init__(self, context: Any, history: Iterable[Any] | None = None) -> None:
        self.context = context
        self.history = list(history or ())
        super().__init__(str(context))

    @property
    def node_name(self) -> str:
        return str(self.context.node_name)

    @property
    def field_path(self) -> str:
        return str(self.context.field_path)

    @property
    def total_attempts(self) -> int:
        return len(self.history) or 1

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.context.to_dict(),
            "total_attempts": self.total_attempts,
            "history": [record.to_dict() for record in self.history],
        }


class ParseError(EngineError, ValueError):
    """Text in which no sensible JSON could be found or repaired."""

    def __init__(
        self,
        message: str,
        *,
        line: int = 0,
        col: int = 0,
        preview: str = "",
        raw_output: str | None = None,
        original: Exception | None = None,
    ) -> None:
        self.message = message
        self.line = line
        self.col = col
        self.preview = preview
        self.raw_output = raw_output
        self.original = original
        where = f" at line {line}, column {col}" if line else ""
        shown = f" near {preview!r}" if preview else ""
        super().__init__(f"{message}{where}{shown}")


class RegistrationError(EngineError):
    """A pump listener breaks the handler contract (sync handler, unknown peer, bad path)."""

    def __init__(self, listener: str, detail: str) -> None:
        self.listener = listener
        self.detail = detail
        super().__init__(f"listener {listener!r}: {detail}")
