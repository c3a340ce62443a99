"""A scripted `agents.Model` for the OpenAI Agents SDK: plays back steps as Responses output
items, whole (`Runner.run`) or as the Responses API streams them (`Runner.run_streamed`).
Offline; no API key. Records the instructions, input and handoff tools (names, schemas,
strictness) each turn was shown, and whether it streamed."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from itertools import count
from typing import Any

from engine.adapters.scripted import Script, Step

try:
    from agents import Model, ModelResponse, Usage
    from openai.types.responses import (
        Response,
        ResponseCompletedEvent,
        ResponseCreatedEvent,
        ResponseFunctionCallArgumentsDeltaEvent,
        ResponseFunctionToolCall,
        ResponseOutputItemAddedEvent,
        ResponseOutputItemDoneEvent,
        ResponseOutputMessage,
        ResponseOutputText,
        ResponseTextDeltaEvent,
    )
except ImportError as error:  # pragma: no cover - exercised without the extra
    from engine.adapters.common import missing

    raise missing("openai-agents", "openai-agents") from error

_IDS = count(1)


class ScriptedModel(Model):
    """`ScriptedModel([call("handoff_fraud_agent", reason="stolen card"), say("Done.")])`."""

    def __init__(self, steps: Iterable[Step]) -> None:
        self.script = Script(steps)

    async def get_response(
        self, system_instructions: str | None, input: Any, model_settings: Any, tools: Any,
        output_schema: Any, handoffs: Any, tracing: Any, *args: Any, **kwargs: Any,
    ) -> ModelResponse:
        step = self._next(system_instructions, input, handoffs, streamed=False)
        return ModelResponse(output=[_item(step)], usage=Usage(), response_id=None)

    async def stream_response(
        self, system_instructions: str | None, input: Any, model_settings: Any, tools: Any,
        output_schema: Any, handoffs: Any, tracing: Any, *args: Any, **kwargs: Any,
    ) -> AsyncIterator[Any]:
        """The step's item as the Responses API streams one: created, item added, one delta,
        item done, completed."""
        item = _item(self._next(system_instructions, input, handoffs, streamed=True))
        for event in _events(item):
            yield event

    def _next(self, instructions: str | None, input: Any, handoffs: Any, *,
              streamed: bool) -> Step:
        return self.script.next(instructions=instructions, input=input, streamed=streamed,
                                handoffs=[handoff.tool_name for handoff in handoffs],
                                schemas={h.tool_name: h.input_json_schema for h in handoffs},
                                strict={h.tool_name: h.strict_json_schema for h in handoffs})


def _item(step: Step) -> Any:
    n = next(_IDS)
    if step.tool is not None:
        return ResponseFunctionToolCall(
            id=f"fc_{n}", call_id=f"call_{n}", name=step.tool, arguments=step.arguments,
            type="function_call", status="completed",
        )
    text = ResponseOutputText(text=step.text, type="output_text", annotations=[])
    return ResponseOutputMessage(
        id=f"msg_{n}", content=[text], role="assistant", status="completed", type="message"
    )


def _events(item: Any) -> list[Any]:
    response = Response(id=f"resp_{item.id}", created_at=0, model="scripted", object="response",
                        output=[], tool_choice="auto", tools=[], parallel_tool_calls=False,
                        status="in_progress")
    if isinstance(item, ResponseFunctionToolCall):
        opened: Any = item.model_copy(update={"arguments": "", "status": "in_progress"})
        delta: Any = ResponseFunctionCallArgumentsDeltaEvent(
            type="response.function_call_arguments.delta", item_id=item.call_id, output_index=0,
            delta=item.arguments, sequence_number=3)
    else:
        opened = item.model_copy(update={"content": [], "status": "in_progress"})
        delta = ResponseTextDeltaEvent(
            type="response.output_text.delta", item_id=item.id, output_index=0,
            content_index=0, delta=item.content[0].text, logprobs=[], sequence_number=3)
    done = response.model_copy(update={"output": [item], "status": "completed"})
    return [
        ResponseCreatedEvent(type="response.created", response=response, sequence_number=1),
        ResponseOutputItemAddedEvent(type="response.output_item.added", item=opened,
                                     output_index=0, sequence_number=2),
        delta,
        ResponseOutputItemDoneEvent(type="response.output_item.done", item=item,
                                    output_index=0, sequence_number=4),
        ResponseCompletedEvent(type="response.completed", response=done, sequence_number=5),
    ]
