"""A scripted `livekit.agents.llm.LLM`: plays back steps as chat chunks (text or a function call)
through LiveKit's own LLM plugin interface. Offline; no API key. Records what each turn saw:
the chat, the tool names, and the tools as LiveKit formats them for an OpenAI model. And a
scripted streaming `stt.STT` that reports the caller's lines as speech events with no audio, so
a session runs LiveKit's spoken-turn path. A
turn past the end of the script fails as a provider would: an `APIConnectionError` LiveKit does
not retry (an `error` event; the session closes once its `max_unrecoverable_errors` are spent)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from itertools import count
from typing import Any, cast

from engine.adapters.scripted import Script, Step
from engine.errors import UsageError

try:
    from livekit.agents import APIConnectionError, APIConnectOptions, llm, stt
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


class ScriptedSTT(stt.STT[Any]):
    """Speech-to-text for a call without audio: `await ears.hear("My card was stolen")` makes
    its stream report the caller saying those words (start of speech, the final transcript,
    end of speech), as a provider's streaming STT does once the caller stops talking. With
    `AgentSession(stt=ears)` and turn detection by STT, LiveKit runs its spoken-turn path on
    them: the transcript, the end of the turn, the agent's `on_user_turn_completed`, the reply.
    """

    def __init__(self) -> None:
        super().__init__(capabilities=stt.STTCapabilities(streaming=True,
                                                          interim_results=False))
        self.lines: asyncio.Queue[str] = asyncio.Queue()

    async def hear(self, words: str) -> None:
        """The caller says `words`."""
        await self.lines.put(words)

    async def _recognize_impl(self, buffer: Any, *args: Any, **kwargs: Any) -> stt.SpeechEvent:
        raise UsageError("ScriptedSTT only streams: give the session turn_detection='stt'")

    def stream(self, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
               **kwargs: Any) -> stt.RecognizeStream:
        return _Heard(self, conn_options=conn_options)


class _Heard(stt.RecognizeStream):
    def __init__(self, ears: ScriptedSTT, **options: Any) -> None:
        super().__init__(stt=ears, **options)
        self._ears = ears

    async def _run(self) -> None:
        while True:  # the audio frames LiveKit pushes (none, or silence) are not listened to
            words = await self._ears.lines.get()
            said = stt.SpeechData(language=cast(Any, "en"), text=words)  # newer: a LanguageCode
            for kind, heard in ((stt.SpeechEventType.START_OF_SPEECH, []),
                                (stt.SpeechEventType.FINAL_TRANSCRIPT, [said]),
                                (stt.SpeechEventType.END_OF_SPEECH, [])):
                self._event_ch.send_nowait(stt.SpeechEvent(type=kind, alternatives=heard))
