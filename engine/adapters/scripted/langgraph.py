"""A scripted chat model for LangChain/LangGraph: langchain-core's own `GenericFakeChatModel`
playing back steps as `AIMessage`s (tool calls included), with `bind_tools` accepted and the
tools it was given kept in `bound`. Offline."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import count
from typing import Any

from engine.adapters.scripted import Script, Step

try:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, BaseMessage
    from langchain_core.outputs import ChatResult
    from langchain_core.utils.function_calling import convert_to_openai_tool
    from pydantic import Field
except ImportError as error:  # pragma: no cover - exercised without the extra
    from engine.adapters.common import missing

    raise missing("langchain-core", "langgraph") from error

_IDS = count(1)


class ScriptedChatModel(GenericFakeChatModel):
    """`ScriptedChatModel.of([call("handoff_writer", question="..."), say("Done.")])`. Records,
    in `script.seen`, the messages each turn was given."""

    script: Any = None
    bound: list[list[dict[str, Any]]] = Field(default_factory=list)
    """The tools each `bind_tools` call gave the model, as OpenAI tool definitions."""

    @classmethod
    def of(cls, steps: Iterable[Step]) -> ScriptedChatModel:
        script = Script(steps)
        return cls(messages=_replies(script), script=script)

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:
        self.bound.append([convert_to_openai_tool(tool) for tool in tools])
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.script.seen.append({"messages": list(messages)})
        return super()._generate(messages, *args, **kwargs)


def _replies(script: Script) -> Iterator[AIMessage]:
    while True:
        if not script.steps:
            script.next()  # raises: the script ran out
        step = script.steps.pop(0)
        if step.tool is None:
            yield AIMessage(content=step.text)
        else:
            calls = [{"name": step.tool, "args": dict(step.args), "id": f"call_{next(_IDS)}"}]
            yield AIMessage(content=step.text, tool_calls=calls)
