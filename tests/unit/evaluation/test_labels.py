"""Label maps (`--labels`): labels are read as the text they are, and a bad file is named."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import UsageError
from engine.evaluation.labels import load_labels

AGENTS = ("concierge", "fraud_agent", "claims")


def test_labels_that_look_like_numbers_or_null_stay_the_text_they_are(tmp_path: Path) -> None:
    path = tmp_path / "labels.yaml"
    path.write_text("001: concierge\n002: fraud_agent\n1.10: claims\nnull: concierge\n"
                    "true: {agent: claims, note: was 1 == True}\n", encoding="utf-8")
    assert load_labels(path, agents=AGENTS) == {
        "001": "concierge", "002": "fraud_agent", "1.10": "claims", "null": "concierge",
        "true": "claims"}


def test_a_label_map_in_json_is_read_too(tmp_path: Path) -> None:
    path = tmp_path / "labels.json"
    path.write_text('{"intents": {"lost_card": "fraud_agent", "10": "claims"}}', encoding="utf-8")
    assert load_labels(path, agents=AGENTS) == {"lost_card": "fraud_agent", "10": "claims"}


def test_a_broken_label_map_is_named_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "labels.yaml"
    path.write_text("a: concierge\nb: [claims\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r'(?s)cannot be read: .*in ".*labels.yaml", line 2'):
        load_labels(path, agents=AGENTS)


def test_merge_keys_apply_and_an_empty_value_names_no_agent(tmp_path: Path) -> None:
    path = tmp_path / "labels.yaml"
    path.write_text("defaults: &d {agent: claims, note: shared}\ncard_lost: {<<: *d}\n"
                    "balance: {<<: *d, agent: concierge}\n", encoding="utf-8")
    assert load_labels(path, agents=AGENTS) == {
        "defaults": "claims", "card_lost": "claims", "balance": "concierge"}
    path.write_text("balance:\n", encoding="utf-8")
    with pytest.raises(UsageError, match="label 'balance' names no agent"):
        load_labels(path, agents=AGENTS)
