# Over 300 lines on purpose: the whole error tree in one module, drawn in the docstring below.
"""Every exception the engine raises on purpose, in one tree.

Errors carry typed fields and build their own message, so call sites pass data, not prose.
The name tells who is to blame: a *config* or *usage* error means the caller wrote something
wrong; a *routing* or *lifecycle* error means the runtime state forbids the request.

    EngineError
    ├── ConfigError(issues)                     config files failed to load; every issue listed
    ├── UsageError(message)                     an API or CLI argument is wrong; a ValueError
    │   └── MissingExtra(extra, module)         a feature whose optional extra is not installed
    ├── RoutingError(reason, detail)            a handoff the router or its policy refuses
    ├── LifecycleError
    │   ├── IllegalTransition(record_id, state, trigger)   also a ValueError (seed parity)
    │   ├── HandoffExpired(record_id, trigger, failure, detail, record)  overdue: expired first;
    │   │                                       not a ValueError, so seed handlers never swallow it
    │   ├── RecordNotFound(record_id)                      also a KeyError (seed parity)
    │   ├── VersionConflict(record_id, expected, actual)   a concurrent writer moved first
    │   ├── RecordImportError(index, detail)               also a pydantic ValidationError
    │   └── WaitTimeout(record_id, statuses, timeout_s, status)  also a TimeoutError
    ├── StoreError(path, detail)                a store (file or database) that cannot be used
    ├── SpecError
    │   ├── SchemaNotFoundError(schema_name)    also a FileNotFoundError (seed 003 parity)
    │   ├── SchemaParseError(path, cause)       also a ValueError
    │   └── SchemaValidationError(validation_error)  also a ValueError
    ├── HandoffViolation(context, history)      guarded data failed its contract (seed 004)
    ├── ParseError(message, raw_output, original)  no recoverable JSON in a text; a ValueError
    └── RegistrationError(listener, detail)     a pump listener that breaks the handler contract
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

from engine.issues import Issue, sort_key


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""


class ConfigError(EngineError):
    """Config files failed to load. `issues` holds every problem found, errors and warnings;
    `what` names the files in the message ("config", "cases file")."""

    def __init__(self, issues: Iterable[Issue], *, what: str = "config") -> None:
        self.issues: tuple[Issue, ...] = tuple(sorted(issues, key=sort_key))
        self.what = what
        errors = [issue for issue in self.issues if issue.is_error]
        shown = errors or list(self.issues)
        lines = [f"{what} has {len(errors)} error(s):"] + [f"  {issue}" for issue in shown[:20]]
        if len(shown) > 20:
            lines.append(f"  ... and {len(shown) - 20} more")
        super().__init__("\n".join(lines))


class UsageError(EngineError, ValueError):
    """An argument to an API call or the CLI is wrong; the message says which and why."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


class MissingExtra(UsageError):
    """A feature needs an optional extra that is not installed (`module` cannot be imported);
    the message says which extra to install."""

    def __init__(self, extra: str, module: str) -> None:
        self.extra = extra
        self.module = module
        super().__init__(
            f"this needs the optional extra {extra!r} ({module} is not installed): "
            f"pip install 'handoff-engine[{extra}]'"
        )


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
    """The record's current state does not allow the trigger. The message starts as the
    seed's did (`Cannot accept handoff in state 'completed'.`), then names the record."""

    def __init__(self, record_id: str, state: str, trigger: str) -> None:
        self.record_id = record_id
        self.state = state
        self.trigger = trigger
        super().__init__(f"Cannot {trigger} handoff in state {state!r}. (handoff {record_id})")


