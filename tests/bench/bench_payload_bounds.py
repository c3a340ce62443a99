"""Hostile payloads against hostile payload schemas, one `Engine.handoff` each, beside a
handoff of a valid payload on configs/banking measured in the same run (the baseline).

Each case runs in a child process stopped at `--deadline` seconds (reported as such), on a
copy of configs/banking whose fraud_agent declares the case's payload schema. Also prints the
cost of `Engine.handoff` with a valid payload and without one (the share the check takes).
Uses only the public API, so `PYTHONPATH=<other checkout>` measures that checkout.

Run: python tests/bench/bench_payload_bounds.py [--deadline S] [--case NAME]. Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

BANKING = Path(__file__).resolve().parents[2] / "configs" / "banking"
VALID = {"reason": "card stolen", "suspected_amount": 120.5, "card_last4": "4242"}
NODE = {"type": "object", "properties": {"c": {"$ref": "#/$defs/n"}}}
UNIQUE = {"type": "object", "properties": {"xs": {"type": "array", "uniqueItems": True}}}
RECURSIVE = {"$defs": {"n": {"anyOf": [NODE, {**NODE, "maxProperties": 10}]}},
             "$ref": "#/$defs/n"}
REGEX = {"type": "object", "properties": {"p": {"type": "string", "format": "regex"}}}
BRANCHES = {"type": "object", "additionalProperties": {
    "enum": [f"choice-{index:03d}-" + "x" * 40 for index in range(100)]}}


def nested(depth: int) -> dict[str, Any]:
    payload: dict[str, Any] = {"c": 5}
    for _ in range(depth):
        payload = {"c": payload}
    return payload


def objects(count: int, duplicate: bool = False) -> dict[str, Any]:
    items = [{"a": index} for index in range(count)]
    return {"xs": [*items, {"a": 0}] if duplicate else items}


CASES: dict[str, tuple[dict[str, Any], Callable[[], Any]]] = {
    "unique 4,000 objects": (UNIQUE, lambda: objects(4_000)),
    "unique 80,000 objects": (UNIQUE, lambda: objects(80_000)),
    "unique 80,000 objects + duplicate": (UNIQUE, lambda: objects(80_000, duplicate=True)),
    "recursive anyOf, 16 deep": (RECURSIVE, lambda: nested(16)),
    "recursive anyOf, 20 deep": (RECURSIVE, lambda: nested(20)),
    "recursive anyOf, 30 deep": (RECURSIVE, lambda: nested(30)),
    "100-branch enum, 200 KB payload": (BRANCHES, lambda: {
        f"field-{index:05d}": "y" * 30 for index in range(5_000)}),
}
REGEX_CALLS = 150


def config(schema: dict[str, Any], base: str) -> Path:
    """A copy of configs/banking whose fraud_agent accepts `schema`."""
    root = Path(base) / "set"
    shutil.copytree(BANKING, root)
    path = root / "agents" / "fraud_agent.yaml"
    head, rest = path.read_text(encoding="utf-8").split("  payload_schema:\n", 1)
    tail = rest[rest.index("context:"):]
    path.write_text(f"{head}  payload_schema: {json.dumps(schema)}\n{tail}", encoding="utf-8")
    return root


def _handoff(engine: Any, payload: Any) -> Any:
    return engine.handoff("my card was stolen", sender="concierge",
                          tool="handoff_fraud_agent", tool_args=payload)


def run_case(name: str) -> dict[str, Any]:
    from engine.runtime.engine import Engine

    schema, make = (REGEX, None) if name == "regex" else CASES[name]
    with tempfile.TemporaryDirectory() as base, Engine(config(schema, base),
                                                       sweep_interval_s=None) as engine:
        if make is None:
            before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            start = time.perf_counter()
            for index in range(REGEX_CALLS):
                _handoff(engine, {"p": "(" + "a?" * 2000 + f"){{{index % 150 + 1}}}"})
            return {"seconds": time.perf_counter() - start, "rss_mb": [
                before // 1024, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024]}
        payload = make()
        start = time.perf_counter()
        outcome = _handoff(engine, payload)
        seconds = time.perf_counter() - start
        record = engine.manager.get(outcome.record.record_id)
        reason = record.response.reason if record.response is not None else ""
        return {"seconds": seconds, "refused": outcome.refusal is not None,
                "reason_chars": len(reason), "reason": reason[:110]}


def valid_payload_costs(calls: int) -> dict[str, float]:
    """Microseconds per `Engine.handoff` on configs/banking: a valid payload, and none (each
    on a fresh engine, best of five rounds)."""
    from engine.runtime.engine import Engine

    figures = {}
    for label, payload in (("valid payload", VALID), ("no payload", None)):
        with Engine(BANKING, sweep_interval_s=None) as engine:
            best = min(timeit.repeat(lambda p=payload: _handoff(engine, p), number=calls,
                                     repeat=5))
        figures[label] = best / calls * 1e6
    return figures


def in_child(name: str, deadline: float) -> dict[str, Any] | None:
    try:
        done = subprocess.run([sys.executable, __file__, "--case", name], capture_output=True,
                              text=True, timeout=deadline, check=True)
    except subprocess.TimeoutExpired:
        return None
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--deadline", type=float, default=120.0)
    parser.add_argument("--case")
    parser.add_argument("--calls", type=int, default=2_000)
    args = parser.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case)))
        return
    costs = valid_payload_costs(args.calls)
    baseline = costs["valid payload"]
    for label, figure in costs.items():
        print(f"Engine.handoff, {label:31s} {figure:10.1f} us/call  x{figure / baseline:7.2f}")
    for name in [*CASES, "regex"]:
        found = in_child(name, args.deadline)
        label = f"{REGEX_CALLS} distinct regex patterns" if name == "regex" else name
        if found is None:
            print(f"{label:45s} did not finish within {args.deadline:.0f} s")
            continue
        ratio = found["seconds"] * 1e6 / baseline
        extra = (f"rss {found['rss_mb'][0]} -> {found['rss_mb'][1]} MB" if name == "regex" else
                 f"refused={found['refused']} reason {found['reason_chars']} chars")
        print(f"{label:45s} {found['seconds']:9.3f} s  x{ratio:9.0f}  {extra}")


if __name__ == "__main__":
    main()
