"""`explain_turn`: the decision with its rule checks and normalization trace, as `route
--explain` and the console show it."""

from __future__ import annotations

from engine.loading.loader import load_config
from engine.routing import Router, RouteRequest
from engine.routing.explanation import explain_turn
from tests.conftest import CONFIGS


def test_a_turn_carries_every_rule_check_and_the_trace() -> None:
    router = Router(load_config(CONFIGS / "banking"))
    request = RouteRequest("concierge", "I'd like to invest in a fund; I also have a complaint",
                           context={"customer_tier": "private"})
    explained = explain_turn(router, [request])
    verdicts = {check.rule: explained.rule_verdict(check) for check in explained.checks}
    assert verdicts["private-client-investing"] == "matched, chosen"
    assert verdicts["formal-complaint"] == "matched, not reached"
    assert verdicts["file-a-claim"].startswith("no match: keywords.all")
    assert [check.rule for check in explained.checks] == [r.id for r in router.snapshot.rules]
    document = explained.to_dict()
    assert document["target"] == "investment_advisor"
    assert len(document["rule_checks"]) == 8
    assert document["normalization"]["trace"][-1]["text"] == explained.normalized
    assert document["normalization"]["steps"] == list(explained.steps)


def test_a_rule_whose_target_policy_forbids_is_dropped() -> None:
    router = Router(load_config(CONFIGS / "banking"))
    request = RouteRequest("card_recommendation", "my card was stolen")
    explained = explain_turn(router, [request], history=())
    verdicts = {check.rule: explained.rule_verdict(check) for check in explained.checks}
    assert verdicts["lost-or-stolen-card"] == "matched, dropped: not_allowed"
