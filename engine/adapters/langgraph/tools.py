"""Handoff tools for LangGraph: the model sees the target's payload schema; calling one asks the
engine, and either moves the graph (`Command(goto=target, graph=Command.PARENT)`) or answers
with LangChain's tool-error shape (`ToolMessage(status="error")`) carrying the typed reason."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Collection, Mapping
from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_function
from langgraph.prebuilt import ToolRuntime
from langgraph.types import Command
from pydantic import BaseModel, ConfigDict

from engine.adapters.common import refusal_message
from engine.adapters.langgraph.calls import Calls, unbuilt
from engine.adapters.langgraph.state import caller_text, moved
from engine.adapters.strict import drop_strict_nulls, function_definition
from engine.runtime.engine import HandoffOutcome
from engine.runtime.tools import HandoffTool


class _Injected(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)
    runtime: ToolRuntime


class _EngineTool(StructuredTool):
    """The model sees the payload schema (`args_schema`); LangGraph's ToolNode reads the input
    schema for what to inject, and finds `runtime` there in every supported version."""

    def get_input_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        return _Injected


def refusal(outcome: HandoffOutcome, tool: str, call_id: str | None) -> ToolMessage:
    """A refused handoff as the tool error the model reads: `status="error"`, the typed reason
    in the text and, with the record id, in the message's `artifact`."""
    reason = outcome.reason or "refused"
    response = outcome.record.response
    return ToolMessage(
        content=refusal_message(response.reason if response and response.reason else reason),
        name=tool, tool_call_id=call_id or "", status="error",
        artifact={"reason": reason, "record_id": outcome.record.record_id},
    )


def handoff_tool(
    calls: Calls, team: Callable[[], Collection[str]], source: str, tool: HandoffTool, *,
    strict: bool = False,
) -> BaseTool:
    """The tool `source`'s model calls to hand off by `tool` (its name is the trigger). The
    sender is `source` whatever the graph state says; the hops live in the call's session.
    `strict`: its arguments in strict form where the payload schema allows it (the model's
    `null`s for optional properties are dropped before the engine checks the payload)."""
    definition = function_definition(tool, strict=strict)

    async def handoff(runtime: ToolRuntime, **payload: Any) -> Command[Any] | ToolMessage:
        if definition["strict"]:
            payload = drop_strict_nulls(tool.parameters, payload)
        state: Mapping[str, Any] = runtime.state if isinstance(runtime.state, Mapping) else {}
        call = calls.of(state, runtime.config)
        values = runtime.context if isinstance(runtime.context, Mapping) else None
        outcome = await calls.engine.handoff(
            caller_text(state.get("messages", [])), session=call.session, sender=source,
            tool=tool.name, context=call.context(values), tool_args=payload,
            tool_call_id=runtime.tool_call_id,
        )
        if outcome.target is None:
            return refusal(outcome, tool.name, runtime.tool_call_id)
        if outcome.target not in team():
            raise await unbuilt(calls.engine, outcome)
        await call.handed_off(outcome)
        done = ToolMessage(content=f"Transferred to {outcome.target}.", name=tool.name,
                           tool_call_id=runtime.tool_call_id or "", id=str(uuid.uuid4()))
        update = {**moved(state, outcome, done.id), "handoff_session": call.session.session_id,
                  "messages": [*state.get("messages", []), done]}
        return Command(goto=outcome.target, graph=Command.PARENT, update=update)

    return _EngineTool(name=tool.name, description=tool.description,
                       args_schema=definition["parameters"], coroutine=handoff,
                       metadata={"strict": definition["strict"]})


def bindable(tool: BaseTool) -> BaseTool | dict[str, Any]:
    """What a model is bound with for `tool`: a handoff tool in strict form as an OpenAI tool
    definition marked `strict: true` (LangChain's OpenAI models send it as it is; others read
    its name, description and parameters), anything else as it is."""
    if not (tool.metadata or {}).get("strict"):
        return tool
    return {"type": "function", "function": {**convert_to_openai_function(tool), "strict": True}}
