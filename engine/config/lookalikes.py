"""Names and keywords of a built set that are not what they show: two spellings that read alike,
a character no one sees, a keyword with no word in it.

`lookalike-name` (error): two agent names, two triggers or two capability names that differ
but read alike (`engine.config.skeleton`); `lookalike-keyword` (warning): two keywords that read
alike but match different words; `invisible-character` (error): a default-ignorable character
in a keyword or a rule's tool; `empty-keyword` (error): a keyword that normalizes to no word (a
rule keyword like it matches every text). Reads models and positions only, never files.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from engine.config.build import LEGACY_TRIGGER, Locator
from engine.config.codes import issue
from engine.config.models import ConfigSet
from engine.config.positions import Document, PathKey, json_path
from engine.config.skeleton import character_name, invisible, lookalike_keys, shown
from engine.issues import Issue
from engine.routing.normalize import normalizer_for


@dataclass(frozen=True, slots=True)
class _Spelling:
    """One name or keyword as written, and where."""

    text: str
    document: Document
    path: PathKey
    key: bool = False
    """Located at the key itself (a capability's name is the key of its entry)."""

    def where(self) -> str:
        line, _col = self.document.locate(self.path, key=self.key)
        return f"{self.document.file}:{line}"

    def issue(self, code: str, message: str) -> Issue:
        position = self.document.locate(self.path, key=self.key)
        return issue(self.document.file, position, json_path(self.path), code, message)


def _alike(spellings: Iterable[_Spelling]) -> Iterator[tuple[_Spelling, _Spelling]]:
    """Each spelling that reads like an earlier, different one, with the first such."""
    firsts: tuple[dict[str, _Spelling], dict[str, _Spelling]] = ({}, {})
    for spelling in spellings:
        earlier = None
        for table, key in zip(firsts, lookalike_keys(spelling.text), strict=True):
            first = table.setdefault(key, spelling)
            if earlier is None and first.text != spelling.text:
                earlier = first
        if earlier is not None:
            yield spelling, earlier


def _trigger_path(document: Document) -> PathKey:
    data = document.data
    legacy = isinstance(data, dict) and LEGACY_TRIGGER in data
    if legacy and "trigger" not in dict(data.get("handoff") or {}):
        return (LEGACY_TRIGGER,)
    return ("handoff", "trigger")


def _names(config: ConfigSet, locator: Locator) -> dict[str, list[_Spelling]]:
    agents = locator.agents
    return {
        "agent": [_Spelling(name, agents[name], ("name",)) for name in config.agents],
        "trigger": [
            _Spelling(agent.handoff.trigger, agents[name], _trigger_path(agents[name]))
            for name, agent in config.agents.items() if agent.handoff.trigger is not None
        ],
        "capability": [
            _Spelling(name, locator.capabilities[name], ("capabilities", name), key=True)
            for name in config.capabilities
        ],
    }


def lookalike_names(config: ConfigSet, locator: Locator) -> list[Issue]:
    """`lookalike-name` at each name that reads like an earlier, different one of its kind."""
    issues = []
    for what, spellings in _names(config, locator).items():
        for spelling, earlier in _alike(spellings):
            message = (f"{what} {shown(spelling.text)} reads like {what} {shown(earlier.text)} "
                       f"({earlier.where()}): names must differ in more than case or "
                       "look-alike letters")
            issues.append(spelling.issue("lookalike-name", message))
    return issues


def _keywords(config: ConfigSet, locator: Locator) -> Iterator[_Spelling]:
    """Every keyword and synonym of the capabilities, then of the rules, in declaration
    order."""
    for name, capability in config.capabilities.items():
        document = locator.capabilities[name]
        for field in ("keywords", "synonyms"):
            for n, word in enumerate(getattr(capability, field)):
                yield _Spelling(word, document, ("capabilities", name, field, n))
    for rule in config.routing.rules:
        document, index = locator.rules[rule.id]
        for field in ("any", "all"):
            for n, word in enumerate(getattr(rule.when.keywords, field)):
                yield _Spelling(word, document, ("rules", index, "when", "keywords", field, n))


def _tools(config: ConfigSet, locator: Locator) -> Iterator[_Spelling]:
    for rule in config.routing.rules:
        document, index = locator.rules[rule.id]
        for n, tool in enumerate(rule.when.tool):
            yield _Spelling(tool, document, ("rules", index, "when", "tool", n))


def _invisible(spelling: _Spelling, what: str) -> Issue | None:
    found = invisible(spelling.text)
    if not found:
        return None
    index, char = found[0]
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    message = (f"{what} {shown(spelling.text)} holds {character_name(char)} at character "
               f"{index + 1}{more}, which no one sees: it makes a second spelling of a word "
               "that looks the same; remove it")
    return spelling.issue("invisible-character", message)


def keyword_issues(config: ConfigSet, locator: Locator) -> list[Issue]:
    """Invisible characters in keywords and tools, keywords with no word, and keywords that
    read like an earlier one but match other words."""
    phrase = normalizer_for(config.engine.normalization).phrase
    issues = [found for tool in _tools(config, locator)
              if (found := _invisible(tool, "tool")) is not None]
    clean = []
    for spelling in _keywords(config, locator):
        hidden = _invisible(spelling, "keyword")
        if hidden is not None:
            issues.append(hidden)
        elif not phrase(spelling.text):
            message = (f"keyword {shown(spelling.text)} has no word left once normalized "
                       "(punctuation, symbols and filler words are dropped): in a rule it "
                       "would match every text")
            issues.append(spelling.issue("empty-keyword", message))
        else:
            clean.append(spelling)
    for spelling, earlier in _alike(clean):
        if phrase(spelling.text) != phrase(earlier.text):
            message = (f"keyword {shown(spelling.text)} reads like {shown(earlier.text)} "
                       f"({earlier.where()}) but matches other words")
            issues.append(spelling.issue("lookalike-keyword", message))
    return issues


def lookalikes(config: ConfigSet, locator: Locator) -> list[Issue]:
    """Every issue of this module for a built `config`."""
    return lookalike_names(config, locator) + keyword_issues(config, locator)
