"""One request's probabilities in the examples layer: the softmax of its class scores, each
agent's probability (the sum of its groups'), and the two most probable agents, read straight
from numpy arrays (a route needs only those two; the rest is built when an explanation asks).

Pure; built by `ExampleIndex.probabilities` (`engine.routing.examples`).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from engine.routing.linear import Scores

if TYPE_CHECKING:
    from engine.routing.examples import ExampleIndex

Leader = tuple[int, float]
"""An agent's position and its probability."""


class Probabilities:
    """One request through the model: each group's probability, whether the request holds a
    known word that is not a stop word (a request without one never leaves its sender), its
    norm and the groups' raw scores (in the model's units: see `groups`). Per-agent
    probabilities are summed on first read: a route needs only the two most probable."""

    __slots__ = ("_agents", "_exact", "_index", "_scores", "_shares", "informative", "mended",
                 "norm", "tokens")

    def __init__(self, index: ExampleIndex, tokens: Sequence[str], shares: Any,
                 exact: int | None, *, informative: bool, scores: Scores,
                 mended: bool = False) -> None:
        """`tokens`: the request's words as scored (`mended`: changed by mending, see
        `engine.routing.mend`); `shares`: a float64 numpy array, one value per group."""
        self._index, self._shares, self._exact, self._scores = index, shares, exact, scores
        self._agents: dict[int, float] | None = None
        self.informative, self.norm, self.tokens = informative, scores.norm, tokens
        self.mended = mended

    @property
    def raw(self) -> Any:
        """The groups' raw scores (a float64 numpy array, in the model's units)."""
        return self._scores.values

    @property
    def agents(self) -> dict[int, float]:
        """Each agent's probability by position (agents without examples left out); a request
        that is one of an agent's examples is that agent's, with probability 1."""
        if self._agents is None:
            summing = self._index.summing
            if summing is None:
                agents = dict(zip(self._index.group_agents, self._shares.tolist(), strict=True))
            else:
                sums: list[float] = summing(self._shares).tolist()
                agents = {position: sums[position] for position in summing.holders}
            if self._exact is not None:
                agents = dict.fromkeys(agents, 0.0)
                agents[self._exact] = 1.0
            self._agents = agents
        return self._agents

    def leaders(self) -> tuple[Leader, Leader | None]:
        """The most probable agent and the runner-up (None with one agent), the first
        declared on a tie."""
        if self._exact is not None:
            ranked = heapq.nlargest(2, self.agents.items(), key=itemgetter(1))
            return ranked[0], (ranked[1] if len(ranked) > 1 else None)
        summing = self._index.summing
        slots: Sequence[int]
        if summing is None:  # one group per agent, in declaration order
            shares, slots, count = self._shares, self._index.group_agents, len(self._shares)
        else:  # slot = agent position
            shares, slots = summing(self._shares), range(summing.agents)
            count = len(summing.holders)
        first = int(shares.argmax())
        best = float(shares[first])
        if count == 1:
            return (slots[first], best), None
        shares[first] = -1.0
        second = int(shares.argmax())
        shares[first] = best  # the request's own shares are left as they were
        return (slots[first], best), (slots[second], float(shares[second]))

    @property
    def groups(self) -> tuple[float, ...]:
        """Each group's score (for explanations and for placing learned examples)."""
        found: list[float] = (self.raw * (1.0 / (self._index.model.unit * self.norm))).tolist()
        return tuple(found)


class AgentSums:
    """Each agent's probability as the sum of its groups', in one numpy call; agents without
    examples get -1, so they are never a leader. `holders`: the positions of the agents with
    examples, in order."""

    __slots__ = ("_positions", "_silent", "agents", "holders")

    def __init__(self, group_agents: Sequence[int], agents: int) -> None:
        import numpy as np  # loaded by the model already

        self.agents, self.holders = agents, sorted(set(group_agents))
        self._positions = np.array(group_agents, dtype=np.intp)
        self._silent = np.array(sorted(set(range(agents)) - set(group_agents)), dtype=np.intp)

    def __call__(self, shares: Any) -> Any:
        import numpy as np

        sums = np.bincount(self._positions, weights=shares, minlength=self.agents)
        sums[self._silent] = -1.0
        return sums


def softmax(fields: Any, scale: float, offsets: Any) -> Any:
    """The softmax of `fields * scale + offsets` (numpy arrays in and out; one new array,
    worked on in place)."""
    import numpy as np  # loaded by the model already

    shares = fields * scale
    shares += offsets
    shares -= shares.max()
    np.exp(shares, out=shares)
    shares *= 1.0 / shares.sum()
    return shares
