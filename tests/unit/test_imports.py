"""Every module of the package imports cleanly as the first import of a fresh interpreter (a
module of an optional extra that is not installed raises `MissingExtra`, nothing else), and no
public name shadows a submodule of the package that exports it."""

from __future__ import annotations

import importlib
import os
import pkgutil
import subprocess
import sys

import pytest

import engine

# One interpreter for every module: engine's modules are dropped from sys.modules before each
# import, which is what a fresh interpreter sees (a circular import fails the same way).
FIRST_IMPORTS = """
import importlib, pkgutil, sys, traceback
import engine
names = sorted(m.name for m in pkgutil.walk_packages(engine.__path__, "engine.")
               if not m.name.endswith("__main__"))
failed = []
for name in names:
    for loaded in [m for m in sys.modules if m == "engine" or m.startswith("engine.")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception as error:
        extra = type(error).__name__ == "MissingExtra"  # an optional extra not installed
        failed.append(("missing extra " if extra else "") + name + ": "
                      + traceback.format_exc().splitlines()[-1])
print(len(names))
print("\\n".join(failed))
"""


@pytest.mark.slow
def test_every_module_imports_first_in_a_fresh_interpreter() -> None:
    done = subprocess.run(
        [sys.executable, "-c", FIRST_IMPORTS], capture_output=True, text=True, check=True
    )
    count, *failed = done.stdout.strip().splitlines()
    assert int(count) > 50
    if not any(name.startswith("HANDOFF_REQUIRE_") for name in os.environ):
        failed = [line for line in failed if not line.startswith("missing extra ")]
    assert failed == []


def test_import_engine_stores_first() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import engine.stores; print(engine.stores.SQLiteStore.__name__)"],
        capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "SQLiteStore"


SURFACES = ["engine", "engine.guard", "engine.lifecycle", "engine.pump", "engine.routing",
            "engine.runtime", "engine.specs", "engine.stores", "engine.config"]


@pytest.mark.parametrize("package", SURFACES)
def test_no_public_name_is_also_a_submodule(package: str) -> None:
    module = importlib.import_module(package)
    submodules = {info.name for info in pkgutil.iter_modules(module.__path__)}
    exported = set(getattr(module, "__all__", ()))
    assert exported & submodules == set()


GUARD_BOTH_ORDERS = """
import engine.guard
from engine.guard import guard, retry
import engine.guard as package
from engine import parse_json, retry as top_retry
assert callable(guard) and guard.__module__.startswith("engine.guard"), guard
assert retry is top_retry and hasattr(retry, "feedback"), retry
assert package.guard is guard
from engine import guard as same
assert same is package, same
print("ok")
"""


def test_guard_names_resolve_the_same_whatever_was_imported_first() -> None:
    done = subprocess.run([sys.executable, "-c", GUARD_BOTH_ORDERS],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    reverse = "from engine import retry\nimport engine.guard.retry_state\n" + GUARD_BOTH_ORDERS
    done = subprocess.run([sys.executable, "-c", reverse], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert engine.__name__ == "engine"
