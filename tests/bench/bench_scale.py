"""Benchmark: how the engine scales with the number of agents, every figure beside a baseline
measured in the same run. First the start-up of `handoff check` on the shipped banking set
beside `check-jsonschema --version`; then for each size (default 100, 1,000 and 10,000
generated agents):

- `handoff check` wall time and peak memory beside ONE check-jsonschema process validating
  the same agent files (the user's one invocation; it reads fewer files and checks less);
- `Engine()` build time and memory (a fresh process; memory over the same process before the
  build), beside the check-jsonschema figures;
- edit -> serving for one changed agent file with the thread watcher, beside the cold build;
- the voice-turn budget (`voice_turn.py`): the worst stall a 1 ms probe task on the caller's
  loop sees while `async with engine.watcher()` starts and while one-file edits of each kind
  of file (engine.yaml, routing, capabilities, an agent) reload, beside the idle loop probed
  the same way in the same process just before.

Each measure runs in its own process; commands run with bytecode caches, as installed (see
`bench_check.USER_ENV`), after one untimed run. Never asserts times.
Run: python tests/bench/bench_scale.py [--sizes 100,1000,10000] [--repeat 3] [--edits 5]
     [--startups 10]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_check import bench_startup, measure, warm_up
from gen_configs import write_config_set

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
RACY_WAIT_S = 2.5
"""Files written this recently are always read again by a reload (they may change within
their timestamp's granularity); a real set's files are older."""

BUILD = """
import json, sys, time
from engine.runtime.engine import Engine
def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) / 1024
before = rss("VmRSS")
start = time.perf_counter()
engine = Engine(sys.argv[1], sweep_interval_s=None)
built = time.perf_counter() - start
print(json.dumps({"build_s": built, "added_mib": rss("VmRSS") - before, "peak_mib": rss("VmHWM")}))
"""

EDIT = """
import json, os, sys, time
from pathlib import Path
from engine.runtime.reload import Reloader
from engine.runtime.watch import ConfigWatcher
folder, edits, wait = Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
path = folder / "agents" / "agent_0005.yaml"
original = path.read_text(encoding="utf-8")
start = time.perf_counter()
reloader = Reloader(folder)
cold = time.perf_counter() - start
time.sleep(wait)
latencies = []
with ConfigWatcher(reloader) as watcher:
    while not watcher.ready.wait(0.01):
        pass
    for n in range(1, edits + 1):
        before = reloader.stats.applied
        temp = path.with_name(".agent_0005.yaml.swp")  # an editor's save: temp file, rename
        temp.write_text(original.replace("Generated agent", f"Edit {n} of agent"), "utf-8")
        started = time.perf_counter()
        os.replace(temp, path)
        while reloader.stats.applied == before:
            time.sleep(0.0005)
        latencies.append(time.perf_counter() - started)
        time.sleep(0.2)
path.write_text(original, encoding="utf-8")
print(json.dumps({"cold_s": cold, "latencies": latencies}))
"""

def run_json(script: str, *args: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, check=True
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def bench_check(folder: Path, repeat: int) -> tuple[float, float]:
    """(median check wall, check-jsonschema wall), interleaved so both see the same load."""
    agents = sorted(str(path) for path in (folder / "agents").glob("*.yaml"))
    baseline = [str(BIN / "check-jsonschema"), "--schemafile",
                str(REPO / "schemas" / "agent.schema.json"), *agents]
    command = [str(BIN / "handoff"), "check", str(folder)]
    warm_up(command, baseline)
    ours, theirs = [], []
    for _ in range(repeat):
        ours.append(measure(command))
        theirs.append(measure(baseline))
    if any(row[2] != 0 for row in ours + theirs):
        raise SystemExit("both tools must accept the generated set")
    wall = statistics.median(row[0] for row in ours)
    base = statistics.median(row[0] for row in theirs)
    peak, base_peak = max(row[1] for row in ours), max(row[1] for row in theirs)
    spread = max(row[0] for row in ours) / min(row[0] for row in ours)
    print(f"  check            {wall:7.2f} s  {peak:6.1f} MiB   check-jsonschema (1 process, "
          f"{len(agents)} agent files) {base:7.2f} s  {base_peak:6.1f} MiB   ratio time "
          f"{wall / base:.2f}x, memory {peak / base_peak:.2f}x  (max/min of {repeat}: "
          f"{spread:.2f})")
    return wall, base


def bench_build(folder: Path, base: float) -> float:
    built = run_json(BUILD, str(folder))
    build_s = float(str(built["build_s"]))
    print(f"  Engine() build   {build_s:7.2f} s  +{float(str(built['added_mib'])):5.1f} MiB "
          f"(process peak {float(str(built['peak_mib'])):5.1f} MiB)   ratio to check-jsonschema "
          f"time {build_s / base:.2f}x")
    return build_s


def bench_edit(folder: Path, edits: int) -> None:
    found = run_json(EDIT, str(folder), str(edits), str(RACY_WAIT_S))
    latencies = [float(value) for value in found["latencies"]]  # type: ignore[attr-defined]
    cold = float(str(found["cold_s"]))
    print(f"  edit -> serving  p50 {pct(latencies, .5) * 1000:6.0f} ms, worst "
          f"{max(latencies) * 1000:6.0f} ms over {edits} edits   cold load "
          f"{cold * 1000:7.0f} ms   ratio {pct(latencies, .5) / cold:.3f}x")


def bench_stall(folder: Path, edits: int) -> None:
    """The voice-turn budget as a caller's loop sees it (see `voice_turn.py`): a 1 ms probe's
    worst and p99 lateness while the watcher starts and while each kind of file is edited,
    beside the same probe on the idle loop of the same process just before."""
    out = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("voice_turn.py")), str(folder),
         "--edits", str(edits), "--wait-s", str(RACY_WAIT_S)],
        capture_output=True, text=True, check=True,
    )
    found = json.loads(out.stdout.strip().splitlines()[-1])
    idle = found.pop("idle loop")
    print(f"  loop stall (1 ms probe on the caller's loop)   idle loop worst "
          f"{idle['worst_ms']:5.1f} ms, p99 {idle['p99_ms']:4.1f} ms")
    for phase, seen in found.items():
        what = phase if phase == "watcher start" else f"{edits} edits of {phase}"
        print(f"    {what:28s} worst {seen['worst_ms']:5.1f} ms, p99 {seen['p99_ms']:4.1f} ms"
              f"   worst over idle worst {seen['worst_ms'] / max(idle['worst_ms'], 1e-3):.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each check command")
    parser.add_argument("--edits", type=int, default=5, help="edits timed per size")
    parser.add_argument("--reloads", type=int, default=5,
                        help="edits of each kind of file under the loop probe")
    parser.add_argument("--startups", type=int, default=10, help="start-up pairs timed")
    args = parser.parse_args()
    bench_startup(args.startups)
    scratch = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    try:
        for size in (int(text) for text in args.sizes.split(",")):
            folder = write_config_set(scratch / f"agents-{size}", agents=size)
            time.sleep(RACY_WAIT_S)
            print(f"{size:,} agents")
            _, base = bench_check(folder, args.repeat)
            bench_build(folder, base)
            bench_edit(folder, args.edits)
            bench_stall(folder, args.reloads)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
