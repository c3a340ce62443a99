"""The tally: accuracy, transfer recall, false transfers, per-agent scores, percentiles."""

from __future__ import annotations

import pytest

from engine.evaluation import metrics
from engine.evaluation.metrics import Tally


def test_rates_and_scores() -> None:
    tally = Tally(("front", "fraud", "claims"))
    tally.add("front", "front", None, 1.0)       # stays: right
    tally.add("front", "front", "fraud", 2.0)    # false transfer
    tally.add("fraud", "front", "fraud", 3.0)    # transfer: right
    tally.add("fraud", "front", None, 4.0)       # transfer missed (stays)
    tally.add("claims", "front", "fraud", 5.0)   # transfer to the wrong desk
    assert tally.accuracy == pytest.approx(2 / 5)
    assert tally.transfer_recall == pytest.approx(1 / 3)
    assert tally.false_transfer_rate == pytest.approx(1 / 2)
    assert tally.no_route_rate == pytest.approx(2 / 5)
    assert tally.percentile(0.5) == 3.0 and tally.percentile(0.99) == 5.0
    scores = {s.agent: s for s in tally.scores()}
    assert scores["fraud"].precision == pytest.approx(1 / 3)
    assert scores["fraud"].recall == pytest.approx(1 / 2)
    assert scores["fraud"].f1 == pytest.approx(0.4)
    assert scores["claims"].recall == 0 and scores["claims"].f1 == 0
    assert tally.recall_of("front") == pytest.approx(1 / 2)


def test_latency_sample_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(metrics, "SAMPLE", 10)
    tally = Tally(("a",))
    for n in range(1000):
        tally.add("a", "a", None, float(n))
    assert len(tally.latencies) == 10 and tally.rows == 1000


def test_an_empty_tally_reports_zeros() -> None:
    tally = Tally(("a",))
    assert (tally.accuracy, tally.transfer_recall, tally.percentile(0.5)) == (0, 0, 0)
    assert tally.scores() == []
