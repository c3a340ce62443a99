"""Shared test helpers: writing config sets to temporary folders; importing an adapter's
framework (a skip with the install command, or a failure where HANDOFF_REQUIRE_ADAPTERS=1)."""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import settings

# CI explores the same examples on every run (a red build must be reproducible); local runs
# keep hypothesis's random exploration, which is how new failures get found.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

REPO = Path(__file__).resolve().parent.parent
CONFIGS = REPO / "configs"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


REQUIRE_ADAPTERS = "HANDOFF_REQUIRE_ADAPTERS"


def framework(module: str, extra: str) -> ModuleType:
    """Import an adapter's framework, or skip the calling test module when it is missing. Under
    HANDOFF_REQUIRE_ADAPTERS=1 (set by CI) a missing framework fails instead of skipping."""
    if os.environ.get(REQUIRE_ADAPTERS) == "1":
        return importlib.import_module(module)
    return pytest.importorskip(
        module, reason=f"{module} is not installed: pip install -e '.[{extra}]' "
        f"({REQUIRE_ADAPTERS}=1 turns this skip into a failure, as CI does)",
    )


@pytest.fixture
def write_files(tmp_path: Path) -> Callable[[dict[str, str]], Path]:
    """Write `{relative path: text}` below a temporary folder and return the folder."""

    def write(files: dict[str, str]) -> Path:
        for name, text in files.items():
            path = tmp_path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return tmp_path

    return write
