"""The `@guard` decorator (seed 004): validate a node's input and output, retry with feedback.

Builds a `Plan` once per decorated function and drives the shared attempt loop in
`attempts` from a sync or an async wrapper; neither wrapper holds any logic of its own.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast, overload

from engine.errors import UsageError
from engine.guard.attempts import Hooked, OnFail, Plan, Raised, Steps, run_attempts
from engine.guard.contracts import Schema, as_contract
from engine.guard.retry_state import RetryState

F = TypeVar("F", bound=Callable[..., Any])

RETRY_CAUSES = frozenset({"validation", "parse"})
ON_FAIL_MODES = ("raise", "return_none", "return_input")


@dataclass(frozen=True, slots=True)
class GuardConfig:
    """The settings of one guard, as given to `@guard` (seed 004 parity)."""

    input_schema: Schema | None = None
    output_schema: Schema | None = None
    node_name: str | None = None
    on_fail: OnFail = "raise"
    max_attempts: int = 1
    retry_on: tuple[str, ...] = ("validation", "parse")
    input_param: str | None = "state"


def _input_binder(
    func: Callable[..., Any], input_param: str | None
) -> Callable[[tuple[Any, ...], dict[str, Any]], Any]:
    """Where the guarded input lives: the `input_param` argument, else the first parameter
    that is not `self`, `cls` or `retry`."""
    params = list(inspect.signature(func).parameters.values())
    names = [p.name for p in params]
    candidates = [n for n in names if n not in ("self", "cls", "retry")]
    name = input_param if input_param in names else (candidates[0] if candidates else "state")
    index = names.index(name) if name in names else -1
    default = params[index].default if index >= 0 else inspect.Parameter.empty
    fallback = None if default is inspect.Parameter.empty else default

    def bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if 0 <= index < len(args):
            return args[index]
        return kwargs.get(name, fallback)

    return bind


def _position(func: Callable[..., Any], name: str) -> int:
    names = list(inspect.signature(func).parameters)
    return names.index(name) if name in names else -1


def _check(config: GuardConfig) -> None:
    if config.max_attempts < 1:
        raise UsageError(f"guard max_attempts must be at least 1, got {config.max_attempts}")
    if isinstance(config.retry_on, str):
        raise UsageError(f"guard retry_on must be a tuple of causes, e.g. "
                         f"({config.retry_on!r},), not a string")
    unknown = set(config.retry_on) - RETRY_CAUSES
    if unknown:
        raise UsageError(f"guard retry_on has unknown causes {sorted(unknown)}; use "
                         "'validation' and/or 'parse'")
    if not callable(config.on_fail) and config.on_fail not in ON_FAIL_MODES:
        raise UsageError(f"guard on_fail must be one of {ON_FAIL_MODES} or a callable, "
                         f"got {config.on_fail!r}")


def _plan(func: Callable[..., Any], config: GuardConfig) -> Plan:
    _check(config)
    return Plan(
        node_name=config.node_name or func.__name__,
        input_contract=None if config.input_schema is None else as_contract(config.input_schema),
        output_contract=(
            None if config.output_schema is None else as_contract(config.output_schema)
        ),
        max_attempts=config.max_attempts,
        retry_on=frozenset(config.retry_on),
        on_fail=config.on_fail,
        bind_input=_input_binder(func, config.input_param),
        retry_position=_position(func, "retry"),
        first_state=RetryState(1, config.max_attempts),
    )


def _finish(final: Any) -> Any:
    if type(final) is Raised:
        raise final.error
    if type(final) is Hooked:
        return final.value
    return final


def _drive_sync(func: Callable[..., Any], steps: Steps, args: tuple[Any, ...]) -> Any:
    try:
        call_kwargs = next(steps)
        while True:
            try:
                result = func(*args, **call_kwargs)
            except Exception as error:
                result = Raised(error)
            call_kwargs = steps.send(result)
    except StopIteration as stop:
        return _finish(stop.value)
    finally:
        steps.close()


async def _drive_async(func: Callable[..., Any], steps: Steps, args: tuple[Any, ...]) -> Any:
    try:
        call_kwargs = next(steps)
        while True:
            try:
                result = await func(*args, **call_kwargs)
            except Exception as error:
                result = Raised(error)
            call_kwargs = steps.send(result)
    except StopIteration as stop:
        final = stop.value
    finally:
        steps.close()
    if type(final) is Hooked and inspect.isawaitable(final.value):
        return await final.value
    return _finish(final)


def wrap(func: F, config: GuardConfig) -> F:
    """Guard `func` with `config`; the wrapper is async exactly when `func` is."""
    plan = _plan(func, config)
    is_async = inspect.iscoroutinefunction(func)
    if not is_async and inspect.iscoroutinefunction(config.on_fail):
        raise UsageError(f"guard on {plan.node_name!r}: an async on_fail hook needs an "
                         "async function; a sync node cannot await it")
    if is_async:

        @functools.wraps(func)
        async def async_guarded(*args: Any, **kwargs: Any) -> Any:
            return await _drive_async(func, run_attempts(plan, args, kwargs), args)

        return cast(F, async_guarded)

    @functools.wraps(func)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        return _drive_sync(func, run_attempts(plan, args, kwargs), args)

    return cast(F, guarded)


@overload
def guard(input: F, /) -> F: ...


@overload
def guard(
    input: Schema | None = None,
    output: Schema | None = None,
    *,
    node_name: str | None = None,
    max_attempts: int = 1,
    retry_on: tuple[str, ...] = ("validation", "parse"),
    on_fail: OnFail = "raise",
    input_param: str | None = "state",
) -> Callable[[F], F]: ...


def guard(
    input: Any = None,
    output: Schema | None = None,
    *,
    node_name: str | None = None,
    max_attempts: int = 1,
    retry_on: tuple[str, ...] = ("validation", "parse"),
    on_fail: OnFail = "raise",
    input_param: str | None = "state",
) -> Any:
    """Validate a node's input (once) and output (every attempt) at an agent boundary.

    Schemas are pydantic model classes or JSON Schema mappings. Failed output is retried up
    to `max_attempts` for the causes in `retry_on`; `retry.feedback()` (or an injected
    `retry` parameter) tells the next attempt what went wrong. When attempts run out,
    `on_fail` decides: "raise" a `HandoffViolation`, "return_none", "return_input", or a
    callable given the violation (awaited if it returns an awaitable in an async node).
    Works bare (`@guard`) and called (`@guard(output=Model)`).
    """
    if callable(input) and not isinstance(input, type):
        return wrap(input, GuardConfig())
    config = GuardConfig(input, output, node_name, on_fail, max_attempts, retry_on, input_param)

    def decorator(func: F) -> F:
        return wrap(func, config)

    return decorator
