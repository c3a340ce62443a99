"""What redaction costs per KB of caller text: a context value and a task text of ordinary
words, text full of digits, and hostile text built to make a matcher slow; with value
redaction on, and off (keys only) as the baseline of the same run.

Run: python tests/bench/bench_redaction.py [--kb N] [--rounds R]. To compare with another
checkout, run it with that checkout first on PYTHONPATH (the `values` switch is then ignored
where it does not exist). Prints microseconds per KB; asserts nothing.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time
from collections.abc import Callable
from typing import Any

from engine.lifecycle import HandoffManager, HandoffRequest
from engine.redaction import Redactor

WORDS = "Hi, there are two charges on my card from last night that I did not make, please help. "
TEXTS = {
    "words": WORDS,
    "numbers": "order 2024-11-03 ref 88121 call 415 555 2671 amount 1250.00 account 7731 ",
    "one card": WORDS + "card 4111 1111 1111 1111 ",
    "hostile digits": "5-" * 64,
    "hostile tokens": "eyJ" * 64,
}


def redactor(values: bool) -> Redactor:
    try:
        return Redactor(values=values)  # type: ignore[call-arg, unused-ignore]
    except TypeError:  # a checkout without value redaction
        return Redactor()


def redact_context(redactor: Redactor, context: dict[str, Any]) -> None:
    redactor.redact(context)


def store_task(redactor: Redactor, request: HandoffRequest) -> None:
    HandoffManager(redactor=redactor).create_handoff(request)


def per_kb_us(call: Callable[[], Any], kb: int, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(20):
            call()
        times.append((time.perf_counter() - start) / 20)
    return statistics.median(times) / kb * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kb", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    print(f"{'text':16} {'what':18} {'keys only':>12} {'keys+values':>12}  (us per KB)")
    for name, unit in TEXTS.items():
        text = (unit * (args.kb * 1024 // len(unit) + 1))[: args.kb * 1024]
        context = {"customer_id": "C-1", "password": "x", "note": text}
        request = HandoffRequest(from_agent="a", to_agent="b", task_description=text)
        for what, call, data in (("context", redact_context, context),
                                 ("stored task text", store_task, request)):
            cells = [per_kb_us(functools.partial(call, redactor(values), data), args.kb,
                               args.rounds) for values in (False, True)]
            print(f"{name:16} {what:18} {cells[0]:12.2f} {cells[1]:12.2f}")


if __name__ == "__main__":
    main()
