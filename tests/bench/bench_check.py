"""Benchmark: `handoff check` on a generated 1,000-agent config set vs check-jsonschema.

Both tools run in the same run, interleaved. The baseline is ONE check-jsonschema process, as
a user runs it: the agent schema over every agent file (check-jsonschema takes one schema per
invocation; the set's three other files are left to it, so the baseline reads fewer files and
checks less than `handoff check`, which also links, checks payload schemas and topology).
Also compares parse strategies for the parse stage. Prints figures and ratios; never asserts.
Run: python tests/bench/bench_check.py [--agents N] [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_configs import write_config_set

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
MEASURE = (
    "import resource, subprocess, sys, time\n"
    "start = time.perf_counter()\n"
    "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode\n"
    "wall = time.perf_counter() - start\n"
    "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(wall, usage.ru_maxrss / 1024, code, usage.ru_utime + usage.ru_stime)\n"
)


USER_ENV = {name: value for name, value in os.environ.items()
            if name != "PYTHONDONTWRITEBYTECODE"}
"""Both tools run as a user's install runs them: pip byte-compiles the packages it installs
(the baseline's among them), so the engine's modules keep their bytecode caches too; an
editable install under PYTHONDONTWRITEBYTECODE=1 would compile them from source every run."""


def measure(command: list[str]) -> tuple[float, float, int, float]:
    """Wall seconds, peak RSS in MiB, exit code and CPU seconds of one child process."""
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, *command], capture_output=True, text=True, check=True,
        env=USER_ENV,
    ).stdout.split()
    return float(out[0]), float(out[1]), int(out[2]), float(out[3])


def warm_up(*commands: list[str]) -> None:
    """One untimed run of each command: bytecode caches written, files in the page cache."""
    for command in commands:
        measure(command)


def bench_startup(repeat: int) -> None:
    """Start-up: `handoff check` on the small shipped set beside `check-jsonschema --version`
    (its start-up alone), interleaved; the median of the pair-by-pair ratios."""
    ours = [str(BIN / "handoff"), "check", str(REPO / "configs" / "banking")]
    theirs = [str(BIN / "check-jsonschema"), "--version"]
    warm_up(ours, theirs)
    pairs = [(measure(ours)[0], measure(theirs)[0]) for _ in range(repeat)]
    ratios = sorted(mine / base for mine, base in pairs)
    print(f"start-up: handoff check configs/banking {statistics.median(p[0] for p in pairs):.3f} s,"
          f" check-jsonschema --version {statistics.median(p[1] for p in pairs):.3f} s; ratio "
          f"median {statistics.median(ratios):.2f}x (pairs {ratios[0]:.2f}-{ratios[-1]:.2f}x, "
          f"{repeat} pairs; target <= 1.0x)")


def checkjsonschema_run(folder: Path) -> list[str]:
    """One check-jsonschema invocation: the agent schema over every agent file."""
    return [
        str(BIN / "check-jsonschema"),
        "--schemafile",
        str(REPO / "schemas" / "agent.schema.json"),
        *sorted(str(path) for path in (folder / "agents").glob("*.yaml")),
    ]


def bench_tools(folder: Path, repeat: int) -> None:
    ours: list[tuple[float, float, float]] = []
    theirs: list[tuple[float, float, float]] = []
    command = [str(BIN / "handoff"), "check", str(folder), "--strict"]
    warm_up(command, checkjsonschema_run(folder))
    for _ in range(repeat):  # interleaved, so both tools see the same machine load
        wall, peak, code, cpu = measure(command)
        assert code == 0, "generated set must be clean"
        ours.append((wall, cpu, peak))
        wall, peak, code, cpu = measure(checkjsonschema_run(folder))
        assert code == 0, "check-jsonschema must accept the set"
        theirs.append((wall, cpu, peak))
    report = {}
    for name, rows in (("handoff check", ours), ("check-jsonschema", theirs)):
        wall, cpu = statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows)
        peak = max(r[2] for r in rows)
        report[name] = (wall, cpu, peak)
        print(
            f"{name:17s} wall {wall:6.2f} s  cpu {cpu:6.2f} s  peak {peak:6.1f} MiB"
            f"  (median of {repeat})"
        )
    print(
        "  check-jsonschema: one process over the agent files; handoff check reads the whole "
        "set, links, checks payload schemas and topology"
    )
    (ow, oc, op), (tw, tc, tp) = report["handoff check"], report["check-jsonschema"]
    print(
        f"ratio handoff/check-jsonschema: wall {ow / tw:.2f}x, cpu {oc / tc:.2f}x, "
        f"peak {op / tp:.2f}x  (target at 1,000 agents: <= 0.50x time)"
    )


def bench_parsers(folder: Path) -> None:
    """The parse-stage choice: one event pass with positions vs ruamel's loaders."""
    from ruamel.yaml import YAML

    from engine.config.parse import parse_text

    texts = [path.read_text("utf-8") for path in sorted((folder / "agents").glob("*.yaml"))]
    safe, rt = YAML(typ="safe", pure=True), YAML(typ="rt")
    candidates = {
        "event pass with positions (used)": lambda text: parse_text(text, "f.yaml"),
        "ruamel safe load, no positions": safe.load,
        "ruamel round-trip load": rt.load,
    }
    timings = {}
    for name, parse in candidates.items():
        start = time.perf_counter()
        for text in texts:
            parse(text)
        timings[name] = time.perf_counter() - start
    base = timings["ruamel safe load, no positions"]
    for name, seconds in timings.items():
        print(
            f"parse {len(texts)} agent files: {name:34s} {seconds:5.2f} s  ({seconds / base:.2f}x)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--agents", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if shutil.which(str(BIN / "check-jsonschema")) is None:
        sys.exit("check-jsonschema is not installed (pip install -e '.[bench]')")
    with tempfile.TemporaryDirectory() as temp:
        folder = write_config_set(Path(temp) / "generated", agents=args.agents)
        files = sum(1 for _ in folder.rglob("*.yaml"))
        size = sum(path.stat().st_size for path in folder.rglob("*.yaml"))
        print(json.dumps({"agents": args.agents, "files": files, "bytes": size}))
        bench_tools(folder, args.repeat)
        bench_parsers(folder)
    bench_startup(max(args.repeat, 10))


if __name__ == "__main__":
    main()
