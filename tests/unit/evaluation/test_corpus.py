"""Reading labelled corpora: CSV and JSONL rows, and every kind of bad row located by line."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import UsageError
from engine.evaluation.corpus import MAX_ISSUES, MAX_LINE, CorpusReader, corpus_issues

AGENTS = ("concierge", "fraud_agent", "claims")


def read(tmp_path: Path, name: str, data: bytes) -> tuple[list, list]:  # type: ignore[type-arg]
    path = tmp_path / name
    path.write_bytes(data)
    reader = CorpusReader(path, agents=AGENTS, entry="concierge")
    rows = list(reader)
    return rows, [(i.line, i.code, i.message) for i in reader.issues]


def test_csv_rows_with_optional_sender_and_context(tmp_path: Path) -> None:
    data = (b'\xef\xbb\xbftext,agent,from,context\n'
            b'"my card, it was stolen",fraud_agent,,\n'
            b'claim it,claims,fraud_agent,"{""tier"": ""gold""}"\n\n')
    rows, issues = read(tmp_path, "c.csv", data)
    assert issues == []
    assert [(r.line, r.text, r.agent, r.sender) for r in rows] == [
        (2, "my card, it was stolen", "fraud_agent", "concierge"),
        (3, "claim it", "claims", "fraud_agent")]
    assert rows[1].context == {"tier": "gold"}


def test_jsonl_rows(tmp_path: Path) -> None:
    data = (b'{"text": "lost my card", "agent": "fraud_agent"}\n\n'
            b'{"text": "hi", "agent": "claims", "from": "fraud_agent", "context": {"n": 1}}\n')
    rows, issues = read(tmp_path, "c.jsonl", data)
    assert issues == [] and [r.line for r in rows] == [1, 3]
    assert rows[1].context == {"n": 1}


def test_missing_columns_stop_a_csv_at_its_header(tmp_path: Path) -> None:
    rows, issues = read(tmp_path, "c.csv", b"text,topic\nhello,claims\n")
    assert rows == [] and issues[0][:2] == (1, "corpus-columns")
    assert "'agent'" in issues[0][2]


@pytest.mark.parametrize("column", ["label", "intent", "category"])
def test_a_label_column_by_another_common_name_is_read(tmp_path: Path, column: str) -> None:
    rows, issues = read(tmp_path, "c.csv", f"text,{column}\nhello,claims\n".encode())
    assert [row.agent for row in rows] == ["claims"] and issues == []


def test_a_label_map_turns_labels_into_agents_and_locates_the_unmapped(tmp_path: Path) -> None:
    from engine.evaluation.corpus import CorpusReader

    path = tmp_path / "c.csv"
    path.write_bytes(b"text,category\nmy card is gone,lost_card\nhi,chit_chat\nwho,nobody\n")
    reader = CorpusReader(path, agents=AGENTS, entry="concierge",
                          labels={"lost_card": "fraud_agent", "chit_chat": "concierge"})
    assert [(row.line, row.agent) for row in reader] == [(2, "fraud_agent"), (3, "concierge")]
    assert [(issue.line, issue.code) for issue in reader.issues] == [
        (4, "corpus-unknown-label")]


def test_bad_rows_are_located_and_skipped(tmp_path: Path) -> None:
    data = (b"text,agent\n"
            b"fine,claims\n"
            b"typo,fraud_agnt\n"
            b",claims\n"
            b"   ,claims\n"
            b"no agent,\n"
            b"bad \xff\xfe bytes,claims\n"
            b"too,many,fields\n"
            b"last,concierge\n")
    rows, issues = read(tmp_path, "c.csv", data)
    assert [r.line for r in rows] == [2, 9]
    assert [(line, code) for line, code, _ in issues] == [
        (3, "corpus-unknown-agent"), (4, "corpus-empty"), (5, "corpus-empty"),
        (6, "corpus-empty"), (7, "corpus-encoding"), (8, "corpus-columns")]
    assert "did you mean 'fraud_agent'" in issues[0][2]
    assert "0xff at column 5" in issues[4][2]


def test_bad_jsonl_lines(tmp_path: Path) -> None:
    data = (b'{"text": "x"}\n'
            b'[1, 2]\n'
            b'{"text": "x", "agent": "claims", "context": "tier=gold"}\n'
            b'{"text": 3, "agent": "claims"}\n'
            b'{not json\n'
            b'{"text": "x", "agent": "claims", "from": "nobody"}\n')
    rows, issues = read(tmp_path, "c.jsonl", data)
    assert rows == []
    assert [code for _, code, _ in issues] == [
        "corpus-columns", "corpus-syntax", "corpus-context", "corpus-syntax", "corpus-syntax",
        "corpus-unknown-agent"]


def test_an_overlong_line_is_skipped_not_read_whole(tmp_path: Path) -> None:
    data = b"text,agent\n" + b"x" * (MAX_LINE * 3) + b",claims\nok,claims\n"
    rows, issues = read(tmp_path, "c.csv", data)
    assert [r.text for r in rows] == ["ok"]
    assert issues[0][:2] == (2, "corpus-too-long")


def test_issues_are_capped_but_counted(tmp_path: Path) -> None:
    path = tmp_path / "c.csv"
    path.write_bytes(b"text,agent\n" + b"x,nobody\n" * (MAX_ISSUES * 3))
    reader = CorpusReader(path, agents=AGENTS, entry="concierge")
    assert list(reader) == []
    assert len(reader.issues) == MAX_ISSUES and reader.bad_rows == MAX_ISSUES * 3


def test_corpus_issues_lists_every_bad_row_and_counts_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "c.csv"
    path.write_bytes(b"text,agent\n" + b"x,nobody\n" * (MAX_ISSUES + 5))
    issues = corpus_issues(path, agents=AGENTS, entry="concierge")
    assert [i.code for i in issues] == ["corpus-unknown-agent"] * MAX_ISSUES + ["corpus-more"]
    assert issues[0].line == 2 and "5 more bad row(s)" in issues[-1].message


def test_without_agents_only_the_rows_shape_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"text": "hi", "agent": "anyone", "from": "someone"}\n{"text": ""}\n')
    assert [(i.line, i.code) for i in corpus_issues(path, agents=None)] == [
        (2, "corpus-columns")]


def test_a_missing_corpus_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not a readable file"):
        CorpusReader(tmp_path / "nope.csv", agents=AGENTS, entry="concierge")


def test_format_is_sniffed_without_a_known_suffix(tmp_path: Path) -> None:
    rows, _ = read(tmp_path, "c.txt", b'{"text": "x", "agent": "claims"}\n')
    assert [r.agent for r in rows] == ["claims"]
    rows, _ = read(tmp_path, "d.txt", b"text,agent\nx,claims\n")
    assert [r.agent for r in rows] == ["claims"]


def test_label_maps_are_read_flat_or_under_intents_and_checked(tmp_path: Path) -> None:
    from engine.errors import UsageError
    from engine.evaluation.labels import load_labels

    flat, nested, wrong = (tmp_path / name for name in ("flat.yaml", "nested.yaml", "bad.yaml"))
    flat.write_text("lost_card: fraud_agent\n")
    nested.write_text("entry: concierge\nintents:\n  lost_card: {agent: fraud_agent, alt: x}\n")
    wrong.write_text("lost_card: fraud_agnt\n")
    assert load_labels(flat, agents=AGENTS) == load_labels(nested, agents=AGENTS) == {
        "lost_card": "fraud_agent"}
    with pytest.raises(UsageError, match="did you mean 'fraud_agent'"):
        load_labels(wrong, agents=AGENTS)
    with pytest.raises(UsageError, match="cannot be read"):
        load_labels(tmp_path / "missing.yaml", agents=AGENTS)


SEVERAL_ROWS = (b'{"text": "card stolen, claim it", "agent": ["fraud_agent", "claims"]}\n'
                b'{"text": "hello", "agent": "concierge"}\n'
                b'{"text": "both again", "agent": "claims | fraud_agent | claims"}\n')


@pytest.mark.parametrize(("several", "kept"), [
    ("first", [(1, "fraud_agent", ()), (2, "concierge", ()), (3, "claims", ())]),
    ("skip", [(2, "concierge", ())]),
    ("any", [(1, "fraud_agent", ("claims",)), (2, "concierge", ()),
             (3, "claims", ("fraud_agent",))]),
])
def test_a_row_with_several_labels_follows_the_declared_policy(
    tmp_path: Path, several: str, kept: list[tuple[int, str, tuple[str, ...]]],
) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(SEVERAL_ROWS)
    reader = CorpusReader(path, agents=AGENTS, entry="concierge", several=several)
    assert [(r.line, r.agent, r.also) for r in reader] == kept
    assert reader.several_rows == 2 and reader.bad_rows == 0


def test_several_labels_map_to_agents_once_and_each_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "c.csv"
    path.write_bytes(b"text,intent\nlost it,lost_card|stolen_card\nwho,lost_card|nobody\n"
                     b"empty part,lost_card||\n")
    labels = {"lost_card": "fraud_agent", "stolen_card": "fraud_agent"}
    reader = CorpusReader(path, agents=AGENTS, entry="concierge", labels=labels, several="skip")
    assert [(r.line, r.agent) for r in reader] == [(2, "fraud_agent")]  # one agent: one label
    assert reader.several_rows == 0
    assert [(i.line, i.code) for i in reader.issues] == [(3, "corpus-unknown-label"),
                                                         (4, "corpus-empty")]


def test_a_route_to_any_other_label_is_scored_right() -> None:
    from engine.evaluation.corpus import Row

    row = Row(1, "t", "fraud_agent", "concierge", {}, ("claims",))
    assert row.expected("claims") == "claims"
    assert row.expected("concierge") == row.expected(None) == "fraud_agent"


def test_an_unknown_policy_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "c.csv"
    path.write_bytes(b"text,agent\n")
    with pytest.raises(UsageError, match="several must be one of first, skip, any"):
        CorpusReader(path, agents=AGENTS, entry="concierge", several="all")


def test_json_too_deep_or_too_long_to_read_is_a_located_bad_row(tmp_path: Path) -> None:
    deep = "[" * 5000 + "]" * 5000
    digits = "9" * 5000
    data = (b'{"text": "a", "agent": "claims"}\n'
            + f'{{"text": "b", "agent": "claims", "context": {{"x": {deep}}}}}\n'.encode()
            + f'{{"text": "c", "agent": "claims", "n": {digits}}}\n'.encode())
    rows, issues = read(tmp_path, "c.jsonl", data)
    assert [r.text for r in rows] == ["a"]
    assert issues == [(2, "corpus-syntax", "not valid JSON: nested too deeply"),
                      (3, "corpus-syntax", "not valid JSON: a number with too many digits")]
    context = deep.replace('"', '""')
    rows, issues = read(tmp_path, "c.csv", f'text,agent,context\nb,claims,"{context}"\n'
                        f"ok,claims,\n".encode())
    assert [r.text for r in rows] == ["ok"]
    assert issues == [(2, "corpus-context", "context is not valid JSON: nested too deeply")]


def test_a_stray_quote_loses_its_row_only_and_is_located_where_it_opens(
    tmp_path: Path,
) -> None:
    """Without a bound the quote would run on, swallowing every row up to the next quote or
    the end of the file."""
    good = [f"row {n},claims" for n in range(100)]
    lines = ["text,agent", *good[:10], '"Hello I have a question,claims', *good[10:]]
    rows, issues = read(tmp_path, "c.csv", "\n".join(lines).encode() + b"\n")
    assert [r.text for r in rows] == [f"row {n}" for n in range(100)]
    assert [(line, code) for line, code, _ in issues] == [(12, "corpus-syntax")]
    assert "stray quote" in issues[0][2]
    rows, issues = read(tmp_path, "d.csv", "\n".join(lines[:20]).encode())  # open at the end
    assert [r.text for r in rows] == [f"row {n}" for n in range(18)]
    assert [(line, code) for line, code, _ in issues] == [(12, "corpus-syntax")]


def test_a_quoted_text_with_line_breaks_is_one_row_located_at_its_first_line(
    tmp_path: Path,
) -> None:
    rows, issues = read(tmp_path, "c.csv", b'text,agent\n"my card\n\nnever came",claims\n'
                                           b"next,claims\n")
    assert issues == []
    assert [(r.line, r.text) for r in rows] == [(2, "my card\n\nnever came"), (5, "next")]


def test_a_bad_line_inside_a_quoted_text_leaves_the_whole_row_out(tmp_path: Path) -> None:
    """The bad line is reported and skipped: the row it belongs to is not read without it."""
    data = b'text,agent\n"my card\nnever \xe9 came\nplease help",claims\nnext,claims\n'
    rows, issues = read(tmp_path, "c.csv", data)
    assert [r.text for r in rows] == ["next"]
    assert [(line, code) for line, code, _ in issues] == [(3, "corpus-encoding")]


def test_a_quoted_text_longer_than_the_limit_is_skipped_whole(tmp_path: Path) -> None:
    """Spread over lines each under the line limit: none of its lines becomes a row."""
    part = "x" * (MAX_LINE // 2)
    text = "\n".join([part] * 5)
    data = f'text,agent\nfirst,claims\n"{text} tail",concierge\nlast,claims\n'.encode()
    rows, issues = read(tmp_path, "c.csv", data)
    assert [r.text for r in rows] == ["first", "last"]
    assert [(line, code) for line, code, _ in issues] == [(3, "corpus-too-long")]


def test_line_endings_of_a_lone_cr_are_named(tmp_path: Path) -> None:
    rows, issues = read(tmp_path, "c.csv", b"text,agent\rhello,claims\r")
    assert rows == [] and issues[0][:2] == (1, "corpus-syntax")
    assert "lone CR" in issues[0][2]


def test_one_json_document_over_many_lines_is_named_once_not_line_by_line(
    tmp_path: Path,
) -> None:
    data = b'{\n"train": [\n["hi", "claims"]\n]\n}\n'
    rows, issues = read(tmp_path, "c.jsonl", data)
    assert rows == [] and [(line, code) for line, code, _ in issues] == [(1, "corpus-syntax")]
    assert "one JSON object per line" in issues[0][2]


@pytest.mark.parametrize("name", ["c.jsonl", "c.csv"])
def test_long_files_and_lines_at_the_limit_are_read_whole(tmp_path: Path, name: str) -> None:
    """Many rows of one line each, and a line of exactly `MAX_LINE` bytes and its newline."""
    if name.endswith(".jsonl"):
        lines = [f'{{"text": "row {n}", "agent": "claims"}}' for n in range(500)]
        edge = '{"text": "' + "x" * (MAX_LINE - 31) + '", "agent": "claims"}'
    else:
        lines = ["text,agent", *(f"row {n},claims" for n in range(500))]
        edge = "x" * (MAX_LINE - 7) + ",claims"
    assert len(edge) == MAX_LINE
    rows, issues = read(tmp_path, name, ("\n".join([*lines, edge]) + "\n").encode())
    assert issues == [] and len(rows) == 501 and len(rows[-1].text) > MAX_LINE - 40


def test_a_stray_quote_before_long_rows_loses_none_of_them(tmp_path: Path) -> None:
    """The open quote runs past the byte bound first; every line read looking for its end
    is read again as the rows it is, at its own line."""
    long_rows = [f"row{n} {'x' * 3000},claims" for n in range(40)]
    data = "\n".join(["text,agent", '"Hello I have a question,claims', *long_rows]) + "\n"
    rows, issues = read(tmp_path, "c.csv", data.encode())
    assert [(r.line, r.text.split()[0]) for r in rows] == [
        (n + 3, f"row{n}") for n in range(40)]
    assert [(line, code) for line, code, _ in issues] == [(2, "corpus-syntax")]


def test_a_quoted_text_over_the_line_bound_never_leaves_its_end_as_a_row(
    tmp_path: Path,
) -> None:
    """Its lines are read again as rows (reported), and the line that closes it, which would
    parse as a row with a quote in it, is reported instead of read."""
    text = "\n".join(f"line {n}" for n in range(40))
    data = f'text,agent\nfirst,claims\n"{text}",concierge\nlast,claims\n'
    rows, issues = read(tmp_path, "c.csv", data.encode())
    assert [r.text for r in rows] == ["first", "last"]
    assert issues[0][:2] == (3, "corpus-syntax") and "stray quote" in issues[0][2]
    assert issues[-1][0] == 42 and "end of the quoted text opened on line 3" in issues[-1][2]
