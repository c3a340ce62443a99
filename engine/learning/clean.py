"""Cleaning a labelled corpus before learning from it, by documented rules, each counted and
sampled for the report; what it keeps can always be written into a valid set:

- text: line breaks, tabs and other control or separator characters become spaces, runs of
  spaces one, and a text longer than an example may be is cut at a word;
- junk: a text with no word once normalized is skipped;
- duplicates: texts with the same words (in any order, repeats ignored) count once per agent;
- conflicts: such texts labelled with several agents keep the label most rows give them, and
  are skipped when two labels tie;
- the set itself wins: a text that is already an example of another agent is skipped, one that
  is already an example of its own agent is not added again.

Pure over rows and a snapshot; nothing here routes or writes.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from engine.evaluation.corpus import Row
from engine.routing.examples import agent_examples
from engine.routing.snapshot import Snapshot

LONGEST = 500
"""The longest example a set may hold (the schemas' `maxLength`)."""
SAMPLES = 3
"""Rows quoted per reason in the report."""
REASONS = {
    "cut": "longer than an example may be: cut at a word",
    "no-words": "no word once normalized: skipped",
    "duplicate": "the same words as an earlier row of the same agent: counted once",
    "conflict": "the same words as rows of another agent: the label most rows give kept",
    "tie": "the same words as as many rows of another agent: skipped",
    "set-conflict": "already an example of another agent in the set: skipped",
    "known": "already an example of its own agent in the set: not added again",
}


@dataclass(slots=True)
class Report:
    """How many rows each rule touched (see `REASONS`), and a few of them each."""

    counts: Counter[str] = field(default_factory=Counter)
    samples: dict[str, list[tuple[int, str]]] = field(default_factory=dict)

    def note(self, reason: str, row: Row) -> None:
        self.counts[reason] += 1
        found = self.samples.setdefault(reason, [])
        if len(found) < SAMPLES:
            found.append((row.line, row.text))


def plain_text(text: str) -> str:
    """`text` on one line: control and separator characters as spaces, runs of spaces one."""
    # isprintable() is False exactly for a character of those categories other than " "
    spaced = text if text.isprintable() else "".join(
        " " if unicodedata.category(ch)[0] in "CZ" else ch for ch in text)
    return " ".join(spaced.split())


def _cut(text: str) -> str:
    if len(text) <= LONGEST:
        return text
    head = text[:LONGEST]
    return head.rsplit(" ", 1)[0] if " " in head else head


Key = tuple[str, ...]


def clean(rows: Iterable[Row], snapshot: Snapshot) -> tuple[list[Row], Report]:
    """The rows worth learning from (in corpus order) and what the rules did to the rest."""
    report = Report()
    tokens = snapshot.keyword_index.normalizer.tokens
    owners = _set_owners(snapshot)
    firsts: dict[tuple[Key, str], Row] = {}
    labels: dict[Key, Counter[str]] = {}
    for row in rows:
        text = plain_text(row.text)
        if len(text) > LONGEST:
            report.note("cut", row)
            text = _cut(text)
        key = tuple(sorted(set(tokens(text))))
        if not key:
            report.note("no-words", row)
            continue
        if not _fits_the_set(row, key, owners, report):
            continue
        if (key, row.agent) in firsts:
            report.note("duplicate", row)
        else:
            firsts[key, row.agent] = replace(row, text=text)
        labels.setdefault(key, Counter())[row.agent] += 1
    return _resolved(firsts, labels, report), report


def _fits_the_set(row: Row, key: Key, owners: dict[Key, set[str]], report: Report) -> bool:
    owner = owners.get(key)
    if owner is None:
        return True
    report.note("known" if row.agent in owner else "set-conflict", row)
    return False


def _resolved(
    firsts: dict[tuple[Key, str], Row], labels: dict[Key, Counter[str]], report: Report
) -> list[Row]:
    kept = []
    for (key, agent), row in firsts.items():
        counts = labels[key]
        if len(counts) == 1:
            kept.append(row)
            continue
        (top, most), (_, second) = counts.most_common(2)
        if most == second:
            report.note("tie", row)
        elif agent == top:
            kept.append(row)
        else:
            report.note("conflict", row)
    kept.sort(key=lambda row: row.line)
    return kept


def _set_owners(snapshot: Snapshot) -> dict[Key, set[str]]:
    """The words of every example the set declares -> the agents it is an example of."""
    tokens = snapshot.keyword_index.normalizer.tokens
    owners: dict[Key, set[str]] = {}
    config = snapshot.config
    for text, agent, _group in agent_examples(config.agents.values(), config.capabilities):
        owners.setdefault(tuple(sorted(set(tokens(text)))), set()).add(agent)
    return owners


def count_rows(rows: Sequence[Row]) -> Counter[str]:
    """Rows per agent."""
    return Counter(row.agent for row in rows)
