"""Names and keywords of a built set that are not what they show: two spellings that read alike,
a character no one sees, a keyword with no word in it.

`lookalike-name` (error): two agent names, two triggers or two capability names that differ
but read alike (`engine.config.skeleton`); `lookalike-keyword` (warning): two keywords that read
alike but match different words; `invisible-character` (error): a default-ignorable character
in a keyword or a rule's tool; `empty-keyword` (error): a keyword that normalizes to no word (a
rule keyword like it matches every text). Reads models and positions only, never files; the
texts are judged first, and places are looked up only for the few that have an issue.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from engine.config.build import LEGACY_TRIGGER, Locator
from engine.config.codes import issue
from engine.config.models import ConfigSet
from engine.config.positions import Document, PathKey, json_path
from engine.config.skeleton import character_name, invisible, lookalike_keys, shown
from engine.issues import Issue
from engine.text.normalize import normalizer_for

Place = tuple[Document, PathKey, bool]
"""Where a spelling is written: its document, its path, and whether it is the key itself (a
capability's name is the key of its entry)."""
Places = Callable[[ConfigSet, Locator], Iterator[tuple[str, Place]]]


def _at(place: Place, code: str, message: str) -> Issue:
    document, path, key = place
    return issue(document.file, document.locate(path, key=key), json_path(path), code, message)


def _line(place: Place) -> str:
    document, path, key = place
    return f"{document.file}:{document.locate(path, key=key)[0]}"


def _alike(texts: Iterable[str]) -> dict[str, str]:
    """Each distinct text that reads like an earlier, different one -> the first such."""
    folded_first: dict[str, str] = {}
    mapped_first: dict[str, str] = {}
    found = {}
    for text in dict.fromkeys(texts):
        folded, mapped = lookalike_keys(text)
        earlier = folded_first.setdefault(folded, text)
        if earlier == text:
            earlier = mapped_first.setdefault(mapped, text)
        else:
            mapped_first.setdefault(mapped, text)
        if earlier != text:
            found[text] = earlier
    return found


def _trigger_path(document: Document) -> PathKey:
    data = document.data
    legacy = isinstance(data, dict) and LEGACY_TRIGGER in data
    if legacy and "trigger" not in dict(data.get("handoff") or {}):
        return (LEGACY_TRIGGER,)
    return ("handoff", "trigger")


def _agents(config: ConfigSet, locator: Locator) -> Iterator[tuple[str, Place]]:
    for name in config.agents:
        yield name, (locator.agents[name], ("name",), False)


def _triggers(config: ConfigSet, locator: Locator) -> Iterator[tuple[str, Place]]:
    for name, agent in config.agents.items():
        if agent.handoff.trigger is not None:
            document = locator.agents[name]
            yield agent.handoff.trigger, (document, _trigger_path(document), False)


def _capabilities(config: ConfigSet, locator: Locator) -> Iterator[tuple[str, Place]]:
    for name in config.capabilities:
        yield name, (locator.capabilities[name], ("capabilities", name), True)


def _first_places(pairs: Iterable[tuple[str, Place]]) -> dict[str, Place]:
    firsts: dict[str, Place] = {}
    for text, place in pairs:
        firsts.setdefault(text, place)
    return firsts


class _Names(NamedTuple):
    """Every name of a set that must not read like another, in declaration order."""

    agents: tuple[str, ...]
    triggers: tuple[str | None, ...]
    capabilities: tuple[str, ...]


@dataclass(slots=True)
class NameMemo:
    """The names of the last build of a set in which no name read like another: while the
    names stay the same, none does (a reload at 10,000 agents skips 20,000 skeletons)."""

    clean: _Names | None = None


def lookalike_names(
    config: ConfigSet, locator: Locator, *, memo: NameMemo | None = None
) -> list[Issue]:
    """`lookalike-name` at each name that reads like an earlier, different one of its kind;
    `memo` carries the last clean names between builds of the same set."""
    triggers = tuple(agent.handoff.trigger for agent in config.agents.values())
    names = _Names(tuple(config.agents), triggers, tuple(config.capabilities))
    if memo is not None and memo.clean == names:
        return []
    kinds: list[tuple[str, Iterable[str | None], Places]] = [
        ("agent", config.agents, _agents), ("trigger", triggers, _triggers),
        ("capability", config.capabilities, _capabilities),
    ]
    issues = []
    for what, texts, places in kinds:
        flagged = _alike(text for text in texts if text is not None)
        if not flagged:
            continue
        firsts = _first_places(places(config, locator))
        for text, place in places(config, locator):
            earlier = flagged.get(text)
            if earlier is not None:
                message = (f"{what} {shown(text)} reads like {what} {shown(earlier)} "
                           f"({_line(firsts[earlier])}): names must differ in more than case "
                           "or look-alike letters")
                issues.append(_at(place, "lookalike-name", message))
    if memo is not None:
        memo.clean = None if issues else names
    return issues


def _keyword_texts(config: ConfigSet) -> Iterator[str]:
    for capability in config.capabilities.values():
        yield from capability.keywords
        yield from capability.synonyms
    for rule in config.routing.rules:
        yield from rule.when.keywords.any
        yield from rule.when.keywords.all


def _keywords(config: ConfigSet, locator: Locator) -> Iterator[tuple[str, Place]]:
    """Every keyword and synonym of the capabilities, then of the rules, and its place."""
    for name, capability in config.capabilities.items():
        document = locator.capabilities[name]
        for field in ("keywords", "synonyms"):
            for n, word in enumerate(getattr(capability, field)):
                yield word, (document, ("capabilities", name, field, n), False)
    for rule in config.routing.rules:
        document, index = locator.rules[rule.id]
        for field in ("any", "all"):
            for n, word in enumerate(getattr(rule.when.keywords, field)):
                yield word, (document, ("rules", index, "when", "keywords", field, n), False)


def _tools(config: ConfigSet, locator: Locator) -> Iterator[tuple[str, Place]]:
    for rule in config.routing.rules:
        document, index = locator.rules[rule.id]
        for n, tool in enumerate(rule.when.tool):
            yield tool, (document, ("rules", index, "when", "tool", n), False)


def _invisible(what: str, text: str) -> str | None:
    found = invisible(text)
    if not found:
        return None
    index, char = found[0]
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return (f"{what} {shown(text)} holds {character_name(char)} at character {index + 1}"
            f"{more}, which no one sees: it makes a second spelling of a word that looks the "
            "same; remove it")


Problem = tuple[str, str, "str | None"]
"""(code, message, the earlier keyword a look-alike reads like)."""


def _keyword_problems(config: ConfigSet) -> dict[str, Problem]:
    """Keyword text -> its problem, for each distinct keyword that has one."""
    phrase = normalizer_for(config.engine.normalization).phrase
    problems: dict[str, Problem] = {}
    words: dict[str, tuple[str, ...]] = {}
    for text in dict.fromkeys(_keyword_texts(config)):
        hidden = _invisible("keyword", text)
        if hidden is not None:
            problems[text] = ("invisible-character", hidden, None)
        elif not words.setdefault(text, phrase(text)):
            message = (f"keyword {shown(text)} has no word left once normalized (punctuation, "
                       "symbols and filler words are dropped): in a rule it would match every "
                       "text")
            problems[text] = ("empty-keyword", message, None)
    for text, earlier in _alike(text for text in words if words[text]).items():
        if words[text] != words[earlier]:
            message = f"keyword {shown(text)} reads like {shown(earlier)}"
            problems[text] = ("lookalike-keyword", message, earlier)
    return problems


def keyword_issues(config: ConfigSet, locator: Locator) -> list[Issue]:
    """Invisible characters in keywords and tools, keywords with no word, and keywords that
    read like an earlier one but match other words, at every place each is written."""
    issues = []
    if any(invisible(tool) for rule in config.routing.rules for tool in rule.when.tool):
        for tool, place in _tools(config, locator):
            hidden = _invisible("tool", tool)
            if hidden is not None:
                issues.append(_at(place, "invisible-character", hidden))
    problems = _keyword_problems(config)
    if not problems:
        return issues
    firsts = _first_places(_keywords(config, locator))
    for text, place in _keywords(config, locator):
        problem = problems.get(text)
        if problem is None:
            continue
        code, message, earlier = problem
        if earlier is not None:
            message += f" ({_line(firsts[earlier])}) but matches other words"
        issues.append(_at(place, code, message))
    return issues


def lookalikes(config: ConfigSet, locator: Locator, *, memo: NameMemo | None = None
               ) -> list[Issue]:
    """Every issue of this module for a built `config` (`memo`: see `NameMemo`)."""
    return lookalike_names(config, locator, memo=memo) + keyword_issues(config, locator)
