"""Reading a labelled corpus (CSV or JSONL: `text`, `agent`, optional `from`, `context`) as a
stream of rows, each bad row reported as a located `Issue` instead of an exception.

A row may carry several labels (a JSON list, or names joined by `|`): `several` says what
becomes of it: `first` (its first label is its agent), `skip` (left out), or `any` (its
first label is its agent and the others are right too, for evaluation).

Streams line by line (bounded memory whatever the file size). It checks names against the
agents it is given (`corpus_issues`: every issue of a file, for `handoff check`); it never
routes.
"""

from __future__ import annotations

import csv
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from engine.config.validate import suggest
from engine.errors import UsageError
from engine.evaluation.reading import (
    MAX_LINE,
    MAX_ROW_LINES,
    Lines,
    RowTooLong,
    csv_error,
    read_json,
)
from engine.issues import Issue

MAX_ISSUES = 100
"""Bad rows reported one by one; past that they are only counted."""
CORPUS_SUFFIXES = (".csv", ".jsonl", ".ndjson")
"""The file names a corpus is known by (the console's upload and shipped corpora, `check`)."""
REQUIRED = ("text", "agent")
LABEL_COLUMNS = ("agent", "label", "intent", "category")
"""Where a row's label is read from: the first of these columns (or JSON fields) present."""
CODES = {
    "corpus-encoding": "a line that is not valid UTF-8",
    "corpus-too-long": "a line longer than the limit",
    "corpus-columns": "a required column is missing, or a row has the wrong number of fields",
    "corpus-empty": "a row with an empty text or agent",
    "corpus-syntax": "a line that is not valid CSV or JSON",
    "corpus-unknown-agent": "an agent or sender that the config does not declare",
    "corpus-context": "a context that is not a JSON object",
    "corpus-unknown-label": "a label the label map (`--labels`) does not map to an agent",
    "corpus-more": "more bad rows than are listed one by one (`handoff check`)",
}


SEVERAL = ("first", "skip", "any")
"""What becomes of a row with several labels (see the module docstring)."""


@dataclass(frozen=True, slots=True)
class Row:
    """One labelled request: where it is (`line`), its text, expected agent, sender, context."""

    line: int
    text: str
    agent: str
    sender: str
    context: Mapping[str, Any] = field(default_factory=dict)
    also: tuple[str, ...] = ()
    """The row's other labels' agents (policy `any`): a route to one of them is right too."""

    def expected(self, predicted: str | None) -> str:
        """The agent a route to `predicted` is scored against: `predicted` itself when it is
        one of the row's other labels, else the row's agent."""
        return predicted if predicted is not None and predicted in self.also else self.agent


