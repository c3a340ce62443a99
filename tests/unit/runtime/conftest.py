"""Runtime test helpers: snapshots built in code, and real banking config folders to edit."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from engine.config.models import AgentSpec, ConfigSet, EngineSpec
from engine.loading.loader import load_config
from engine.routing.snapshot import Snapshot, compile_snapshot
from tests.patience import wait_until


def snapshot_of(*agents: dict[str, Any], entry: str = "concierge", version: str = "v1") -> Snapshot:
    specs = {spec["name"]: AgentSpec.model_validate(spec) for spec in agents}
    config = ConfigSet(
        engine=EngineSpec(name="test", entry=entry), agents=specs, capabilities={}
    )
    return compile_snapshot(config, version=version, root="<memory>")


@pytest.fixture
def banking() -> Snapshot:
    return snapshot_of(
        {"name": "concierge", "peers": ["*"], "handoff": {"is_entry_point": True}},
        {
            "name": "fraud_agent",
            "description": "Handles fraud.",
            "peers": ["concierge"],
            "handoff": {"trigger": "handoff_fraud_agent"},
            "accepts": {
                "payload_schema": {
                    "type": "object",
                    "properties": {"card_last4": {"type": "string"}},
                    "required": ["card_last4"],
                }
            },
        },
        {
            "name": "claims",
            "description": "Files claims.",
            "handoff": {"trigger": "handoff_claims", "description": "Open a claim."},
            "accepts": {"from": ["fraud_agent"]},
            "terminal": True,
        },
        {"name": "retired", "handoff": {"trigger": "handoff_retired"}, "enabled": False},
    )


# -- real config folders on disk (hot reload tests) -----------------------------------------

BANKING = Path(__file__).resolve().parents[3] / "configs" / "banking"
SHOPPING = "What card should I get? I want a new credit card with cashback."
"""Routed by rule `card-shopping`; the variants below change only that rule's target."""

BROKEN = {
    "yaml": lambda text: text.replace("fallback: concierge", "fallback: [concierge\n"),
    "schema": lambda text: text.replace("priority: 40", "priority: high"),
    "dangling": lambda text: text.replace("    to: card_recommendation", "    to: nobody"),
}


def routing_for(target: str) -> str:
    """banking's routing.yaml with rule `card-shopping` sending to `target`."""
    text = (BANKING / "routing.yaml").read_text(encoding="utf-8")
    return text.replace("    to: card_recommendation\n", f"    to: {target}\n")


@dataclass
class ConfigFolder:
    """A copy of configs/banking in a temporary folder, with helpers to edit it."""

    path: Path
    versions: dict[str, str]  # card-shopping target -> version of that valid config
    shopping: str = SHOPPING

    @property
    def routing(self) -> Path:
        return self.path / "routing.yaml"

    def write_routing(self, target: str) -> str:
        """Point card-shopping at `target` (editor-style: temp file + os.replace)."""
        self.save(self.routing, routing_for(target))
        return self.versions[target]

    def break_routing(self, kind: str) -> None:
        self.save(self.routing, BROKEN[kind](routing_for("card_recommendation")))

    def copy_as(self, target: str, where: Path) -> Path:
        """A copy of the folder elsewhere, with card-shopping sending to `target`."""
        shutil.copytree(self.path, where)
        (where / "routing.yaml").write_text(routing_for(target), encoding="utf-8")
        return where

    @staticmethod
    def save(path: Path, text: str) -> None:
        temp = path.with_name(f".{path.name}.tmp")
        temp.write_text(text, encoding="utf-8")
        os.replace(temp, path)


TARGETS = ("card_recommendation", "investment_advisor", "compliance_desk")
_VERSIONS: dict[str, str] = {}


def _versions(scratch: Path) -> dict[str, str]:
    if not _VERSIONS:
        for target in TARGETS:
            folder = scratch / f"v-{target}"
            shutil.copytree(BANKING, folder)
            (folder / "routing.yaml").write_text(routing_for(target), encoding="utf-8")
            _VERSIONS[target] = load_config(folder).version
    return dict(_VERSIONS)


@pytest.fixture
def config_folder(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> ConfigFolder:
    folder = tmp_path / "banking"
    shutil.copytree(BANKING, folder)
    return ConfigFolder(folder, _versions(tmp_path_factory.mktemp("versions")))


@pytest.fixture
def wait_for() -> Callable[..., None]:
    return wait_until


def assert_same_snapshot(served: Snapshot, cold: Snapshot) -> None:
    """`served` (what a reload serves) is, part for part, what a cold load (`cold`) builds."""
    assert served.version == cold.version
    assert served.config == cold.config
    assert [str(found) for found in served.warnings] == [str(found) for found in cold.warnings]
    assert dict(served.trigger_map) == dict(cold.trigger_map)
    assert served.rules == cold.rules
    assert served.tables == cold.tables
    assert served.keyword_index == cold.keyword_index
    assert served.example_index == cold.example_index
