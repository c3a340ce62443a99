"""What `engine.specs.load_schema` costs: the first call of a fresh process (parse, inline,
build the read-only view) against every later call (the shared view), per schema and
layout; and, as the baseline of the same run, a deep copy of that schema (what handing out
copies cost on every call).

Run: python tests/bench/bench_specs.py [--calls N]. Each first call runs in its own process,
so no cache is warm. Prints microseconds and ratios; asserts nothing.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import subprocess
import sys
import time

FIRST = """
import json, sys, time
start = time.perf_counter()
from engine.specs import load_schema
imported = time.perf_counter()
load_schema(sys.argv[1], layout=sys.argv[2])
print(json.dumps((time.perf_counter() - imported) * 1e6))
"""


def first_call_us(name: str, layout: str, rounds: int) -> float:
    """The median first-call cost, each in a fresh interpreter (import time excluded)."""
    samples = []
    for _ in range(rounds):
        done = subprocess.run([sys.executable, "-c", FIRST, name, layout], check=True,
                              capture_output=True, text=True)
        samples.append(float(json.loads(done.stdout)))
    return statistics.median(samples)


def later_call_us(name: str, layout: str, calls: int) -> float:
    from engine.specs import load_schema

    load_schema(name, layout=layout)  # type: ignore[arg-type]
    start = time.perf_counter()
    for _ in range(calls):
        load_schema(name, layout=layout)  # type: ignore[arg-type]
    return (time.perf_counter() - start) / calls * 1e6


def deep_copy_us(name: str, calls: int) -> float:
    from engine.specs import load_schema

    plain = copy.deepcopy(load_schema(name, layout="refs"))
    start = time.perf_counter()
    for _ in range(max(1, calls // 100)):
        copy.deepcopy(plain)
    return (time.perf_counter() - start) / max(1, calls // 100) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    from engine.specs import list_schemas

    print(f"{'schema':26} {'layout':7} {'first us':>9} {'later us':>9} {'first/later':>12} "
          f"{'deepcopy us':>12} {'deepcopy/later':>15}")
    for name in list_schemas():
        copied = deep_copy_us(name, args.calls)
        for layout in ("inline", "refs"):
            first = first_call_us(name, layout, args.rounds)
            later = later_call_us(name, layout, args.calls)
            print(f"{name:26} {layout:7} {first:9.0f} {later:9.2f} {first / later:12.0f} "
                  f"{copied:12.0f} {copied / later:15.0f}")


if __name__ == "__main__":
    main()
