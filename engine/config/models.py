"""Typed, frozen views of a validated config set: what the build stage produces.

Nothing here parses YAML or checks cross-references; these models only give typed access to
documents that already passed their JSON Schema. Field meanings are documented in the schemas.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, ConfigDict, Field, model_validator

from engine.config.agent_runtime import HandoffStrategy, ModelConfig, VoiceConfig
from engine.config.freeze import Frozen as Frozen
from engine.config.freeze import FrozenMapping as FrozenMapping
from engine.text.spec import NormalizationSpec as NormalizationSpec

ANYONE = "*"
"""In `peers` and `accepts.from`: every agent. An empty list means no agent at all."""


class SourceRef(Frozen):
    """Where a config item was declared, for messages and `--explain` output."""

    file: str
    line: int = 0
    col: int = 0


class HandoffSpec(Frozen):
    """How other agents hand off *to* this one (seed 002 `HandoffConfig`)."""

    trigger: str | None = None
    is_entry_point: bool = False
    description: str | None = None
    strategy: HandoffStrategy | None = None
    state_key: str | None = None


class ContextPolicy(Frozen):
    """Which context keys travel with a handoff to this agent.

    `share: all` passes everything, `none` nothing, `carry` only the keys in `carry`.
    """

    share: Literal["all", "none", "carry"] = "all"
    carry: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _carry_needs_share_carry(self) -> ContextPolicy:
        # The same cross-field rule as agent.schema.json (`dependentSchemas`).
        if self.carry and self.share != "carry":
            raise ValueError("`carry` keys are only allowed with `share: carry`")
        return self


class AcceptsSpec(Frozen):
    """What this agent accepts: allowed sources and the payload's JSON Schema."""

    from_agents: tuple[str, ...] = Field(default=(ANYONE,), alias="from")
    payload_schema: FrozenMapping | None = None

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class AgentSpec(Frozen):
    name: str
    description: str = ""
    capabilities: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    handoff: HandoffSpec = HandoffSpec()
    peers: tuple[str, ...] = ()
    enabled: bool = True
    terminal: bool = False
    accepts: AcceptsSpec = AcceptsSpec()
    context: ContextPolicy = ContextPolicy()
    metadata: FrozenMapping = Field(default_factory=lambda: MappingProxyType({}))
    # -- runtime fields (seed 002 `UnifiedAgent`): typed, passed through, never interpreted
    greeting: str = ""
    return_greeting: str = ""
    model: ModelConfig = ModelConfig()
    voice: VoiceConfig = VoiceConfig()
    session: FrozenMapping = Field(default_factory=lambda: MappingProxyType({}))
    prompt_template: str = ""
    prompt_path: str | None = None
    tool_names: tuple[str, ...] = ()
    template_vars: FrozenMapping = Field(default_factory=lambda: MappingProxyType({}))
    source: SourceRef | None = None

    def may_hand_off_to(self, target: str) -> bool:
        """The sender side of policy: does `peers` allow `target`?"""
        return ANYONE in self.peers or target in self.peers

    def accepts_from(self, sender: str) -> bool:
        """The receiver side of policy: does `accepts.from` allow `sender`?"""
        allowed = self.accepts.from_agents
        return ANYONE in allowed or sender in allowed

    # -- seed 002 `UnifiedAgent` helpers ----------------------------------------------------
    @property
    def handoff_trigger(self) -> str | None:
        """The handoff tool that routes to this agent (`handoff.trigger`)."""
        return self.handoff.trigger

    def is_handoff_target(self, tool_name: str) -> bool:
        """Whether `tool_name` routes to this agent."""
        return self.handoff.trigger is not None and self.handoff.trigger == tool_name

    def can_handoff_to(self, agent_name: str) -> bool:
        """Whether this agent's `peers` let it hand off to `agent_name`."""
        return agent_name != self.name and self.may_hand_off_to(agent_name)

    def get_handoff_tools(self, agents: Mapping[str, AgentSpec]) -> list[str]:
        """The handoff tools this agent may call: the triggers of the `agents` its peers allow
        and that accept it, in their order. (Needs the set: targets own their triggers.)"""
        return [agent.handoff.trigger for agent in agents.values()
                if agent.handoff.trigger is not None and agent.enabled
                and self.can_handoff_to(agent.name) and agent.accepts_from(self.name)]


class CapabilitySpec(Frozen):
    """One word of the capability vocabulary, with the words that signal it in task text."""

    name: str
    description: str = ""
    keywords: tuple[str, ...] = ()
    synonyms: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    source: SourceRef | None = None


class KeywordCondition(Frozen):
    any: tuple[str, ...] = ()
    all: tuple[str, ...] = ()


