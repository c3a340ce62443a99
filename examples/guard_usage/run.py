"""Guard usage: validate what a (simulated) LLM hands to the next agent, retry with feedback.

Run: python examples/guard_usage/run.py
Uses only the public API of `engine.guard`. The "LLM" gets the guard's feedback and fixes
its output on the next attempt, as a real model prompted with `retry.feedback()` would.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel, Field

from engine.guard import HandoffViolation, guard, parse_json, retry


class Ticket(BaseModel):
    """What the triage agent must hand to the billing agent."""

    customer_id: str = Field(min_length=3)
    summary: str
    priority: int = Field(ge=1, le=5)


def fake_llm(prompt: str, feedback: str | None) -> str:
    """A stand-in model: sloppy at first, correct once told what was wrong."""
    if feedback is None:
        # chat around a fenced block, cut off by the token limit
        return 'Sure! Here is the ticket:\n```json\n{"customer_id": "c-42", "summary": "double'
    if "priority" in feedback:
        return '{"customer_id": "c-42", "summary": "double charge", "priority": 2}'
    return "I am not sure what you mean."


@guard(output=Ticket, max_attempts=3, node_name="triage")
def triage(state: dict[str, Any]) -> dict[str, Any]:
    feedback = retry.feedback()
    print(f"attempt {retry.attempt}/{retry.max_attempts}"
          + (" (with feedback)" if feedback else ""))
    if feedback:
        print("  feedback sent to the model:")
        print("\n".join(f"    {line}" for line in feedback.splitlines()[:4]))
    reply = fake_llm(state["message"], feedback)
    parsed = parse_json(reply, detailed=True)
    print(f"  parsed: truncated={parsed.truncated} repaired={parsed.repaired}")
    data: dict[str, Any] = parsed.data
    return data


PAYLOAD_SCHEMA = {  # e.g. an agent's `accepts.payload_schema` from the config
    "type": "object",
    "required": ["invoice_id", "amount"],
    "properties": {"invoice_id": {"type": "string"}, "amount": {"type": "number", "minimum": 0}},
}


@guard(input=PAYLOAD_SCHEMA, node_name="billing")
async def billing(state: dict[str, Any]) -> str:
    return f"refund {state['amount']} on {state['invoice_id']}"


@guard(output=Ticket, on_fail="return_none", node_name="stubborn")
def stubborn(state: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = parse_json('{"summary": "no id"}')
    return data


def main() -> None:
    ticket = triage({"message": "I was charged twice"})
    print(f"triage handed off: {ticket}")
    print(asyncio.run(billing({"invoice_id": "inv-7", "amount": 12.5})))
    try:
        asyncio.run(billing({"invoice_id": "inv-7", "amount": -1}))
    except HandoffViolation as violation:
        print(f"billing refused: {violation.node_name} {violation.field_path}: "
              f"{violation.context.suggestion}")
    print(f"stubborn returned: {stubborn({})}")


if __name__ == "__main__":
    main()
