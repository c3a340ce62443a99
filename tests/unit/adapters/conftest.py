"""Adapter tests run against the real frameworks (see `tests.conftest.framework`)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import REQUIRE_ADAPTERS as REQUIRE
from tests.conftest import framework

BANKING = Path(__file__).resolve().parents[3] / "configs" / "banking"
__all__ = ["BANKING", "REQUIRE", "framework"]
