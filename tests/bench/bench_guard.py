"""Guard overhead per call (valid output, no retry), sync and async, against the unguarded
call and handoff-guard 0.2.1 guarding the same function in the same run; then `parse_json`
on small and large model replies (strict, fenced, wrapped in chat, repaired, cut off) against
handoff-guard's `parse_json` on the same text in the same run.

Run: python tests/bench/bench_guard.py [--calls N]. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from engine.guard import guard, parse_json

try:
    import handoff as reference
except ImportError:  # the bench extra is not installed
    reference = None


class Out(BaseModel):
    name: str
    score: int


OUTPUT = {"name": "ada", "score": 3}
OUT_SCHEMA = {
    "type": "object",
    "required": ["name", "score"],
    "properties": {"name": {"type": "string"}, "score": {"type": "integer"}},
}


def node(state: dict[str, Any]) -> dict[str, Any]:
    return OUTPUT


async def anode(state: dict[str, Any]) -> dict[str, Any]:
    return OUTPUT


def _time_sync(func: Callable[..., Any], calls: int) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            func({})
        best = min(best, time.perf_counter() - start)
    return best / calls * 1e6


def _time_async(func: Callable[..., Any], calls: int) -> float:
    async def loop() -> float:
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(calls):
                await func({})
            best = min(best, time.perf_counter() - start)
        return best / calls * 1e6

    return asyncio.run(loop())


def _row(label: str, micros: float, base: float, ref: float | None) -> None:
    versus = ""
    if ref:
        ratio = ref / micros
        versus = (
            f"{ratio:5.2f}x faster than handoff-guard"
            if ratio >= 1
            else f"{1 / ratio:5.2f}x slower than handoff-guard"
        )
    print(f"  {label:<34}{micros:8.2f} us/call  overhead {micros - base:7.2f} us  {versus}")


def _section(
    title: str,
    timer: Callable[[Callable[..., Any], int], float],
    func: Callable[..., Any],
    calls: int,
) -> None:
    print(title)
    base = timer(func, calls)
    ref = timer(reference.guard(output=Out)(func), calls) if reference else None
    print(f"  {'unguarded':<34}{base:8.2f} us/call")
    if ref is not None:
        print(
            f"  {'handoff-guard 0.2.1 (pydantic)':<34}{ref:8.2f} us/call  "
            f"overhead {ref - base:7.2f} us"
        )
    _row("engine.guard (pydantic)", timer(guard(output=Out)(func), calls), base, ref)
    _row("engine.guard (JSON Schema dict)", timer(guard(output=OUT_SCHEMA)(func), calls), base, ref)
    _row("engine.guard (bare, no schema)", timer(guard(func), calls), base, ref)
    print("  (handoff-guard takes pydantic models only; the JSON Schema row is jsonschema's cost)")


def _replies(items: int) -> dict[str, str]:
    """Model-style replies around a generated JSON document of `items` records."""
    records = [{"id": i, "name": f"record {i}", "tags": ["red", "blue"], "score": i * 0.5,
                "active": i % 2 == 0, "note": 'said "hi", then left'} for i in range(items)]
    text = json.dumps({"records": records}, indent=2)
    broken = text.replace("\n  ]", ",\n  ]").replace('"active": true', "'active': True")
    return {
        "strict": text,
        "fenced": f"```json\n{text}\n```",
        "chat + fence": f"Sure, here it is:\n```json\n{text}\n```\nAnything else?",
        "chat, no fence": f"The result is {text} as requested.",
        "fenced, repaired": f"```json\n{broken}\n```",
        "cut off": text[: len(text) * 2 // 3],
    }


def _time_parse(func: Callable[[str], Any], text: str) -> float:
    calls = max(3, 200_000 // max(len(text), 1))
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            func(text)
        best = min(best, time.perf_counter() - start)
    return best / calls * 1e6


def _parse_section() -> None:
    for size, items in (("small", 3), ("large", 2000)):
        print(f"parse_json, {size} replies ({items} records)")
        for label, text in _replies(items).items():
            ours = _time_parse(parse_json, text)
            line = f"  {label:<18}{len(text):>8} chars  engine {ours:10.1f} us"
            if reference is not None:
                theirs = _time_parse(reference.parse_json, text)
                line += f"  handoff-guard {theirs:10.1f} us  ratio {ours / theirs:5.2f}"
            print(line)
    print("  (ratio = engine time / handoff-guard time in this run; below 1 is faster)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=20_000)
    calls = parser.parse_args().calls
    if reference is None:
        print(
            "handoff-guard is not installed (pip install handoff-guard==0.2.1); "
            "showing engine figures only"
        )
    _section("sync node", _time_sync, node, calls)
    _section("async node", _time_async, anode, calls)
    _parse_section()


if __name__ == "__main__":
    main()
