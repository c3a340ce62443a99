"""Package layers (DESIGN.md, "Package layers"): imports point down only. Every import of one
engine package from another, at module level or inside a function, goes to a package of the
same layer or a lower one; imports only a type checker reads (`if TYPE_CHECKING:`) do not count.
The exceptions that remain are listed, each with its reason."""

from __future__ import annotations

import ast
from pathlib import Path

import engine

LAYERS = [
    # the shared vocabulary at the bottom
    {"records", "issues", "errors", "redaction", "observer", "validation", "choices", "lazy",
     "text"},
    {"config"},  # describes
    {"routing"},  # decides
    {"stores"},  # persists records
    {"lifecycle"},  # moves records through the table
    {"pump", "learning", "evaluation", "guard", "specs"},  # built on routing and lifecycle
    {"loading"},  # a set loaded end to end: config, then compile
    {"runtime"},  # the facade a runtime holds
    {"cli", "console", "adapters", "observability", "scaffold"},  # edges
]
RANK = {package: rank for rank, packages in enumerate(LAYERS) for package in packages}
KNOWN = {
    ("runtime", "observability"): "Engine.metrics() builds the Prometheus observer on demand",
}
ROOT = Path(engine.__file__).parent


def _type_checking_lines(tree: ast.Module) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) \
                and node.test.id == "TYPE_CHECKING":
            found.update(getattr(sub, "lineno", 0) for sub in ast.walk(node))
    return found


def _imported_packages(tree: ast.Module) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("engine."):
            found.append((node.lineno, node.module.split(".")[1]))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[1]) for alias in node.names
                      if alias.name.startswith("engine.")]
    return found


def upward_imports() -> dict[tuple[str, str], list[str]]:
    """(importing package, imported package) -> where, for every import that points up."""
    found: dict[tuple[str, str], list[str]] = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).parts
        if len(parts) == 1:
            continue  # engine/__init__.py and friends: the package's own surface
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = _type_checking_lines(tree)
        for line, package in _imported_packages(tree):
            if line not in skipped and RANK[package] > RANK[parts[0]]:
                found.setdefault((parts[0], package), []).append(f"{path}:{line}")
    return found


def test_every_package_has_a_layer() -> None:
    packages = {path.name for path in ROOT.iterdir() if (path / "__init__.py").is_file()}
    modules = {path.stem for path in ROOT.glob("*.py")} - {"__init__", "__main__"}
    assert packages | modules <= set(RANK), sorted(packages | modules - set(RANK))


def test_imports_point_down_only() -> None:
    unexpected = {pair: where for pair, where in upward_imports().items() if pair not in KNOWN}
    assert unexpected == {}
