"""Listeners YAML: schema validation, located import/peer checks, building a working pump."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine.errors import ConfigError
from engine.pump import HandlerMetadata, HandlerResponse, Limits, ListenerRegistry, Pump
from engine.pump.config import load_pump_config

MODULE = '''
from pydantic import BaseModel
from engine.pump import HandlerResponse

class Ping(BaseModel):
    n: int

class NotAModel:
    pass

async def double(payload, metadata):
    return HandlerResponse.respond(Ping(n=payload.n * 2))

def blocking(payload, metadata):
    return None
'''


@pytest.fixture
def module(write_files: Callable[[dict[str, str]], Path], monkeypatch: pytest.MonkeyPatch) -> str:
    """A fresh importable module with a model and handlers; returns its name."""
    name = f"pumpcfg_{uuid.uuid4().hex}"
    root = write_files({f"{name}.py": MODULE})
    monkeypatch.syspath_prepend(str(root))
    return name


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "listeners.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_valid_file_builds_a_working_pump(tmp_path: Path, module: str) -> None:
    path = write(tmp_path, f"""\
pump:
  queue_size: 10
  max_fanout: 4
  max_hops: 1000
listeners:
  - name: math.doubler
    handler: {module}:double
    payload: {module}:Ping
    timeout: 2
    concurrency: 1
""")
    config = load_pump_config(path)
    assert config.queue_size == 10 and config.limits.max_fanout == 4
    assert config.limits.max_hops == 1000
    listener = config.registry["math.doubler"]
    assert (listener.timeout, listener.concurrency, listener.peers) == (2, 1, ())

    async def main() -> Any:
        async with config.build() as pump:
            return await pump.request("math.doubler", {"n": 21})

    assert asyncio.run(main()).n == 42


def test_every_located_issue_is_reported(tmp_path: Path, module: str) -> None:
    path = write(tmp_path, f"""\
listeners:
  - name: a
    handler: {module}:missing
    payload: {module}:Ping
    peers: [ghost]
  - name: b
    handler: {module}:blocking
    payload: [{module}:NotAModel]
  - name: c
    handler: no_such_module_xyz:fn
    payload: {{type: nonsense}}
  - name: a
    handler: {module}:double
    payload: {module}:Ping
  - name: d
    payload: {module}:Ping
""")
    with pytest.raises(ConfigError) as info:
        load_pump_config(path)
    found = {(i.code, i.line, i.json_path) for i in info.value.issues}
    assert found == {
        ("unknown-handler", 3, "$.listeners[0].handler"),
        ("unknown-peer", 5, "$.listeners[0].peers[0]"),
        ("sync-handler", 7, "$.listeners[1].handler"),
        ("unknown-payload", 8, "$.listeners[1].payload[0]"),
        ("unknown-handler", 10, "$.listeners[2].handler"),
        ("duplicate-listener", 12, "$.listeners[3].name"),
        ("missing-handler", 15, "$.listeners[4].name"),
    }
    assert all(i.file.endswith("listeners.yaml") and i.col > 0 for i in info.value.issues)


def test_inline_schema_problems_and_in_code_handlers(tmp_path: Path) -> None:
    path = write(tmp_path, """\
listeners:
  - name: a
    payload: {type: nonsense}
""")

    async def handler(payload: Any, metadata: HandlerMetadata) -> HandlerResponse:
        return HandlerResponse.respond(payload)

    with pytest.raises(ConfigError) as info:
        load_pump_config(path, handlers={"a": handler})
    [problem] = info.value.issues
    assert (problem.code, problem.line) == ("invalid-payload-schema", 3)


def test_schema_errors_come_from_the_shared_pipeline(tmp_path: Path) -> None:
    path = write(tmp_path, "listeners:\n  - name: a\n    payload: x:Y\n    peer: [b]\n")
    with pytest.raises(ConfigError) as info:
        load_pump_config(path)
    assert [i.code for i in info.value.issues] == ["unknown-key"]
    assert info.value.issues[0].line == 4


def test_schema_defaults_agree_with_the_code() -> None:
    schema = json.loads((Path(__file__).parents[3] / "schemas" / "listeners.schema.json")
                        .read_text(encoding="utf-8"))
    pump = schema["properties"]["pump"]["properties"]
    listener = schema["$defs"]["listener"]["properties"]
    limits = {f.name: f.default for f in dataclasses.fields(Limits)}
    assert {k: pump[k]["default"] for k in limits} == limits
    pump_defaults = inspect.signature(Pump).parameters
    assert pump["queue_size"]["default"] == pump_defaults["queue_size"].default
    assert pump["send_timeout"]["default"] == pump_defaults["send_timeout"].default
    register = inspect.signature(ListenerRegistry.register).parameters
    for key in ("timeout", "concurrency", "agent"):
        assert listener[key]["default"] == register[key].default
    assert listener["peers"]["default"] == list(register["peers"].default)
