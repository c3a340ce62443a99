"""A scripted `livekit.agents.llm.LLM`: plays back steps as chat chunks (text or a function call)
through LiveKit's own LLM plugin interface. Offline; no API key. Records what each turn saw:
the chat, the tool names, and the tools as LiveKit formats them for an OpenAI model. A
turn past the end of the script fails as a provider would: an `APIConnectionError` LiveKit does
not retry (an `error` event; the session closes once its `max_unrecoverable_errors` are spent)."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import count
from typing import Any

from engine.adapters.scripted import Script, Step
from engine.errors import UsageError

try:
    from livekit.agents import APIConnectionError, APIConnectOptions, llm
    from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS
except ImportError as error:  # pragma: no cover - exercised without the extra
    from engine.adapters.common import missing

    raise missing("livekit-agents", "livekit") from error

_IDS = count(1)


class ScriptedLLM(llm.LLM[Any]):
    """`ScriptedLLM([call("handoff_fraud_agent", reason="..."), say("Fraud team here.")])`."""

    def __init__(self, steps: Iterable[Step]) -> None:
        super().__init__()
        self.script = Script(steps)

    def chat(
        self, *, chat_ctx: llm.ChatContext, tools: list[Any] | None = None,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS, **kwargs: Any,
    ) -> llm.LLMStream:
        try:
            step: Step | UsageError = self.script.next(
                chat_ctx=chat_ctx.copy(), tools=_names(tools or []),
                openai=llm.ToolContext(tools or []).parse_function_tools("openai"))
        except UsageError as error:
            step = error
        return _Stream(self, step, chat_ctx=chat_ctx, tools=tools or [],
                       conn_options=conn_options)


class _Stream(llm.LLMStream):
    def __init__(self, model: ScriptedLLM, step: Step | UsageError, **options: Any) -> None:
        super().__init__(model, **options)
        self._step = step

    async def _run(self) -> None:
        if isinstance(self._step, UsageError):
            raise APIConnectionError(str(self._step), retryable=False)
        n = next(_IDS)
        calls = [] if self._step.tool is None else [llm.FunctionToolCall(
            name=self._step.tool, arguments=self._step.arguments, call_id=f"call_{n}")]
        delta = llm.ChoiceDelta(role="assistant", content=self._step.text or None,
                                tool_calls=calls)
        self._event_ch.send_nowait(llm.ChatChunk(id=f"chunk_{n}", delta=delta))


def _names(tools: list[Any]) -> list[str]:
    """Tool names: `tool.id` in newer LiveKit versions, the attached tool info in older ones."""
    names = []
    for tool in tools:
        info = getattr(tool, "__livekit_raw_tool_info", None) or getattr(
            tool, "__livekit_tool_info", None)
        names.append(str(getattr(tool, "id", None) or getattr(info, "name", None) or tool))
    return names
