"""The layered router over a compiled Snapshot: trigger, rules, keywords, examples, fallback.

Pure and synchronous: it reads only the Snapshot's precomputed tables and the arguments, keeps
no state between calls and never performs I/O. Policy applies at every layer; an explicit
trigger that policy forbids is refused with a typed reason, never silently rerouted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from engine.errors import UsageError
from engine.routing import policy
from engine.routing.compiled import compile_tables
from engine.routing.conditions import TextView, rule_matches
from engine.routing.decision import (
    Candidate,
    Candidates,
    Layer,
    Reason,
    RouteDecision,
    RouteRequest,
    refused,
    routed,
)
from engine.routing.evidence import ExampleMatch
from engine.routing.policy import Hop
from engine.routing.tables import AgentPolicy

if TYPE_CHECKING:
    from engine.routing.snapshot import Snapshot

_new = tuple.__new__
_KEYWORD = Layer.keyword
_BY_TOOL = "the handoff tool names this agent"
_BY_TARGET = "the request names this agent"
_BY_RULE = "the first rule whose conditions all hold"
_BY_KEYWORDS = "the allowed agent with the most matched capabilities"
_BY_EXAMPLES = "the agent the examples make most probable, clear of the runner-up"
_BY_FALLBACK = "no trigger, rule, keyword or example matched: the configured fallback"
_NO_TARGET = "no layer found a target that policy allows"
_STAYS = "nothing matched, and the fallback is the sender itself: the request stays with it"


class Router:
    """Routes requests against one Snapshot. Cheap to build; hold one per snapshot."""

    __slots__ = ("_examples", "_index", "_tables", "_triggers", "_version", "snapshot")

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self._tables = snapshot.tables or compile_tables(snapshot.config)
        self._index = snapshot.keyword_index
        self._examples = snapshot.example_index
        self._triggers = snapshot.trigger_map
        self._version = snapshot.version

    def route(self, request: RouteRequest, *, history: Sequence[Hop] = ()) -> RouteDecision:
        """Decide who takes `request`. `history` is the session's past handoffs, oldest first,
        as `(from_agent, to_agent)` pairs; it feeds the loop guard."""
        sender = self._tables.agents.get(request.sender)
        if sender is None:
            known = ", ".join(self._tables.agents)
            raise UsageError(f"unknown sender agent {request.sender!r}; known: {known}")
        explicit = request.target
        if explicit is None and request.tool is not None:
            explicit = self._triggers.get(request.tool)
        if len(history) >= self._tables.max_hops:
            detail = f"the session already made {len(history)} handoffs (max_hops)"
            if explicit is None:
                return self._refuse(request, None, Reason.loop, detail, ())
            refused = (Candidate(explicit, Layer.trigger, 0, Reason.loop),)
            return self._refuse(request, Layer.trigger, Reason.loop, detail, refused)
        if explicit is not None:
            return self._explicit(request, sender, explicit, history)
        return self._matched(request, sender, history)

    def route_turn(
        self, requests: Sequence[RouteRequest], *, history: Sequence[Hop] = ()
    ) -> RouteDecision:
        """Several handoffs requested in one turn: `policies.multiple_handoffs` picks one
        (`first`, `highest_priority`) or refuses them all (`reject`); the decision records
        the requests it dropped."""
        if not requests:
            raise UsageError("route_turn needs at least one request")
        if len(requests) == 1:
            return self.route(requests[0], history=history)
        mode = self._tables.multiple_handoffs
        if mode == "reject":
            detail = f"{len(requests)} handoffs requested in one turn (multiple_handoffs: reject)"
            decision = self._refuse(requests[0], None, Reason.multiple_handoffs, detail, ())
            return decision._replace(dropped_requests=tuple(requests))
        chosen = 0
        if mode == "highest_priority":
            chosen = max(range(len(requests)), key=lambda n: (requests[n].priority, -n))
        dropped = tuple(r for n, r in enumerate(requests) if n != chosen)
        return self.route(requests[chosen], history=history)._replace(dropped_requests=dropped)

    def _explicit(
        self, request: RouteRequest, sender: AgentPolicy, target: str, history: Sequence[Hop]
    ) -> RouteDecision:
        reason = policy.check(self._tables, sender, target, history)
        if reason is not None:
            detail = policy.explain(reason, sender, target, self._tables)
            refused = (Candidate(target, Layer.trigger, 0, reason, None),)
            return self._refuse(request, Layer.trigger, reason, detail, refused)
        # Hot paths build candidates with tuple.__new__ (every field given), skipping the
        # NamedTuple's Python-level __new__ frame: same objects, a fraction of the cost.
        candidate = _new(Candidate, (target, Layer.trigger, 0, None, None))
        how = _BY_TOOL if request.target is None else _BY_TARGET
        return routed(request, target, Layer.trigger, how=how, version=self._version,
                      candidates=(candidate,))

    def _matched(
        self, request: RouteRequest, sender: AgentPolicy, history: Sequence[Hop]
    ) -> RouteDecision:
        text = TextView(request.text, self._index, explicit=request.capabilities)
        candidates: list[Candidate] = []
        decision = self._rules(request, sender, history, text, candidates)
        if decision is None:
            decision = self._keywords(request, sender, history, text, candidates)
        match, kept = None, ""
        if decision is None and self._examples is not None:
            match = self._nearest(text)
            if match is not None:
                kept = self._kept(sender, text, match)
                decision = self._by_examples(
                    request, sender, history, match, candidates, kept=bool(kept))
        if decision is None and not kept:
            decision = self._fallback(request, sender, history, candidates, match)
        if decision is None:
            detail = kept or (_STAYS if self._tables.fallback == sender.name else _NO_TARGET)
            decision = self._refuse(
                request, None, Reason.no_route, detail, tuple(candidates), match)
        return decision

    def _kept(self, sender: AgentPolicy, text: TextView, match: ExampleMatch) -> str:
        """Why the request stays with its sender despite the examples layer, or "": it says
        the sender's own keywords and no other agent is clearly closer (by `sender_margin`)."""
        if match.agent == sender.name or not text.capabilities:
            return ""
        own = self._index.own_keywords(text.capabilities, sender.position)
        if not own:
            return ""
        lead = match.score - match.similarity_at(sender.position)
        needed = self._tables.examples.sender_margin
        if lead >= needed:
            return ""
        return (f"the sender's own keywords ({', '.join(own)}) keep the request: "
                f"{match.agent} leads the sender by {lead:.2f}, less than {needed:.2f}")

    def _rules(
        self,
        request: RouteRequest,
        sender: AgentPolicy,
        history: Sequence[Hop],
        text: TextView,
        candidates: list[Candidate],
    ) -> RouteDecision | None:
        rules = self._tables.rules
        for ordinal in self._tables.dispatch.candidates(request, text):
            rule = rules[ordinal]
            keywords = rule_matches(rule, request, text)
            if keywords is None:
                continue
            reason = policy.check(self._tables, sender, rule.to, history)
            candidates.append(Candidate(rule.to, Layer.rule, rule.priority, reason, rule.id))
            if reason is None:
                return routed(request, rule.to, Layer.rule, how=_BY_RULE, version=self._version,
                              candidates=tuple(candidates), rule=rule.id,
                              keywords=tuple(keywords), capabilities=rule.capabilities)
        return None

    def _keywords(
        self,
        request: RouteRequest,
        sender: AgentPolicy,
        history: Sequence[Hop],
        text: TextView,
        candidates: list[Candidate],
    ) -> RouteDecision | None:
        matched = text.capabilities
        if not matched:
            return None
        ranking = self._index.ranking(matched)
        scores = ranking.scores
        names = self._index.agent_names
        winner: str | None = None
        outranked: Sequence[int] = ()
        for tried, position in enumerate(ranking, 1):
            name, score = names[position], scores[position]
            reason = policy.check(self._tables, sender, name, history)
            candidates.append(_new(Candidate, (name, _KEYWORD, score, reason, None)))
            if reason is None:
                winner, outranked = name, ranking.after(tried)
                break
        if winner is None:
            return None
        every = Candidates(tuple(candidates), outranked, names, scores)
        flat: list[str] = []
        for hits in matched.values():
            flat += hits
        return routed(request, winner, Layer.keyword, how=_BY_KEYWORDS, version=self._version,
                      candidates=every, keywords=tuple(dict.fromkeys(flat)),
                      capabilities=tuple(matched))

    def _nearest(self, text: TextView) -> ExampleMatch | None:
        """Every agent's probability by the examples, the most probable two first."""
        index = self._examples
        assert index is not None
        found = index.probabilities(text.tokens, text.text)
        if found is None:
            return None
        return ExampleMatch(index, found, limit=self._tables.examples.nearest)

    def _by_examples(
        self,
        request: RouteRequest,
        sender: AgentPolicy,
        history: Sequence[Hop],
        match: ExampleMatch,
        candidates: list[Candidate],
        *,
        kept: bool,
    ) -> RouteDecision | None:
        """The closest agent when it is close enough and clear of the runner-up (and of the
        sender, when `kept`), under policy; otherwise nothing (the request falls through)."""
        settings = self._tables.examples
        if (kept or not match.informative or match.score < settings.min_score
                or match.margin < settings.margin):
            reason: Reason | None = Reason.unclear
        else:
            reason = policy.check(self._tables, sender, match.agent, history)
        candidates.append(_new(Candidate, (match.agent, Layer.example, match.score, reason, None)))
        if reason is not None:
            return None
        return routed(request, match.agent, Layer.example, how=_BY_EXAMPLES,
                      version=self._version, candidates=tuple(candidates), examples=match)

    def _fallback(
        self,
        request: RouteRequest,
        sender: AgentPolicy,
        history: Sequence[Hop],
        candidates: list[Candidate],
        match: ExampleMatch | None,
    ) -> RouteDecision | None:
        target = self._tables.fallback
        if target is None:
            return None
        reason = policy.check(self._tables, sender, target, history)
        candidates.append(_new(Candidate, (target, Layer.fallback, 0, reason, None)))
        if reason is not None:
            return None
        return routed(request, target, Layer.fallback, how=_BY_FALLBACK, version=self._version,
                      candidates=tuple(candidates), examples=match)

    def _refuse(
        self,
        request: RouteRequest,
        layer: Layer | None,
        reason: Reason,
        detail: str,
        candidates: tuple[Candidate, ...],
        match: ExampleMatch | None = None,
    ) -> RouteDecision:
        return refused(request, reason=reason, detail=detail, version=self._version,
                       layer=layer, candidates=candidates, examples=match)

