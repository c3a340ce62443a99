"""Optional extras in tests: a test module that needs one imports it through `need`. On a
machine without the extra the module is skipped with the install line; when CI requires it
(`HANDOFF_REQUIRE_<GROUP>` set, as `.ci/run` does) a missing extra fails the run instead."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest


def need(module: str, *, extra: str, group: str) -> ModuleType:
    """`module`, or a module-level skip (a failure when `HANDOFF_REQUIRE_<GROUP>` is set)."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        variable = f"HANDOFF_REQUIRE_{group.upper()}"
        install = f"pip install -e '.[{extra}]'"
        if os.environ.get(variable):
            pytest.fail(f"{variable} is set but {error.name} is missing: {install}",
                        pytrace=False)
        pytest.skip(f"needs the {extra!r} extra ({error.name} is not installed): {install}",
                    allow_module_level=True)
