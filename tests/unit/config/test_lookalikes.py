"""Names and keywords that read alike but are not the same: a second agent `cIaims` (capital I)
beside `claims`, a trigger or capability that differs only in case, a keyword spelt with a
Cyrillic letter or holding a zero-width character. Each is a located issue naming both
spellings; an invisible character is refused wherever a keyword or tool name holds one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.config import lookalikes
from engine.config.skeleton import DEFAULT_IGNORABLE, invisible, lookalike_keys
from engine.errors import ConfigError
from engine.loading.incremental.loader import load_again
from engine.loading.incremental.memory import ReloadMemory
from engine.loading.loader import check_paths, load_config
from tests.unit.config.helpers import ENGINE, config_set

Write = Callable[[dict[str, str]], Path]
ENTRY = "name: a\nhandoff: {is_entry_point: true, trigger: go_a}\npeers: '*'\n"


def desk(name: str, trigger: str | None = None, extra: str = "") -> str:
    handoff = f"handoff: {{trigger: {trigger}}}\n" if trigger else ""
    return f"name: {name}\nterminal: true\n{handoff}{extra}"


def found(root: Path) -> list[tuple[str, str, int, int, str]]:
    return [(i.code, Path(i.file).name, i.line, i.col, i.json_path)
            for i in check_paths([root]).issues]


def alike(a: str, b: str) -> bool:
    return any(x == y for x, y in zip(lookalike_keys(a), lookalike_keys(b), strict=True))


@pytest.mark.parametrize(
    ("first", "second"),
    [("claims", "cIaims"), ("claims", "CIaims"), ("fraud_agent", "Fraud_agent"),
     ("orders", "0rders"), ("billing", "biIling"), ("mail", "rnail"), ("agent1", "AGENTl"),
     ("fraud", "fr\u0430ud"), ("card", "c\u0430rd"), ("card", "card\u200b"),
     ("stolen-card", "stolen\u2013card"), ("\uff43ard", "card")],
)
def test_spellings_that_read_alike_share_a_key(first: str, second: str) -> None:
    assert alike(first, second)


@pytest.mark.parametrize(
    ("first", "second"),
    [("mail", "mall"), ("modem", "model"), ("claims", "claim"), ("fraud", "fraud_agent"),
     ("card", "cart"), ("caf\u00e9", "cafe")],
)
def test_different_words_do_not(first: str, second: str) -> None:
    assert not alike(first, second)


NAME = st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True)
IGNORABLE = st.sampled_from([chr(low) for low, _ in DEFAULT_IGNORABLE] +
                            [chr(high) for _, high in DEFAULT_IGNORABLE])


@given(NAME, st.integers(0, 13), IGNORABLE)
def test_an_invisible_character_or_a_case_change_never_makes_another_name(
    name: str, at: int, char: str
) -> None:
    at = min(at, len(name))
    twin = name[:at] + char + name[at:]
    assert alike(name, twin) and alike(name, name.upper()) and alike(name, name.title())
    assert invisible(twin) == [(at, char)]


@given(st.text(max_size=30))
def test_any_text_has_keys(text: str) -> None:
    folded, mapped = lookalike_keys(text)
    assert lookalike_keys(folded) == (folded, folded)
    assert lookalike_keys(mapped)[1] == mapped


@pytest.mark.parametrize(
    ("first", "second"), [("claims", "cIaims"), ("fraud_agent", "Fraud_agent")]
)
def test_lookalike_agent_names_are_an_error_naming_both(
    write_files: Write, first: str, second: str
) -> None:
    """Reachable (the entry's peers are '*'), so no reachability warning gives them away."""
    root = config_set(write_files, {"a": ENTRY, "b": desk(first), "c": desk(second)})
    assert found(root) == [("lookalike-name", "c.yaml", 1, 7, "$.name")]
    message = check_paths([root]).issues[0].message
    assert repr(first) in message and repr(second) in message and "b.yaml:1" in message


def test_lookalike_triggers_are_an_error(write_files: Write) -> None:
    agents = {"a": ENTRY, "b": desk("b", "go_claims"), "c": desk("c", "go_cIaims"),
              "d": desk("d", extra="handoff_trigger: GO_CLAIMS\n")}
    root = config_set(write_files, agents)
    assert found(root) == [
        ("lookalike-name", "c.yaml", 3, 20, "$.handoff.trigger"),
        ("deprecated-key", "d.yaml", 3, 1, "$.handoff_trigger"),
        ("lookalike-name", "d.yaml", 3, 18, "$.handoff_trigger"),
    ]


def test_lookalike_capability_names_are_an_error(write_files: Write) -> None:
    root = config_set(write_files, {"a": ENTRY})
    (root / "capabilities.yaml").write_text(
        "capabilities:\n  billing: {keywords: [bill]}\n  biIling: {keywords: [invoice]}\n",
        encoding="utf-8")
    assert found(root) == [("lookalike-name", "capabilities.yaml", 3, 3,
                            "$.capabilities.biIling")]


RULE = "  - {{id: {id}, priority: {priority}, when: {{keywords: {{any: [{word}]}}}}, to: {to}}}\n"


def routing(*rules: tuple[str, int, str, str]) -> str:
    return "rules:\n" + "".join(
        RULE.format(id=id_, priority=priority, word=word, to=to)
        for id_, priority, word, to in rules)


@pytest.mark.parametrize(
    "char", ["\u200b", "\u200c", "\u200d", "\u00ad", "\u2060", "\ufeff", "\u202e", "\u2066",
             "\ufe0f", "\U000e0041", "\u180e"]
)
def test_an_invisible_character_in_a_keyword_is_refused_where_it_is(
    write_files: Write, char: str
) -> None:
    """`card<U+200B>` routes as `card`: a twin of another rule's keyword that no one sees."""
    rules = routing(("twin", 10, f'"card{char}"', "b"), ("cards", 10, "card", "c"))
    root = config_set(write_files, {"a": ENTRY, "b": desk("b"), "c": desk("c")}, routing=rules)
    assert found(root) == [
        ("invisible-character", "routing.yaml", 2, 54, "$.rules[0].when.keywords.any[0]"),
        ("shadowed-rule", "routing.yaml", 3, 5, "$.rules[1]"),  # the twin answers first
    ]
    message = check_paths([root]).issues[0].message
    assert f"U+{ord(char):04X}" in message and "character 5" in message


def test_an_invisible_character_in_a_capability_keyword_or_a_rules_tool_is_refused(
    write_files: Write,
) -> None:
    rules = "rules:\n  - {id: t, when: {tool: [\"go_\\u200bb\"]}, to: b}\n"
    root = config_set(write_files, {"a": ENTRY, "b": desk("b")}, routing=rules)
    (root / "capabilities.yaml").write_text(
        'capabilities:\n  alpha: {keywords: [first], synonyms: ["fi\\u00adrst"]}\n',
        encoding="utf-8")
    assert found(root) == [
        ("invisible-character", "capabilities.yaml", 2, 41, "$.capabilities.alpha.synonyms[0]"),
        # a tool name is what model APIs accept: its schema refuses any other character
        ("schema", "routing.yaml", 2, 27, "$.rules[0].when.tool[0]"),
    ]
    assert "a tool name is 1 to 64 letters" in check_paths([root]).issues[1].message


def test_twin_keywords_that_route_alike_are_a_shadowed_rule(write_files: Write) -> None:
    """`Card` and `card` match the same words: the later rule never fires."""
    rules = routing(("upper", 10, "Card", "b"), ("lower", 10, "card", "c"))
    root = config_set(write_files, {"a": ENTRY, "b": desk("b"), "c": desk("c")}, routing=rules)
    assert found(root) == [("shadowed-rule", "routing.yaml", 3, 5, "$.rules[1]")]


def test_lookalike_keywords_that_route_differently_are_a_warning(write_files: Write) -> None:
    """`Fraud` and `fraud` match the same words (no issue); `frаud` with a Cyrillic а looks
    the same to a reviewer but matches only text written with that letter."""
    rules = routing(("latin", 10, "fraud", "b"), ("cyrillic", 20, "fr\u0430ud", "c"))
    root = config_set(write_files, {"a": ENTRY, "b": desk("b"), "c": desk("c")}, routing=rules)
    (root / "capabilities.yaml").write_text("capabilities:\n  alpha: {keywords: [Fraud]}\n",
                                            encoding="utf-8")
    assert found(root) == [("lookalike-keyword", "routing.yaml", 3, 58,
                            "$.rules[1].when.keywords.any[0]")]
    message = check_paths([root]).issues[0].message
    assert "'fr\\u0430ud'" in message and "'Fraud'" in message and "capabilities.yaml:2" in message
    assert load_config(root).warnings == check_paths([root]).issues


@pytest.mark.parametrize("word", ["'!!!'", "'\u2764'", "'--'", "err", "'you know'"])
def test_a_keyword_with_no_word_left_is_refused(write_files: Write, word: str) -> None:
    """Once normalized it is nothing, and a rule keyword of nothing matches every text."""
    rules = routing(("empty", 10, word, "b"))
    root = config_set(write_files, {"a": ENTRY, "b": desk("b")}, routing=rules)
    assert found(root) == [("empty-keyword", "routing.yaml", 2, 55,
                            "$.rules[0].when.keywords.any[0]")]


def test_a_filler_is_a_word_where_disfluencies_are_kept(write_files: Write) -> None:
    engine = ENGINE + "normalization: {disfluencies: false}\n"
    rules = routing(("err", 10, "err", "b"))
    root = config_set(write_files, {"a": ENTRY, "b": desk("b")}, routing=rules, engine=engine)
    assert found(root) == []


def test_a_reload_skips_names_that_were_clean_and_are_unchanged(
    write_files: Write, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = config_set(write_files, {"a": ENTRY, "b": desk("b", "go_b"), "c": desk("c")})
    memory = ReloadMemory()
    load_again(memory, root)
    seen: list[str] = []

    def counted(text: str) -> tuple[str, str]:
        seen.append(text)
        return lookalike_keys(text)

    monkeypatch.setattr(lookalikes, "lookalike_keys", counted)
    (root / "routing.yaml").write_text("rules: []\nfallback: a\n", encoding="utf-8")
    load_again(memory, root)
    assert sorted(seen) == ["first", "second"]  # the keywords only: no name changed
    (root / "agents" / "c.yaml").write_text(desk("B"), encoding="utf-8")
    with pytest.raises(ConfigError) as error:
        load_again(memory, root)
    assert [i.code for i in error.value.issues] == ["lookalike-name"]
