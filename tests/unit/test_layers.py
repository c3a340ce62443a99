"""Package layers: the `[tool.importlinter]` contracts in pyproject.toml hold (every import of
one engine package from another points to a lower layer, never to a sibling; adapters, console
and observability import none of each other, not even through another package), and every
package has a layer, so a new one cannot slip past the contract unplaced."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

import engine

ROOT = Path(engine.__file__).parent
REPO = ROOT.parent


def layered_packages() -> set[str]:
    """The names in the layers contract: 'a | b' is one layer of two packages."""
    settings = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    layers = next(contract["layers"] for contract in settings["tool"]["importlinter"]["contracts"]
                  if contract["type"] == "layers")
    return {name.strip() for layer in layers for name in layer.split("|")}


def test_every_package_has_a_layer() -> None:
    packages = {path.name for path in ROOT.iterdir() if (path / "__init__.py").is_file()}
    modules = {path.stem for path in ROOT.glob("*.py")} - {"__init__", "__main__"}
    assert packages | modules <= layered_packages(), sorted(packages | modules - layered_packages())


def test_the_import_contracts_are_kept() -> None:
    """`lint-imports` (import-linter, as CI would run it) on this checkout's package."""
    command = Path(sys.executable).with_name("lint-imports")
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])}
    done = subprocess.run([str(command), "--no-cache"], capture_output=True, text=True,
                          cwd=REPO, env=environment)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout
