"""The public surface: one sorted `__all__` that resolves, and every engine error exported."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
from pathlib import Path

import engine
import engine.errors


def test_all_is_sorted_and_matches_the_lazy_export_table() -> None:
    assert engine.__all__ == sorted(engine.__all__)
    assert set(engine.__all__) == set(engine._EXPORTS) | {"__version__"}


def test_the_type_checkers_view_names_every_export_from_its_module() -> None:
    """The `TYPE_CHECKING` imports are what type checkers and editors see of the lazy names:
    a name missing there is `Any` to them."""
    tree = ast.parse(Path(engine.__file__).read_text(encoding="utf-8"))
    block = next(node for node in tree.body if isinstance(node, ast.If)
                 and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
    seen = {alias.asname or alias.name: node.module for node in ast.walk(block)
            if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert seen == engine._EXPORTS


def test_every_exported_name_resolves() -> None:
    for name in engine.__all__:
        assert getattr(engine, name) is not None, name


def test_every_engine_error_is_exported() -> None:
    errors = {
        name
        for name, value in vars(engine.errors).items()
        if inspect.isclass(value) and issubclass(value, engine.errors.EngineError)
    }
    assert errors <= set(engine.__all__)


def test_unknown_attributes_raise_attribute_error() -> None:
    try:
        engine.NoSuchThing  # noqa: B018
    except AttributeError as error:
        assert "NoSuchThing" in str(error)
    else:
        raise AssertionError("engine.NoSuchThing resolved")


def test_importing_the_package_loads_no_subsystem() -> None:
    code = "import sys, engine; print(sorted(m for m in sys.modules if m.startswith('engine.')))"
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip() == "[]"
