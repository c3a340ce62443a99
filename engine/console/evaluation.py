"""The eval page's work: take an uploaded corpus (size-capped), run `handoff eval`'s own
evaluation on it or on a shipped one (`corpora`) and shape the report for tables and a chart.

Uploads go to a private temporary file that is removed after the run; nothing else is written.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from engine.console.charts import agent_scores
from engine.errors import UsageError
from engine.evaluation.corpus import CORPUS_SUFFIXES, CorpusReader
from engine.evaluation.metrics import AgentScore
from engine.evaluation.report import Report, summary
from engine.evaluation.run import Miss, evaluate
from engine.routing.router import Router

MAX_UPLOAD_BYTES = 8 * 1024 * 1024
"""The largest corpus the eval page accepts by upload (the server's default)."""
WORST = 15


class UploadTooLarge(UsageError):
    """An uploaded corpus over the size cap."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(f"the corpus is larger than the upload limit ({limit} bytes)")


async def save_upload(chunks: AsyncIterator[bytes], *, filename: str, limit: int) -> Path:
    """Write an uploaded body to a private temporary file, stopping at `limit` bytes."""
    suffix = Path(filename).suffix.lower()
    handle, name = tempfile.mkstemp(prefix="handoff-corpus-",
                                    suffix=suffix if suffix in CORPUS_SUFFIXES else ".txt")
    size = 0
    try:
        with os.fdopen(handle, "wb") as out:
            async for chunk in chunks:
                size += len(chunk)
                if size > limit:
                    raise UploadTooLarge(limit)
                out.write(chunk)
    except BaseException:
        os.unlink(name)
        raise
    return Path(name)


@dataclass(frozen=True, slots=True)
class EvalView:
    """What the eval page shows: the summary, per-agent scores, the confusion matrix (rows
    expected, columns routed), wrong transfers by cause, the worst misses and bad rows."""

    corpus: str
    summary: dict[str, object]
    correct: int
    scores: list[AgentScore]
    names: list[str]
    matrix: list[list[int]]
    peak: int
    causes: list[tuple[int, int, str, str, str]]
    misses: list[Miss]
    bad_rows: list[str]
    bad_count: int
    chart: str


def run_eval(router: Router, path: Path, *, label: str) -> EvalView:
    """Route every row of the corpus at `path` with the same code as `handoff eval`; a
    `UsageError` when it holds no rows at all, as `handoff eval` refuses it."""
    snapshot = router.snapshot
    agents = tuple(snapshot.agents)
    reader = CorpusReader(path, agents=agents, entry=snapshot.config.engine.entry)
    evaluation = evaluate(router, reader, agents=agents, worst=WORST)
    if evaluation.tally.rows == 0 and not reader.bad_rows:  # bad rows get a report instead
        raise UsageError(f"{label}: no rows to evaluate")
    report = Report(label, evaluation, tuple(reader.issues), (), reader.bad_rows)
    tally = evaluation.tally
    scores = tally.scores()
    names = [score.agent for score in scores]
    matrix = [[tally.confusion[truth, guess] for guess in names] for truth in names]
    causes = sorted(evaluation.wrong.items(), key=lambda item: (-item[1], item[0]))[:15]
    return EvalView(
        corpus=label,
        summary=summary(evaluation),
        correct=tally.correct,
        scores=scores,
        names=names,
        matrix=matrix,
        peak=max((max(row) for row in matrix), default=0),
        causes=[(count, evaluation.false[key], *key) for key, count in causes],
        misses=evaluation.misses(),
        bad_rows=[f"line {i.line}: {i.code}: {i.message}" for i in report.issues],
        bad_count=report.bad_rows,
        chart=agent_scores(scores) if scores else "",
    )
