"""Sessions: per-session handoff-map overrides over the serving snapshot, hops, returns."""

from __future__ import annotations

import pytest

from engine.errors import UsageError
from engine.routing.snapshot import Snapshot
from engine.runtime.session import Session, SessionHop

from .conftest import snapshot_of


def test_a_session_starts_on_the_entry_agent_with_the_config_map(banking: Snapshot) -> None:
    session = Session(lambda: banking)
    assert session.active_agent == "concierge"
    assert dict(session.handoff_map) == {
        "handoff_fraud_agent": "fraud_agent",
        "handoff_claims": "claims",
        "handoff_retired": "retired",
    }
    assert session.get_handoff_target("handoff_claims") == "claims"
    assert session.is_handoff_tool("lookup_balance") is False


def test_overrides_apply_at_once_and_only_to_their_session(banking: Snapshot) -> None:
    one, other = Session(lambda: banking), Session(lambda: banking)
    one.update_handoff_map("handoff_vip", "claims")
    assert one.remove_handoff("handoff_fraud_agent") is True
    assert one.remove_handoff("never_mapped") is False
    assert one.get_handoff_target("handoff_vip") == "claims"
    assert one.is_handoff_tool("handoff_fraud_agent") is False
    assert other.is_handoff_tool("handoff_vip") is False
    assert other.get_handoff_target("handoff_fraud_agent") == "fraud_agent"


def test_a_reloaded_snapshot_shows_through_the_overrides(banking: Snapshot) -> None:
    serving = [banking]
    session = Session(lambda: serving[0])
    session.remove_handoff("handoff_claims")
    serving[0] = snapshot_of(
        {"name": "concierge", "peers": ["*"]},
        {"name": "claims", "handoff": {"trigger": "handoff_claims"}},
        {"name": "investments", "handoff": {"trigger": "handoff_investments"}},
        version="v2",
    )
    assert dict(session.handoff_map) == {"handoff_investments": "investments"}


def test_unknown_agents_are_refused_with_a_value_error(banking: Snapshot) -> None:
    session = Session(lambda: banking)
    with pytest.raises(UsageError, match="Unknown target agent: nobody") as caught:
        session.update_handoff_map("handoff_x", "nobody")
    assert isinstance(caught.value, ValueError)  # seed 002 raised ValueError
    with pytest.raises(UsageError, match="Unknown agent: nobody"):
        Session(lambda: banking, active_agent="nobody")


def test_hops_build_the_path_and_a_return_pops_the_stack(banking: Snapshot) -> None:
    session = Session(lambda: banking)
    session.record_hop("fraud_agent", record_id="r1")
    session.record_hop("claims", record_id="r2")
    assert session.previous_agent == "fraud_agent"
    session.record_hop("fraud_agent", returning=True)
    assert session.active_agent == "fraud_agent"
    assert session.previous_agent == "concierge"
    assert session.path == ("concierge", "fraud_agent", "claims", "fraud_agent")
    assert session.hops[0] == SessionHop("concierge", "fraud_agent", "r1")
