"""Optional parts in tests (extras, frameworks, a browser, a PostgreSQL server): one rule for
all of them. On a machine without the part, the test (or module) is skipped with what to
install; where CI requires the part (`HANDOFF_REQUIRE_<GROUP>=1`, set by `.ci/run`) its absence
fails the run instead, so CI can never skip a test silently."""

from __future__ import annotations

import importlib
import importlib.util
import os
from types import ModuleType
from typing import NoReturn

import pytest


def required(group: str) -> bool:
    """True where CI requires the `group` part (`HANDOFF_REQUIRE_<GROUP>=1`)."""
    return os.environ.get(f"HANDOFF_REQUIRE_{group.upper()}") == "1"


def unavailable(why: str, *, group: str) -> NoReturn:
    """Skip the calling test or module because of `why`, or fail where `group` is required."""
    variable = f"HANDOFF_REQUIRE_{group.upper()}"
    if required(group):
        pytest.fail(f"{variable}=1 but {why}", pytrace=False)
    pytest.skip(f"{why} ({variable}=1 turns this skip into a failure, as CI does)",
                allow_module_level=True)


def need(module: str, *, extra: str, group: str) -> ModuleType:
    """`module`, or `unavailable` naming the extra that installs it. Where `group` is
    required, the import error itself propagates (its traceback says what is broken)."""
    if required(group):
        return importlib.import_module(module)
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        unavailable(f"{error.name} is not installed: pip install -e '.[{extra}]'", group=group)


def installed(module: str) -> bool:
    """Whether `module` can be imported (without importing it)."""
    return importlib.util.find_spec(module) is not None
