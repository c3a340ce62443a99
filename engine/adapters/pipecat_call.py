"""One Pipecat Flows call as the engine sees it: its engine session, the `Conversation` moving
its records, the context values routing reads, and the ids of the LLM's function calls, which
Flows does not hand its function handlers (the LLM service announces them just before it runs
the handlers). The nodes and the router live in `engine.adapters.pipecat`."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.adapters.common import missing
from engine.adapters.lifecycle import Conversation
from engine.runtime.session import Session

try:
    from pipecat.flows import FlowManager
    from pipecat.frames.frames import FunctionCallFromLLM
    from pipecat.pipeline.llm_switcher import LLMSwitcher
    from pipecat.processors.frame_processor import FrameProcessor
    from pipecat.services.llm_service import LLMService
except ImportError as error:  # pragma: no cover - exercised without the extra
    raise missing("pipecat-ai", "pipecat") from error


@dataclass
class FlowCall:
    """One call: its engine session, the conversation moving its records, the context values
    routing rules and carry-over read, and the FlowManager once the flow has started."""

    session: Session
    conversation: Conversation
    values: dict[str, Any] = field(default_factory=dict)
    flow_manager: FlowManager | None = None
    heard: int = 0
    """How many caller messages of the LLM context the router has already seen (a context reset
    keeps only the words that brought the caller, which were routed already)."""
    version: str = ""
    """The config version the current node was built on."""
    tool_calls: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    """The ids of the LLM's latest function calls, by (name, arguments), until their handlers
    run (Flows hands a handler only the arguments; the LLM service announces the ids first)."""

    def calls_started(self, function_calls: Sequence[FunctionCallFromLLM]) -> None:
        """The LLM service is about to run `function_calls` (its `on_function_calls_started`)."""
        self.tool_calls = {}
        for function_call in function_calls:
            key = _call_key(function_call.function_name, function_call.arguments)
            self.tool_calls.setdefault(key, []).append(function_call.tool_call_id)

    def tool_call_id(self, name: str, arguments: Mapping[str, Any]) -> str | None:
        """The id the LLM gave the call of `name(arguments)` now running, if it announced one."""
        ids = self.tool_calls.get(_call_key(name, arguments))
        return ids.pop(0) if ids else None


def llms_after(processor: FrameProcessor) -> list[LLMService]:
    """The LLM service that answers `processor`'s frames: the first one downstream of it (every
    LLM of an `LLMSwitcher`)."""
    node = processor.next
    while node is not None:
        if isinstance(node, LLMService):
            return [node]
        if isinstance(node, LLMSwitcher):
            return list(node.llms)
        node = node.next
    return []


def _call_key(name: str, arguments: Mapping[str, Any]) -> tuple[str, str]:
    return name, json.dumps(arguments, sort_keys=True, default=str)
