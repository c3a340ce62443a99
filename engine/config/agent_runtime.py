"""An agent's runtime fields in the voice runtimes' shape: greeting, model, voice, session,
prompt and tool names, typed with those runtimes' names (`ModelConfig`, `VoiceConfig`).

The engine never interprets them: it types them, checks them against the agent schema and
hands them to the runtime. This module also folds the YAML spellings (`tools`, `prompt`,
`prompts`) onto the model's fields; it reads no file (a prompt file is the runtime's to load).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from engine.config.freeze import Frozen

HandoffStrategy = Literal["auto", "tool_based", "state_based"]
"""`handoff.strategy` of older voice-runtime agent files: accepted and kept, never acted on
(every handoff here goes through the same router and lifecycle)."""

PROMPT_FILE_SUFFIXES = (".jinja", ".md", ".txt")
"""A `prompt:` value ending so names a file next to the agent file; any other is the text."""

SPELLINGS: dict[str, tuple[str, ...]] = {
    "tool_names": ("tools", "tool_names"),
    "prompt": ("prompts", "prompt", "prompt_template"),
}
"""Keys of an agent file that say the same thing: at most one of each group may be given."""


class ModelConfig(Frozen):
    """The LLM settings of an agent (`model:`). `name` and `deployment_id` are one setting
    under two names: give either, and the other follows."""

    deployment_id: Annotated[str, Field(min_length=1)] = "gpt-4o"
    name: Annotated[str, Field(min_length=1)] = "gpt-4o"
    temperature: Annotated[float, Field(ge=0, le=2)] = 0.7
    top_p: Annotated[float, Field(ge=0, le=1)] = 0.9
    max_tokens: Annotated[int, Field(ge=1, le=1_000_000)] = 4096
    """Bounded as in agent.schema.json."""

    @model_validator(mode="before")
    @classmethod
    def _name_follows_deployment(cls, data: Any) -> Any:
        if isinstance(data, dict) and ("name" in data) != ("deployment_id" in data):
            given = data.get("deployment_id", data.get("name"))
            return {**data, "deployment_id": given, "name": given}
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> ModelConfig:
        """A config from YAML data (empty or None: the defaults)."""
        return cls.model_validate(data or {})

    def to_dict(self) -> dict[str, Any]:
        """The settings as a plain dict."""
        return self.model_dump()

    @property
    def declared_deployment(self) -> str | None:
        """The deployment the file named, None when it left it to the runtime's default."""
        given = self.model_fields_set & {"deployment_id", "name"}
        return self.deployment_id if given else None


class VoiceConfig(Frozen):
    """The text-to-speech voice of an agent (`voice:`)."""

    name: str = "en-US-ShimmerTurboMultilingualNeural"
    type: str = "azure-standard"
    style: str = "chat"
    rate: str = "+0%"

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> VoiceConfig:
        """A config from YAML data (empty or None: the defaults)."""
        return cls.model_validate(data or {})

    def to_dict(self) -> dict[str, Any]:
        """The settings as a plain dict."""
        return self.model_dump()


def spelling_conflicts(data: dict[str, Any]) -> list[tuple[str, str]]:
    """(key, message) for each key of an agent file that repeats a setting another key of
    the same group already gave (`tools` and `tool_names`; `prompt`, `prompts` and
    `prompt_template`)."""
    found = []
    for keys in SPELLINGS.values():
        given = [key for key in keys if key in data]
        for key in given[1:]:
            found.append((key, f"{key!r} repeats {given[0]!r}; keep one of them"))
    return found


def fold_runtime_fields(data: dict[str, Any]) -> dict[str, Any]:
    """The agent data with the YAML spellings moved onto the model's fields: `tools` ->
    `tool_names`; `prompt` (text, or a file name by its suffix) and `prompts: {content,
    path}` -> `prompt_template` / `prompt_path`; a blank (null) greeting is no greeting."""
    for key in ("greeting", "return_greeting"):
        if key in data and data[key] is None:  # `greeting:` left blank: no greeting
            del data[key]
    if "tools" in data:
        data["tool_names"] = data.pop("tools")
    prompts = dict(data.pop("prompts", None) or {})
    prompt = data.pop("prompt", None)
    if isinstance(prompt, str):
        key = "path" if prompt.strip().endswith(PROMPT_FILE_SUFFIXES) else "content"
        prompts[key] = prompt
    if "content" in prompts:
        data["prompt_template"] = prompts["content"]
    if "path" in prompts:
        data["prompt_path"] = prompts["path"]
    return data