class HandoffExpired(LifecycleError):
    """A move was asked of an overdue record: it was expired first (now `failed`, failure
    `timeout` or `deadline`, audited), so the move cannot happen. `record` is the expired copy.

    Deliberately not an `IllegalTransition` nor a `ValueError`: seed 000 has no expiry, so code
    written for it (`except ValueError` around a move) must not mistake a lost handoff for a
    refused move; catch `HandoffExpired` (or `LifecycleError`) to handle it."""

    def __init__(
        self, record_id: str, trigger: str, failure: str, detail: str, record: Any = None
    ) -> None:
        self.record_id = record_id
        self.state = "failed"
        self.trigger = trigger
        self.failure = failure
        self.detail = detail
        self.record = record
        super().__init__(f"handoff {record_id}: cannot {trigger}: it expired ({failure}: {detail})")


class RecordNotFound(LifecycleError, KeyError):
    """No record has this id."""

    def __init__(self, record_id: str) -> None:
        self.record_id = record_id
        super().__init__(record_id)

    def __str__(self) -> str:  # KeyError would show a repr of the argument
        return f"No handoff record found with id {self.record_id!r}."


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


class RecordImportError(LifecycleError, ValidationError):
    """An imported item is not a valid record; nothing of the import was applied.

    Also a pydantic `ValidationError` (so a `ValueError`), as the seed's `import_records`
    raised: `errors()` lists each problem with its location, the item's index first. `line`
    (where the item starts in an export file, 0 if unknown) and `source` (the file) locate it.
    """

    def __new__(
        cls, index: Any, detail: Any, *rest: Any, problems: Sequence[Problem] = (),
        line: int = 0, source: str = "",
    ) -> RecordImportError:
        if rest:  # pydantic rebuilding the exception (copy, pickle): its own signature
            return super().__new__(cls, index, detail, *rest)
        lines = [_line_error((index, *loc), message) for loc, message in problems]
        return cls.from_exception_data("HandoffRecord", lines or [_line_error((index,), detail)])

    def __init__(
        self, index: Any, detail: Any, *rest: Any, problems: Sequence[Problem] = (),
        line: int = 0, source: str = "",
    ) -> None:
        if not rest:
            self.index = index
            self.detail = detail
            self.line = line
            self.source = source

    def __str__(self) -> str:
        line, source = getattr(self, "line", 0), getattr(self, "source", "")
        where = f"{source}:{line}: " if source and line else f"line {line}: " if line else ""
        return (f"{where}record #{getattr(self, 'index', '?')} is invalid, nothing imported: "
                f"{getattr(self, 'detail', '')}")


Problem = tuple[tuple[str | int, ...], str]
"""(location inside the item, message) of one problem of an imported item."""


def _line_error(loc: tuple[Any, ...], message: str) -> InitErrorDetails:
    kind = PydanticCustomError("record_import", "{detail}", {"detail": message})
    return InitErrorDetails(type=kind, loc=loc, input=None)


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
    """Text in which no sensible JSON could be found or repaired (seed 004 `ParseError`).

    `raw_output` is the text (first 500 characters), `original` the first decode error. The
    message is laid out as handoff-guard's: the reason at line and column, the offending
    lines with a `^` under the column, a suggestion, then a preview of the input.
    """

    def __init__(
        self,
        message: str,
        raw_output: str | None = None,
        original: Exception | None = None,
        *,
        line: int = 0,
        col: int = 0,
        snippet: str = "",
        suggestion: str = "",
        preview: str = "",
    ) -> None:
        self.message = message
        self.raw_output = raw_output
        self.original = original
        self.line = line
        self.col = col
        self.snippet = snippet
        self.suggestion = suggestion
        self.preview = preview
        parts = [f"{message} at line {line}, column {col}" if line else message]
        if snippet:
            parts.append(f"\n{snippet}")
        if suggestion:
            parts.append(f"\nSuggestion: {suggestion}")
        if preview:
            parts.append(f"\nInput preview: '{preview}'")
        super().__init__("\n".join(parts))


class RegistrationError(EngineError):
    """A pump listener breaks the handler contract (sync handler, unknown peer, bad path)."""

    def __init__(self, listener: str, detail: str) -> None:
        self.listener = listener
        self.detail = detail
        super().__init__(f"listener {listener!r}: {detail}")