class CorpusReader:
    """Rows of one corpus file. Reading goes on after a bad row: `bad_rows` counts them and
    `issues` holds the first `MAX_ISSUES`, located. Rows without `from` come from `entry`;
    names are checked against `agents` (None: not checked, there is no set to ask)."""

    def __init__(
        self, path: str | Path, *, agents: Collection[str] | None, entry: str,
        labels: Mapping[str, str] | None = None, several: str = "first",
    ) -> None:
        if several not in SEVERAL:
            raise UsageError(f"several must be one of {', '.join(SEVERAL)}, not {several!r}")
        self.path = Path(path)
        self.agents, self.entry, self.labels, self.several = agents, entry, labels, several
        self.issues: list[Issue] = []
        self.bad_rows = 0
        self.several_rows = 0
        """Rows labelled with several agents (kept or left out by `several`)."""
        if not self.path.is_file():
            raise UsageError(f"corpus {str(path)!r} is not a readable file")

    def __iter__(self) -> Iterator[Row]:
        with self.path.open("rb") as stream:
            lines = Lines(stream, self._issue)
            if _is_jsonl(self.path, stream):
                yield from self._jsonl(lines)
            else:
                yield from self._csv(lines)

    def _issue(self, line: int, code: str, message: str) -> None:
        self.bad_rows += 1
        if len(self.issues) < MAX_ISSUES:
            self.issues.append(Issue(str(self.path), line, 0, "", code, message))

    def _csv(self, lines: Lines) -> Iterator[Row]:
        reader = csv.reader(lines, strict=True)
        try:
            header = [name.strip().lower() for name in next(reader, [])]
        except (csv.Error, RowTooLong) as error:
            self._issue(1, "corpus-syntax", f"the header is not valid CSV: {csv_error(error)}")
            return
        missing = [name for name in REQUIRED if name not in _columns(header)]
        if missing:
            names = ", ".join(map(repr, missing))
            self._issue(1, "corpus-columns", f"missing column(s) {names}; the header must "
                        "name at least 'text' and 'agent' (or 'label', 'intent', 'category') "
                        f"(got {header})")
            return
        opened: int | None = None  # where a quoted text was taken for a stray quote
        while True:
            lines.start_row()
            try:
                fields = next(reader)
            except StopIteration:
                return
            except (csv.Error, RowTooLong) as error:
                reader, opened = self._broken_row(lines, error)
                continue
            if lines.spoiled:  # a line of a quoted text was bad: reported, the row left out
                continue
            if opened is not None and lines.quotes() % 2:  # where that text really ended
                self._issue(lines.row_start, "corpus-syntax", "a quote in a field that is not "
                            f"quoted: the end of the quoted text opened on line {opened}?")
                opened = None
                continue
            row = self._csv_row(lines.row_start, header, fields)
            if row is not None:
                yield row

    def _broken_row(self, lines: Lines, error: Exception) -> tuple[Any, int | None]:
        """Report the row that starts at `lines.row_start` and go past it: past the end of
        its quoted text when it is only too long, else to its next line (a stray quote must
        not swallow the rows after it). A new reader, in a clean state, for what follows,
        and the line of a quote taken for a stray one (None when there is none)."""
        start = lines.row_start
        if isinstance(error, RowTooLong) and lines.number - start < MAX_ROW_LINES \
                and lines.skip_quoted_rest():
            self._issue(start, "corpus-too-long",
                        f"row is longer than {MAX_LINE} bytes; skipped")
            return csv.reader(lines, strict=True), None
        self._issue(start, "corpus-syntax", f"not valid CSV: {csv_error(error)}")
        lines.restart_after(start)
        return csv.reader(lines, strict=True), start if isinstance(error, RowTooLong) else None

    def _csv_row(self, line: int, header: list[str], fields: list[str]) -> Row | None:
        if not fields or fields == [""]:
            return None  # a blank line, or a line skipped for its bytes
        if len(fields) != len(header):
            self._issue(line, "corpus-columns",
                        f"expected {len(header)} field(s) as in the header, got {len(fields)}")
            return None
        values = dict(zip(header, fields, strict=True))
        context: Any = {}
        if values.get("context", "").strip():
            context, wrong = read_json(values["context"])
            if wrong:
                self._issue(line, "corpus-context", f"context is not valid JSON: {wrong}")
                return None
        return self._row(line, values, context)

    def _jsonl(self, lines: Lines) -> Iterator[Row]:
        for text in lines.one_per_row():
            if not text.strip():
                continue
            values, wrong = read_json(text)
            if wrong and lines.number == 1 and text.strip() in ("{", "["):
                self._issue(1, "corpus-syntax", "not valid JSON Lines: the file looks like one "
                            "JSON document over many lines; a corpus holds one JSON object per "
                            "line, each with 'text' and 'agent' (or write it as CSV)")
                return
            if wrong:
                self._issue(lines.number, "corpus-syntax", f"not valid JSON: {wrong}")
                continue
            if not isinstance(values, dict):
                self._issue(lines.number, "corpus-syntax", "a line must hold a JSON object")
                continue
            missing = [name for name in REQUIRED if name not in _columns(values)]
            if missing:
                self._issue(lines.number, "corpus-columns",
                            f"missing field(s) {', '.join(map(repr, missing))}")
                continue
            row = self._row(lines.number, values, values.get("context") or {})
            if row is not None:
                yield row

    def _row(self, line: int, values: Mapping[str, Any], context: Any) -> Row | None:
        text = values.get("text")
        label = next((values[name] for name in LABEL_COLUMNS if name in values), None)
        sender = values.get("from") or self.entry
        labels = _labels(label)
        if not isinstance(text, str) or labels is None or not isinstance(sender, str):
            self._issue(line, "corpus-syntax", "'text' and 'from' must be strings, 'agent' a "
                        "string or a list of strings")
            return None
        if not text.strip() or not all(labels):
            what = "text" if not text.strip() else "agent"
            self._issue(line, "corpus-empty", f"empty {what}")
            return None
        agents = self._agents(line, labels)
        if agents is None or not self._known(line, sender.strip(), "sender ('from')"):
            return None
        if not isinstance(context, dict):
            self._issue(line, "corpus-context", "context must be a JSON object")
            return None
        if len(agents) > 1:
            self.several_rows += 1
            if self.several == "skip":
                return None
        also = agents[1:] if self.several == "any" else ()
        return Row(line, text, agents[0], sender.strip(), context, also)

    def _agents(self, line: int, labels: list[str]) -> tuple[str, ...] | None:
        """The row's labels as agents (through the label map), each once, in order."""
        found = []
        for label in labels:
            agent = label if self.labels is None else self.labels.get(label)
            if agent is None:
                hint = suggest(label, self.labels or {})
                self._issue(line, "corpus-unknown-label",
                            f"label {label!r} is not in the label map{hint}")
                return None
            if not self._known(line, agent, "agent"):
                return None
            found.append(agent)
        return tuple(dict.fromkeys(found))

    def _known(self, line: int, name: str, what: str) -> bool:
        if self.agents is None or name in self.agents:
            return True
        hint = suggest(name, self.agents)
        self._issue(line, "corpus-unknown-agent",
                    f"{what} {name!r} is not an agent of the config{hint}")
        return False


