"""`export_flow`: a config set as a Pipecat Flows FlowConfig, checked by Pipecat's own loader
(`FlowConfig`), the JSON Schema Pipecat ships for it, and `Flow`, which joins it to code."""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

import jsonschema

from engine.adapters.pipecat_flow import export_flow
from engine.loading.loader import load_config

from .conftest import BANKING, ONE_HOP, framework

framework("pipecat.flows", "pipecat")

from pipecat.flows import Flow, FlowConfig  # noqa: E402


def direct(name: str) -> Any:
    """A Flows direct function named `name` (what an application gives `Flow`)."""

    async def function(flow_manager: Any) -> tuple[Any, Any]:
        """Stands in for the application's tool."""
        return {}, None

    function.__name__ = name
    return function


def test_the_banking_set_loads_in_pipecat_flows_and_joins_its_handlers() -> None:
    export = export_flow(load_config(BANKING))
    config = FlowConfig.model_validate(export.config)
    schema = json.loads(files("pipecat.flows").joinpath("flow_config.schema.json").read_text())
    jsonschema.validate(export.config, schema)
    assert config.initial_node == "concierge"
    fraud = config.nodes["fraud_agent"]
    handoffs = {f.name: f.transition_to for f in fraud.functions if f.transition_only}
    assert handoffs == {"handoff_claims": "claims", "handoff_compliance_desk": "compliance_desk",
                        "handoff_concierge": "concierge"}   # peers and accepts.from, by policy
    assert [f.name for f in fraud.functions if not f.transition_only] == [
        "freeze_card", "list_recent_transactions", "open_fraud_case"]
    assert fraud.context_strategy == "reset" and config.nodes["concierge"].context_strategy == (
        "append")
    assert fraud.pre_actions[0].type == "tts_say"
    assert fraud.pre_actions[0].model_extra == {"text": (
        "You're through to the fraud team. I'm sorry you're dealing with this; let's secure "
        "your account first.")}
    code = {f.name: direct(f.name) for node in config.nodes.values() for f in node.functions
            if not f.transition_only}
    flow = Flow(config, handlers=code)
    assert flow.initial_node["name"] == "concierge"


def test_what_does_not_carry_over_is_listed_with_where_it_is_declared() -> None:
    dropped = export_flow(load_config(BANKING)).dropped
    assert any(line.startswith("agent fraud_agent: accepts.payload_schema") for line in dropped)
    assert any(line.startswith("routing.rules: lost-or-stolen-card,") for line in dropped)
    assert any(line.startswith("policies: max_hops 6, max_bounces 2") for line in dropped)
    assert any(line.startswith("agent concierge: metadata.voice") for line in dropped)


def test_a_disabled_agent_has_no_node_and_no_transition_leads_to_it(write_files: Any) -> None:
    files_ = {**ONE_HOP, "agents/b.yaml": ONE_HOP["agents/b.yaml"] + "enabled: false\n"}
    export = export_flow(load_config(write_files(files_)))
    config = FlowConfig.model_validate(export.config)
    assert list(config.nodes) == ["a"] and config.nodes["a"].functions == []
    assert "agent b: disabled, so it has no node" in export.dropped
