"""Benchmark: hot reload. Edit-to-effective latency (file written -> new version serving) for the
banking set (and each kind of edit: a description, a keyword, an example, a rule) and a
generated large set, and on banking for each settle window (`settle_ms`, the
quiet time the files need before a build is swapped in; settle 0 is the same-run baseline);
the worst event-loop stall during reloads with the async watcher beside the same reloads run
inline on the loop; routes/s while reloading every 100 ms (failed routes must be 0) beside
routes/s without reloads. Never asserts times.
Run: python tests/bench/bench_reload.py [--agents 1000] [--edits 30] [--reloads 50]
     [--settle-ms 0,50,100,150,200] [--settle-only]"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_configs import write_config_set

from engine.loading.loader import load_config
from engine.routing import RouteRequest
from engine.runtime.engine import Engine
from engine.runtime.reload import Reloader
from engine.runtime.watch import ConfigWatcher, WatchOptions

BANKING = Path(__file__).resolve().parents[2] / "configs" / "banking"
SHOPPING = "I want a new credit card with cashback"
TARGETS = ("card_recommendation", "investment_advisor")
Edit = Callable[[int], None]


def banking_variant(n: int) -> str:
    text = (BANKING / "routing.yaml").read_text(encoding="utf-8")
    return text.replace("    to: card_recommendation\n", f"    to: {TARGETS[n % 2]}\n")


def banking_edit(folder: Path) -> Edit:
    """Each call writes the variant that is not on disk now, so every edit is a real change."""
    variants = [banking_variant(0), banking_variant(1)]
    path = folder / "routing.yaml"

    def edit(n: int) -> None:  # an editor-style save: temp file, then an atomic rename
        current = path.read_text(encoding="utf-8")
        temp = path.with_name(".routing.yaml.swp")
        temp.write_text(variants[1] if current == variants[0] else variants[0], encoding="utf-8")
        os.replace(temp, path)

    return edit


def toggle_edit(path: Path, old: str, new: str) -> Edit:
    """An editor-style save that swaps `old` and `new` in `path` on every call."""

    def edit(n: int) -> None:
        text = path.read_text(encoding="utf-8")
        changed = text.replace(old, new, 1) if old in text else text.replace(new, old, 1)
        temp = path.with_name(f".{path.name}.swp")
        temp.write_text(changed, encoding="utf-8")
        os.replace(temp, path)

    return edit


def banking_edits(folder: Path) -> dict[str, Edit]:
    """One edit of each kind of file and field of the banking set."""
    capabilities = folder / "capabilities.yaml"
    return {
        "an agent's description (patched)": toggle_edit(
            folder / "agents" / "claims.yaml", "Files and tracks", "Opens and tracks"),
        "a capability's keyword": toggle_edit(capabilities, "- metal card\n", "- steel card\n"),
        "an example (the model is fitted again)": toggle_edit(
            capabilities, "- which card should I get\n", "- which card should I pick\n"),
        "a rule's target": banking_edit(folder),
    }


def agent_edit(folder: Path) -> Edit:
    path = folder / "agents" / "agent_0005.yaml"
    text = path.read_text(encoding="utf-8")
    return lambda n: path.write_text(text.replace("Generated agent", f"Edit {n} of agent"),
                                     encoding="utf-8")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


def wait_applied(reloader: Reloader, before: int, timeout: float = 300.0) -> None:
    deadline = time.monotonic() + timeout
    while reloader.stats.applied == before:
        if time.monotonic() > deadline:
            raise SystemExit("reload never applied")
        time.sleep(0.0005)


def edit_latency(
    folder: Path, edit: Edit, edits: int, options: WatchOptions | None = None
) -> tuple[list[float], list[float]]:
    """(edit -> serving latencies, build durations) with the thread watcher (default options
    unless given)."""
    reloader = Reloader(folder)
    latencies, builds = [], []
    watcher = ConfigWatcher(reloader, options=options,
                            on_result=lambda r: builds.append(r.duration_s))
    with watcher:
        while not watcher.ready.wait(0.01):
            pass
        for n in range(1, edits + 1):
            before = reloader.stats.applied
            started = time.perf_counter()
            edit(n)
            wait_applied(reloader, before)
            latencies.append(time.perf_counter() - started)
            time.sleep(0.05)
    return latencies, builds


async def _ticker(lags: list[float], stop: asyncio.Event) -> None:
    interval = 0.001
    while not stop.is_set():
        started = time.perf_counter()
        await asyncio.sleep(interval)
        lags.append(time.perf_counter() - started - interval)


async def _stall_watched(folder: Path, edit: Edit, reloads: int) -> list[float]:
    reloader = Reloader(folder)
    lags: list[float] = []
    stop = asyncio.Event()
    ticker = asyncio.create_task(_ticker(lags, stop))
    async with ConfigWatcher(reloader) as watcher:
        while not watcher.ready.is_set():
            await asyncio.sleep(0.01)
        del lags[:]
        for n in range(1, reloads + 1):
            before = reloader.stats.applied
            edit(n)
            while reloader.stats.applied == before:
                await asyncio.sleep(0.001)
    stop.set()
    await ticker
    return lags


async def _stall_idle(seconds: float) -> list[float]:
    lags: list[float] = []
    stop = asyncio.Event()
    ticker = asyncio.create_task(_ticker(lags, stop))
    await asyncio.sleep(seconds)
    stop.set()
    await ticker
    return lags


async def _stall_inline(folder: Path, edit: Edit, reloads: int) -> list[float]:
    reloader = Reloader(folder)
    lags: list[float] = []
    stop = asyncio.Event()
    ticker = asyncio.create_task(_ticker(lags, stop))
    await asyncio.sleep(0.01)
    del lags[:]
    for n in range(1, reloads + 1):
        edit(n)
        reloader.reload()  # parse + validate + compile on the loop itself
        await asyncio.sleep(0.005)
    stop.set()
    await ticker
    return lags


def routes_per_second(folder: Path, *, reload_every: float | None, seconds: float) -> tuple[
    float, int, int, int
]:
    """(routes/s, failed routes, reloads applied, rejected) routing from one thread."""
    expected = {}
    for n, target in enumerate(TARGETS):
        variant = folder.parent / f"variant-{n}"
        shutil.copytree(folder, variant, dirs_exist_ok=True)
        (variant / "routing.yaml").write_text(banking_variant(n), encoding="utf-8")
        expected[load_config(variant).version] = target
    engine = Engine(folder)
    edit, stop = banking_edit(folder), threading.Event()

    def edits() -> None:  # save, then reload on this thread: a reload every `reload_every`
        n = 0
        while reload_every is not None and not stop.wait(reload_every):
            n += 1
            edit(n)
            engine.reload()

    request = RouteRequest(sender="concierge", text=SHOPPING)
    routes = failed = 0
    writer = threading.Thread(target=edits)
    writer.start()
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        try:
            decision = engine.route(request)
            failed += expected.get(decision.config_version) != decision.target
        except Exception:  # a failed route is what this measures
            failed += 1
        routes += 1
    stop.set()
    writer.join()
    stats = engine.reloader.stats
    engine.close()
    return routes / seconds, failed, stats.applied, stats.rejected


def settle_sweep(banking: Path, windows: list[int], edits: int) -> None:
    """Edit -> serving on banking for each settle window, interleaved round by round so that
    machine noise hits every window alike; ratios against the first window."""
    latencies: dict[int, list[float]] = {ms: [] for ms in windows}
    rounds = 3
    for _ in range(rounds):
        for ms in windows:
            count, options = max(1, edits // rounds), WatchOptions(settle_ms=ms)
            found, _ = edit_latency(banking, banking_edit(banking), count, options)
            latencies[ms] += found
    base = pct(latencies[windows[0]], .5)
    for ms in windows:
        p50 = pct(latencies[ms], .5)
        print(f"edit -> serving, banking, settle_ms={ms} ({len(latencies[ms])} edits): p50 "
              f"{p50:.0f} ms, p99 {pct(latencies[ms], .99):.0f} ms; p50 ratio to settle_ms="
              f"{windows[0]}: {p50 / base:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--agents", type=int, default=1000)
    parser.add_argument("--edits", type=int, default=30, help="edits timed on banking")
    parser.add_argument("--large-edits", type=int, default=5, help="edits timed on the large set")
    parser.add_argument("--kind-edits", type=int, default=3,
                        help="edits timed on banking for each kind of edit")
    parser.add_argument("--reloads", type=int, default=50, help="reloads for the stall figures")
    parser.add_argument("--stall-agents", type=int, default=100,
                        help="size of the generated set reloaded for the large stall figure")
    parser.add_argument("--settle-ms", default="0,50,100,150,200",
                        help="settle windows timed on banking (the first is the baseline)")
    parser.add_argument("--settle-only", action="store_true", help="only the settle figures")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-reload-"))
    try:
        banking = Path(shutil.copytree(BANKING, scratch / "banking"))
        settle_sweep(banking, [int(ms) for ms in args.settle_ms.split(",")], args.edits)
        if args.settle_only:
            return
        latencies, builds = edit_latency(banking, banking_edit(banking), args.edits)
        print(f"edit -> serving, banking ({args.edits} edits): p50 {pct(latencies, .5):.0f} ms, "
              f"p99 {pct(latencies, .99):.0f} ms; build alone p50 {pct(builds, .5):.0f} ms")
        for kind, edit in banking_edits(banking).items():
            latencies, builds = edit_latency(banking, edit, args.kind_edits)
            print(f"  banking, {kind} ({args.kind_edits} edits): edit -> serving p50 "
                  f"{pct(latencies, .5):.0f} ms; build alone p50 {pct(builds, .5):.0f} ms")
        large = write_config_set(scratch / "large", agents=args.agents)
        latencies, builds = edit_latency(large, agent_edit(large), args.large_edits)
        print(f"edit -> serving, {args.agents} agents ({args.large_edits} edits): "
              f"p50 {pct(latencies, .5):.0f} ms, p99 {pct(latencies, .99):.0f} ms; "
              f"build alone p50 {pct(builds, .5):.0f} ms")

        idle = asyncio.run(_stall_idle(3.0))
        print(f"loop lag of an idle loop over 3 s (machine noise floor): worst "
              f"{max(idle) * 1000:.1f} ms, p99 {pct(idle, .99):.1f} ms")
        stall_set = write_config_set(scratch / "stall", agents=args.stall_agents)
        for name, folder, edit in (("banking", banking, banking_edit(banking)),
                                   (f"{args.stall_agents} agents", stall_set,
                                    agent_edit(stall_set))):
            watched = asyncio.run(_stall_watched(folder, edit, args.reloads))
            inline = asyncio.run(_stall_inline(folder, edit, args.reloads))
            print(f"loop stall over {args.reloads} reloads of {name}: async watcher worst "
                  f"{max(watched) * 1000:.1f} ms (p99 {pct(watched, .99):.1f} ms); inline on the "
                  f"loop worst {max(inline) * 1000:.1f} ms; ratio "
                  f"{max(inline) / max(max(watched), 1e-6):.1f}x")

        fresh = Path(shutil.copytree(BANKING, scratch / "routes" / "banking"))
        quiet, quiet_failed, _, _ = routes_per_second(fresh, reload_every=None, seconds=3)
        busy, failed, applied, rejected = routes_per_second(fresh, reload_every=0.1, seconds=5)
        print(f"routes/s while reloading every 100 ms: {busy:,.0f} ({applied} reloads applied, "
              f"{rejected} rejected, {failed} failed routes); without reloads: {quiet:,.0f} "
              f"({quiet_failed} failed); ratio {busy / quiet:.2f}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
