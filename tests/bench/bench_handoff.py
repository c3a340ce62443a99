"""Engine.handoff per call on configs/banking (memory store), with the caller-input checks and
the redaction policy, against the same engine with both switched off, in the same run.

The baseline replaces input cleaning by a pass-through, redacts nothing and reads the plain
wall clock: what a handoff cost before those existed. Also times a refused oversized text.

Run: python tests/bench/bench_handoff.py [--calls N] [--rounds R]. Prints figures and ratios
against the baseline; asserts nothing. Figures on a shared machine are noisy.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

from engine.records.models import utc_now
from engine.redaction import Redactor
from engine.runtime import procedure
from engine.runtime.engine import Engine
from engine.runtime.inputs import HandoffInput

BANKING = Path(__file__).resolve().parents[2] / "configs" / "banking"
TURN: dict[str, Any] = {  # a normal voice turn: a sentence, a small context, two tool args
    "text": "Hi, there are two charges on my card from last night that I didn't make.",
    "sender": "concierge",
    "tool": "handoff_fraud_agent",
    "context": {"customer_id": "C-1042", "caller_verified": True, "card_last4": "4421",
                "preferred_language": "en", "channel": {"kind": "voice", "line": 3}},
    "tool_args": {"reason": "two unrecognised card charges", "card_last4": "4421"},
}
HUGE = {"text": "stolen card " * 1_000_000, "sender": "concierge"}


def pass_through(limits: Any, **raw: Any) -> tuple[HandoffInput, None]:
    return HandoffInput(
        sender=raw["sender"], text=raw["text"], tool=raw["tool"], target=raw["target"],
        context=dict(raw["context"] or {}), priority=raw["priority"], deadline=raw["deadline"],
        tool_args=raw["tool_args"], tool_result=raw["tool_result"], actor=raw["actor"],
    ), None


def per_call_us(call: Callable[[], Any], calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - start) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    with Engine(BANKING, sweep_interval_s=None) as guarded, \
            Engine(BANKING, sweep_interval_s=None) as plain:
        plain.manager.clock = utc_now
        nothing = Redactor(defaults=False, values=False)
        plain._caller_policy = (plain.snapshot, procedure.CallerPolicy(
            plain.snapshot.config.engine.input_limits, nothing))
        plain.manager.redactor = nothing

        def checked() -> None:
            guarded.handoff(**TURN)

        base, new = [], []
        for _ in range(args.rounds):  # interleaved, so drift in machine load hits both
            with mock.patch.object(procedure, "clean_input", pass_through):
                base.append(per_call_us(lambda: plain.handoff(**TURN), args.calls))
            new.append(per_call_us(checked, args.calls))
        huge = per_call_us(lambda: guarded.handoff(**HUGE), 20)
        with mock.patch.object(procedure, "clean_input", pass_through):
            huge_before = per_call_us(lambda: plain.handoff(**HUGE), 3)
    b, n = statistics.median(base), statistics.median(new)
    print(f"voice turn, baseline (no checks, no redaction): {b:8.1f} us/call (median of "
          f"{args.rounds} rounds x {args.calls})")
    print(f"voice turn, input checks + redaction:           {n:8.1f} us/call  x{n / b:.2f} "
          f"of baseline ({n - b:+.1f} us)")
    print(f"12 MB text, baseline (routed and stored whole): {huge_before / 1000:8.1f} ms/call")
    print(f"12 MB text, refused at the cap:                 {huge / 1000:8.1f} ms/call  "
          f"x{huge / huge_before:.4f} of baseline")


if __name__ == "__main__":
    main()
