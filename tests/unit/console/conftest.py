"""Console test helpers: the console extra is required (or these tests are skipped, unless
HANDOFF_REQUIRE_BROWSER=1), and small config sets written to temporary folders."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.loading.loader import load_config
from engine.routing.snapshot import Snapshot

_MISSING = [name for name in ("starlette", "uvicorn", "jinja2")
            if importlib.util.find_spec(name) is None]
if _MISSING:
    if os.environ.get("HANDOFF_REQUIRE_BROWSER") == "1":
        pytest.fail(f"the console extra is not installed ({', '.join(_MISSING)})", pytrace=False)
    collect_ignore_glob = ["test_*.py"]

BANKING = Path(__file__).resolve().parents[3] / "configs" / "banking"


def agent_file(name: str, *, peers: str = "[]", extra: str = "") -> str:
    return f"name: {name}\nhandoff: {{trigger: handoff_{name.replace('.', '_')}}}\n" \
           f"peers: {peers}\n{extra}"


@pytest.fixture
def make_set(write_files: Callable[[dict[str, str]], Path]) -> Callable[..., Snapshot]:
    """A config set of the given agent files (name -> YAML), routing and entry; loaded."""

    def make(agents: dict[str, str], *, entry: str, routing: str = "rules: []\n") -> Snapshot:
        files = {f"agents/{name}.yaml": text for name, text in agents.items()}
        files["engine.yaml"] = (f"version: 1\nname: test\nentry: {entry}\ninclude:\n"
                                "  agents: ['agents/*.yaml']\n  routing: ['routing.yaml']\n")
        files["routing.yaml"] = routing
        return load_config(write_files(files))

    return make
