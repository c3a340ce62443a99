"""The examples index: the example utterances of every agent and capability compiled into a
linear model over words, word pairs and character n-grams (`engine.routing.linear`), one class
per example group (an agent's own examples, each capability it declares with examples), and
read as calibrated probabilities per agent: a softmax over the classes at the set's
`examples.temperature`, each agent summing its groups.

Built once per snapshot; scoring is pure and costs O(the request's terms + groups). Policy and
thresholds are the router's business; explanations live in `engine.routing.evidence`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from engine.config.models import AgentSpec, CapabilitySpec, ExamplesSpec
from engine.routing.features import example_terms
from engine.routing.linear import MAX_CLASSES, LinearModel, fit_model
from engine.routing.mend import KnownWords, mend
from engine.routing.probabilities import AgentSums, Probabilities, softmax
from engine.routing.stopwords import stop_words
from engine.text.normalize import Normalizer

Vector = dict[str, float]


@dataclass(frozen=True, slots=True)
class Example:
    """One declared example utterance: its text, the agent it routes to, its unit vector over
    words and pairs (for finding the examples nearest a request)."""

    text: str
    agent: str
    vector: Mapping[str, float]


@dataclass(frozen=True, slots=True)
class ExampleIndex:
    """The compiled examples of a set: the model, its groups (`group_agents[g]` is the agent
    position of group `g`, `group_names[g]` its capability or "" for the agent's own list),
    the examples themselves, and the exact utterances of a single agent."""

    model: LinearModel
    agent_names: tuple[str, ...]
    group_agents: tuple[int, ...]
    group_names: tuple[str, ...]
    declared: tuple[tuple[str, str, tuple[str, ...]], ...]
    """Every example as (text, agent, normalized words)."""
    normalizer: Normalizer
    temperature: float
    exact: Mapping[tuple[str, ...], int] = field(default_factory=dict)
    """Each example's normalized words -> its agent's position (examples of one agent only):
    a request that is one of an agent's examples is that agent's, with probability 1."""
    mend_words: bool = True
    """Words no example holds are mended before scoring (see `engine.routing.mend`)."""
    offsets: Any = field(default=None, init=False, compare=False, repr=False)
    """The bias's share of every group's softmax input (the model's bias over its unit and the
    temperature: the same for every request, so computed once)."""
    mending: KnownWords | None = field(default=None, init=False, compare=False, repr=False)
    """What mending may make of a request's words (None with `mend_words` off)."""
    summing: AgentSums | None = field(default=None, init=False, compare=False, repr=False)
    """Sums each agent's groups (None when every agent has one group: its probability is its
    group's)."""
    _built: dict[str, tuple[Example, ...]] = field(default_factory=dict, compare=False,
                                                   repr=False)

    def __post_init__(self) -> None:
        offsets = self.model.biases * (1.0 / (self.model.unit * self.temperature))
        object.__setattr__(self, "offsets", offsets)
        if self.mend_words:
            mending = KnownWords(self.model.words, self.model.stop_words, self.normalizer)
            object.__setattr__(self, "mending", mending)
        if len(set(self.group_agents)) < len(self.group_agents):
            summing = AgentSums(self.group_agents, len(self.agent_names))
            object.__setattr__(self, "summing", summing)

    @property
    def examples(self) -> tuple[Example, ...]:
        """The examples with their vectors, built on first use (explanations only)."""
        found = self._built.get("examples")
        if found is None:
            common, vocabulary = self.model.vocabulary.common, self.model.vocabulary
            found = self._built["examples"] = tuple(
                Example(text, agent, MappingProxyType(
                    vocabulary.vector(_readable(example_terms(words, common)))))
                for text, agent, words in self.declared)
        return found

    def examples_of(self, agent: str) -> tuple[Example, ...]:
        """The examples of one agent (a miss is explained by its target's nearest example:
        scanning only that agent's keeps an evaluation linear in its rows)."""
        found = self._built.get(f"of {agent}")
        if found is None:
            by_agent: dict[str, list[Example]] = {}
            for example in self.examples:
                by_agent.setdefault(example.agent, []).append(example)
            for name in self.agent_names:
                self._built[f"of {name}"] = tuple(by_agent.get(name, ()))
            found = self._built.get(f"of {agent}", ())
        return found

    def probabilities(self, tokens: Sequence[str], text: str | None = None
                      ) -> Probabilities | None:
        """Each agent's calibrated probability for the request (`tokens`: its normalized words;
        `text`, when given, lets the words no example holds be mended first: see
        `engine.routing.mend`); None when no term is known."""
        mending, mended = self.mending, None
        if text is not None and mending is not None \
                and not all(map(mending.known.__contains__, tokens)):
            mended = mend(text, mending)
        tokens = mended or tokens
        scores = self.model.scores(tokens)
        if scores is None:
            return None
        # the softmax of `values * scale`, with values = fields + biases * norm
        scale = 1.0 / (self.model.unit * scores.norm * self.temperature)
        shares = softmax(scores.fields, scale, self.offsets)
        exact = self.exact.get(tuple(tokens)) if self.exact else None
        return Probabilities(self, tokens, shares, exact, scores=scores, mended=bool(mended),
                             informative=scores.informative or exact is not None)

    def group_scores(self, tokens: Sequence[str], text: str | None = None
                     ) -> tuple[float, ...]:
        """Each group's raw score for the request (all 0 when no term is known; `text` as for
        `probabilities`)."""
        found = self.probabilities(tokens, text)
        return found.groups if found is not None else (0.0,) * len(self.group_agents)

    def vector(self, tokens: Sequence[str]) -> Vector:
        """The request's unit vector over known words and pairs (for nearest examples)."""
        common = self.model.vocabulary.common
        return self.model.vocabulary.vector(_readable(example_terms(tokens, common)))


def _readable(terms: Iterable[str]) -> list[str]:
    """Words and pairs only (n-grams make no readable explanation)."""
    return [term for term in terms if term[0] != "#"]


def agent_examples(
    agents: Iterable[AgentSpec], capabilities: Mapping[str, CapabilitySpec]
) -> list[tuple[str, str, str]]:
    """(text, agent, group) for every example: the agent's own (group ""), then its
    capabilities' examples (group: the capability's name)."""
    found = []
    for agent in agents:
        found += [(text, agent.name, "") for text in agent.examples]
        for name in agent.capabilities:
            capability = capabilities.get(name)
            if capability is not None:
                found += [(text, agent.name, name) for text in capability.examples]
    return found


def build_example_index(
    agents: Sequence[AgentSpec],
    capabilities: Mapping[str, CapabilitySpec],
    *,
    normalizer: Normalizer,
    settings: ExamplesSpec | None = None,
) -> ExampleIndex | None:
    """The index of every agent's examples, or None when the set declares none."""
    settings = settings or ExamplesSpec()
    declared = agent_examples(agents, capabilities)
    if not declared:
        return None
    names = tuple(agent.name for agent in agents)
    key = (tuple(declared), names, normalizer.spec, settings.temperature,
           settings.unknown_words, settings.stop_words, settings.mend_words)
    with _LAST_LOCK:
        if _LAST and _LAST[0][0] == key:
            return _LAST[0][1]
    index = _build(declared, names, normalizer, settings)
    with _LAST_LOCK:
        _LAST[:] = [(key, index)]
    return index


_LAST: list[tuple[tuple[object, ...], ExampleIndex]] = []
"""The last index built and what it was built from: a reload that changed neither the examples,
the agents' order, the normalization nor the examples settings reuses it whole (normalizing
10,000 examples again would cost a reload most of a second)."""
_LAST_LOCK = threading.Lock()


def _build(
    declared: list[tuple[str, str, str]], names: tuple[str, ...], normalizer: Normalizer,
    settings: ExamplesSpec,
) -> ExampleIndex:
    position = {name: n for n, name in enumerate(names)}
    groups = _groups(declared, position)
    number = {group: n for n, group in enumerate(groups)}
    tokens = [normalizer.tokens(text) for text, _agent, _group in declared]
    labels = [number[(agent, group) if (agent, group) in number else (agent, "")]
              for _text, agent, group in declared]
    stop = frozenset(word for text in stop_words(settings.stop_words)
                     for word in normalizer.tokens(text))
    model = fit_model(tokens, labels, classes=len(groups),
                      unknown_weight=settings.unknown_words, stop_words=stop)
    return ExampleIndex(
        model=model,
        agent_names=names,
        group_agents=tuple(position[agent] for agent, _group in groups),
        group_names=tuple(group for _agent, group in groups),
        declared=tuple((text, agent, tuple(words))
                       for (text, agent, _group), words in zip(declared, tokens, strict=True)),
        normalizer=normalizer,
        temperature=settings.temperature,
        exact=_exact(tokens, declared, position),
        mend_words=settings.mend_words,
    )


def _groups(declared: Sequence[tuple[str, str, str]], position: Mapping[str, int]
            ) -> list[tuple[str, str]]:
    """The example groups as (agent, group), agent by agent (declaration order within an
    agent); one group per agent when there would be more than a model can hold."""
    found = list(dict.fromkeys((agent, group) for _text, agent, group in declared))
    if len(found) > MAX_CLASSES:
        found = list(dict.fromkeys((agent, "") for _text, agent, _group in declared))
    return sorted(found, key=lambda key: position[key[0]])


def _exact(
    tokens: Sequence[Sequence[str]], declared: Sequence[tuple[str, str, str]],
    position: Mapping[str, int],
) -> Mapping[tuple[str, ...], int]:
    """Normalized example -> its agent's position, leaving out one said for several agents."""
    owners: dict[tuple[str, ...], set[int]] = {}
    for words, (_text, agent, _group) in zip(tokens, declared, strict=True):
        owners.setdefault(tuple(words), set()).add(position[agent])
    return MappingProxyType({words: min(agents) for words, agents in owners.items()
                             if words and len(agents) == 1})
