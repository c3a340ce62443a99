"""A scripted Pipecat LLM service and a text caller. `ScriptedLLM` is Pipecat's own
`OpenAILLMService` fed chat-completion chunks from a script instead of the API (as Pipecat's own
tests do), so the service's streaming, function-call assembly and tool dispatch run offline.
`TextCaller` stands in for speech-to-text: it puts the caller's lines into the context and
waits for the bot's spoken replies."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from itertools import count
from typing import Any

from engine.adapters.scripted import Script, Step

try:
    from openai.types.chat import ChatCompletionChunk, ChatCompletionUserMessageParam
    from openai.types.chat.chat_completion_chunk import (
        Choice,
        ChoiceDelta,
        ChoiceDeltaToolCall,
        ChoiceDeltaToolCallFunction,
    )
    from pipecat.frames.frames import EndFrame, ErrorFrame, LLMMessagesAppendFrame
    from pipecat.pipeline.worker import PipelineWorker
    from pipecat.processors.aggregators.llm_context import LLMContext
    from pipecat.processors.aggregators.llm_response_universal import (
        AssistantTurnStoppedMessage,
        LLMAssistantAggregator,
    )
    from pipecat.services.openai.llm import OpenAILLMService
except ImportError as error:  # pragma: no cover - exercised without the extra
    from engine.adapters.common import missing

    raise missing("pipecat-ai", "pipecat") from error

_IDS = count(1)


class ScriptedLLM(OpenAILLMService):
    """`ScriptedLLM([call("handoff_fraud_agent", reason="..."), say("Fraud team here.")])`: one
    step per completion. `script.seen` holds, per turn, the tool names and messages it was shown;
    `tool_call_ids` the id of each tool call it made, in order.
    """

    def __init__(self, steps: Iterable[Step], **options: Any) -> None:
        settings = OpenAILLMService.Settings(model="scripted")
        super().__init__(api_key="scripted", settings=settings, **options)
        self.script = Script(steps)
        self.tool_call_ids: list[str] = []

    async def get_chat_completions(  # type: ignore[override]
        self, context: LLMContext
    ) -> AsyncIterator[ChatCompletionChunk]:
        """The next step, streamed as the API would (the service only iterates the stream)."""
        step = self.script.next(tools=_tool_names(context), messages=list(context.get_messages()))
        n = next(_IDS)
        if step.tool is not None:
            self.tool_call_ids.append(f"call_{n}")
        return _stream(step, n)


async def _stream(step: Step, n: int) -> AsyncIterator[ChatCompletionChunk]:
    """The step as the chunks the Chat Completions API streams: text, or one tool call."""
    if step.tool is None:
        yield _chunk(n, ChoiceDelta(content=step.text))
        yield _chunk(n, ChoiceDelta(), finish="stop")
        return
    function = ChoiceDeltaToolCallFunction(name=step.tool, arguments=step.arguments)
    delta = ChoiceDelta(tool_calls=[
        ChoiceDeltaToolCall(index=0, id=f"call_{n}", function=function, type="function")])
    yield _chunk(n, delta)
    yield _chunk(n, ChoiceDelta(), finish="tool_calls")


def _chunk(n: int, delta: ChoiceDelta, finish: Any = None) -> ChatCompletionChunk:
    return ChatCompletionChunk(
        id=f"scripted-{n}", object="chat.completion.chunk", created=0, model="scripted",
        choices=[Choice(delta=delta, index=0, finish_reason=finish)],
    )


def _tool_names(context: LLMContext) -> list[str]:
    tools = context.tools
    standard = getattr(tools, "standard_tools", None) or []
    return [schema.name for schema in standard]


class TextCaller:
    """The caller of a pipeline in text: `await caller.say("My card was stolen")` adds the line
    to the LLM context as the caller's message and returns the bot's next finished turn (an
    answer or a greeting), as the assistant context aggregator reports it; a pipeline error
    raises instead. `hang_up()` ends the call."""

    def __init__(self, worker: PipelineWorker, assistant: LLMAssistantAggregator) -> None:
        self.worker = worker
        self.replies: asyncio.Queue[str | BaseException] = asyncio.Queue()
        assistant.add_event_handler("on_assistant_turn_stopped", self._heard)
        worker.add_event_handler("on_pipeline_error", self._failed)

    async def say(self, text: str) -> str:
        message: ChatCompletionUserMessageParam = {"role": "user", "content": text}
        await self.worker.queue_frame(LLMMessagesAppendFrame(messages=[message], run_llm=True))
        return await self.reply()

    async def reply(self) -> str:
        """The bot's next finished turn with words in it."""
        reply = await self.replies.get()
        if isinstance(reply, BaseException):
            raise reply
        return reply

    async def hang_up(self) -> None:
        await self.worker.queue_frame(EndFrame())

    async def _heard(self, _aggregator: Any, message: AssistantTurnStoppedMessage) -> None:
        if message.content:
            await self.replies.put(message.content)

    async def _failed(self, _worker: PipelineWorker, frame: ErrorFrame) -> None:
        await self.replies.put(frame.exception or RuntimeError(frame.error))