def _labels(value: Any) -> list[str] | None:
    """A row's labels, stripped: a JSON list of strings or names joined by `|`; None when it
    is neither."""
    if isinstance(value, str):
        return [part.strip() for part in value.split("|")]
    if isinstance(value, list) and value and all(isinstance(part, str) for part in value):
        return [part.strip() for part in value]
    return None


def corpus_issues(
    path: str | Path, *, agents: Collection[str] | None, entry: str = ""
) -> list[Issue]:
    """Every bad row of the corpus at `path` (a regular file), located by line: its shape,
    its bytes and, unless `agents` is None, the agent and sender each row names. Past
    `MAX_ISSUES` one more issue counts the rest."""
    reader = CorpusReader(path, agents=agents, entry=entry)
    try:
        for _row in reader:
            pass
    except OSError as error:
        return [Issue(str(path), 0, 0, "", "unreadable", f"cannot read the corpus: {error}")]
    issues = list(reader.issues)
    if reader.bad_rows > len(issues):
        more = reader.bad_rows - len(issues)
        issues.append(Issue(str(path), 0, 0, "", "corpus-more",
                            f"{more} more bad row(s) not listed (the first {MAX_ISSUES} are)"))
    return issues


def _columns(names: Collection[str]) -> set[str]:
    """The required names a header or object holds, any label column counting as `agent`."""
    found = set(names)
    if found & set(LABEL_COLUMNS):
        found.add("agent")
    return found


def _is_jsonl(path: Path, stream: IO[bytes]) -> bool:
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        return True
    if path.suffix.lower() == ".csv":
        return False
    head = stream.peek(64) if hasattr(stream, "peek") else b""
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{")
