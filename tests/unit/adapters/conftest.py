"""Adapter tests run against the real frameworks. A framework that is not installed skips its
tests with the install command, except where HANDOFF_REQUIRE_ADAPTERS=1 (CI): there it fails."""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import ModuleType

import pytest

BANKING = Path(__file__).resolve().parents[3] / "configs" / "banking"
REQUIRE = "HANDOFF_REQUIRE_ADAPTERS"


def framework(module: str, extra: str) -> ModuleType:
    """Import `module`, or skip the calling test module when it is missing (fail under CI)."""
    if os.environ.get(REQUIRE) == "1":
        return importlib.import_module(module)
    return pytest.importorskip(
        module, reason=f"{module} is not installed: pip install -e '.[{extra}]' "
        f"({REQUIRE}=1 turns this skip into a failure, as CI does)",
    )
