"""A scripted `agents.Model` for the OpenAI Agents SDK: plays back steps as Responses output
items. Offline; no API key. Records the instructions, input and handoff tools (names,
schemas, strictness) each turn was shown."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from itertools import count
from typing import Any

from engine.adapters.scripted import Script, Step
from engine.errors import UsageError

try:
    from agents import Model, ModelResponse, Usage
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
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
        step = self.script.next(instructions=system_instructions, input=input,
                                handoffs=[handoff.tool_name for handoff in handoffs],
                                schemas={h.tool_name: h.input_json_schema for h in handoffs},
                                strict={h.tool_name: h.strict_json_schema for h in handoffs})
        return ModelResponse(output=[_item(step)], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise UsageError("ScriptedModel does not stream; use Runner.run")


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