class PriorityCondition(Frozen):
    min: int = 1
    max: int = 10


class Condition(Frozen):
    """A rule's `when`: every condition given must hold (an absent one always holds)."""

    tool: tuple[str, ...] = ()
    from_agents: tuple[str, ...] = Field(default=(), alias="from")
    keywords: KeywordCondition = KeywordCondition()
    capabilities: tuple[str, ...] = ()
    priority: PriorityCondition | None = None
    context: FrozenMapping = Field(default_factory=lambda: MappingProxyType({}))

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class RuleSpec(Frozen):
    id: str
    to: str
    priority: int = 0
    when: Condition = Field(default_factory=Condition)
    description: str = ""
    source: SourceRef | None = None


class RoutingSpec(Frozen):
    rules: tuple[RuleSpec, ...] = ()
    fallback: str | None = None
    source: SourceRef | None = None


class InputLimits(Frozen):
    """Caps on what a caller passes to `Engine.handoff` (engine.yaml `input_limits`)."""

    max_text_chars: int = 65_536
    max_data_chars: int = 262_144
    max_depth: int = 32


class RedactSpec(Frozen):
    """Key patterns whose values are never stored or exported (engine.yaml `redact`)."""

    keys: tuple[str, ...] = ()
    defaults: bool = True
    values: bool = True
    deliver: Literal["intact", "redacted"] = "intact"
    """What the receiving agent gets under secret keys: the values as given, or the redacted
    copy that is stored."""


_Timeout = Annotated[float, Field(gt=0, le=604_800, allow_inf_nan=False)]


class Policies(Frozen):
    """Engine-wide limits applied at every routing layer and by the lifecycle."""

    max_hops: int = 8
    max_bounces: int = 2
    pending_timeout_s: _Timeout | None = 30.0
    """Bounded as in engine.schema.json: every value is a valid `timedelta`; null: never."""
    deadlines: Literal["inform", "expire"] = "inform"
    """What a request's deadline does: information for the receiver, or expiry when passed."""
    multiple_handoffs: Literal["first", "highest_priority", "reject"] = "first"


EXACT = NormalizationSpec(
    unicode=False, casefold=False, contractions=False, disfluencies=False, stemming="none",
    phrase_window=0,
)
"""`normalization: exact`: lower-cased whole words, phrases as consecutive words."""


def _preset(value: Any) -> Any:
    return EXACT if value == "exact" else value


class ExamplesSpec(Frozen):
    """When the examples layer answers: the best agent's probability must reach `min_score`
    and beat the runner-up's by `margin` (and the sender's by `sender_margin` when the request
    says the sender's own keywords); probabilities are a softmax at `temperature`; an unknown
    word weighs `unknown_words` (a share of the highest idf) in a request's norm; a request
    with no known word outside `stop_words` stays; `nearest` examples explain a decision;
    `mend_words` joins split words and splits run-together ones (`engine.routing.mend`)."""

    min_score: float = 0.5
    margin: float = 0.1
    sender_margin: float = 0.1
    nearest: int = 3
    temperature: float = 0.1
    unknown_words: float = 1.0
    stop_words: str | tuple[str, ...] = "english"
    mend_words: bool = True
    max_false_transfer: float | None = None
    """What `handoff learn` bounds the share of requests that should stay but move by, when
    it chooses the thresholds (None: the most accurate ones)."""


class EngineSpec(Frozen):
    """The root document: names the set, its entry agent and its policies."""

    version: int = 1
    name: str
    entry: str
    description: str = ""
    owner: str | None = None
    docs: str | None = None
    policies: Policies = Policies()
    input_limits: InputLimits = InputLimits()
    redact: RedactSpec = RedactSpec()
    normalization: Annotated[NormalizationSpec, BeforeValidator(_preset)] = NormalizationSpec()
    examples: ExamplesSpec = ExamplesSpec()
    source: SourceRef | None = None


class ConfigSet(Frozen):
    """A whole linked config: every document of one set, cross-references checked.

    `agents` and `capabilities` keep declaration order (it breaks routing ties).
    """

    engine: EngineSpec
    agents: Mapping[str, AgentSpec]
    capabilities: Mapping[str, CapabilitySpec]
    routing: RoutingSpec = RoutingSpec()
    files: tuple[str, ...] = ()


HandoffConfig = HandoffSpec
"""The voice runtime's name for an agent's `handoff` block (trigger, is_entry_point)."""

UnifiedAgent = AgentSpec
"""The voice runtime's name for an agent definition, with its runtime fields (greeting,
model, voice, session, prompt, tool names)."""
