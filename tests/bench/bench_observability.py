"""What observability costs Engine.handoff (memory store, configs/banking, a voice turn).

1. Nothing observing, the extras not installed: this tree against the engine as it was before
   the observer seam (`--baseline-ref`, default the parent of the commit that added it), each in
   fresh interpreters, rounds interleaved; in this tree's runs `opentelemetry` and
   `prometheus_client` cannot be imported at all.
2. Observed, in one process, rounds interleaved: the same engine without observers against
   Prometheus metrics, OpenTelemetry traces (SDK, batch processor, an exporter that drops
   spans), both, everything (plus OTel metrics), and traces sampled at 10 % with Prometheus.

Times are CPU time of the process (every thread: a span exporter's work counts), so other
processes' load disturbs them less than wall time; each figure is the best of R rounds, the
least disturbed one. Run: python tests/bench/bench_observability.py [--calls N] [--rounds R]
[--baseline-ref REF]. Needs the otel and prometheus extras. Prints figures and ratios; asserts
nothing. Figures on a shared machine are noisy: compare the ratios, taken in the same run.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Sequence
from io import BytesIO
from pathlib import Path
from typing import Any

from bench_handoff import TURN  # the same voice turn (run as a script: tests/bench is on the path)

REPO = Path(__file__).resolve().parents[2]
BANKING = REPO / "configs" / "banking"
BLOCK = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('opentelemetry', 'prometheus_client'):
            raise ModuleNotFoundError(f'No module named {name!r}', name=name)
sys.meta_path.insert(0, Block())
"""
WORKER = """
import time
from engine.runtime.engine import Engine
TURN = {turn!r}
with Engine({banking!r}, sweep_interval_s=None) as engine:
    for _ in range(300):
        engine.handoff(**TURN)
    best = float('inf')
    for _ in range(3):
        start = time.process_time()
        for _ in range({calls}):
            engine.handoff(**TURN)
        best = min(best, (time.process_time() - start) / {calls} * 1e6)
    print(best)
"""


def per_call_us(call: Callable[[], Any], calls: int) -> float:
    start = time.process_time()
    for _ in range(calls):
        call()
    return (time.process_time() - start) / calls * 1e6


def baseline_ref() -> str:
    """The parent of the commit that added the observer seam."""
    added = subprocess.run(
        ["git", "log", "--diff-filter=A", "--format=%H", "-1", "--",
         "engine/observability/observer.py"],
        cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
    return f"{added}^"


def unpack(ref: str, into: Path) -> Path:
    archive = subprocess.run(["git", "archive", ref, "engine", "schemas"], cwd=REPO,
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="tar")
    return into


def worker(pythonpath: Path, calls: int, *, block: bool) -> float:
    code = (BLOCK if block else "") + WORKER.format(turn=TURN, banking=str(BANKING), calls=calls)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={"PYTHONPATH": str(pythonpath)}, check=True)
    return float(done.stdout)


def extras_absent(args: argparse.Namespace) -> None:
    ref = args.baseline_ref or baseline_ref()
    with tempfile.TemporaryDirectory() as tmp:
        old = unpack(ref, Path(tmp))
        base, now = [], []
        for _ in range(args.rounds):
            base.append(worker(old, args.calls, block=False))
            now.append(worker(REPO, args.calls, block=True))
    b, n = min(base), min(now)
    print(f"1. no observer, extras not installed ({args.rounds} interleaved process pairs)")
    print(f"   before the seam ({ref}): {b:8.1f} us/call")
    print(f"   this tree:               {n:8.1f} us/call  x{n / b:.3f} ({n - b:+.1f} us)")


def observed(args: argparse.Namespace) -> None:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import (
        BatchSpanProcessor,
        SpanExporter,
        SpanExportResult,
    )
    from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased

    from engine.observability.otel import OTelObserver
    from engine.runtime.engine import Engine

    class Dropping(SpanExporter):
        def export(self, spans: Sequence[Any]) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    def tracer(sampler: Any = None) -> TracerProvider:
        provider = TracerProvider(sampler=sampler) if sampler else TracerProvider()
        provider.add_span_processor(BatchSpanProcessor(Dropping()))
        providers.append(provider)
        return provider

    providers: list[TracerProvider] = []
    meters = MeterProvider(metric_readers=[InMemoryMetricReader()])
    # name: (traces: None off, else the sampler ("all" for every span), OTel metrics, Prometheus)
    setups: dict[str, tuple[Any, bool, bool]] = {
        "no observer": (None, False, False),
        "Prometheus metrics": (None, False, True),
        "OTel traces": ("all", False, False),
        "OTel traces + Prometheus": ("all", False, True),
        "OTel traces + OTel metrics + Prometheus": ("all", True, True),
        "OTel traces sampled 10% + Prometheus": (ParentBased(TraceIdRatioBased(0.1)), False,
                                                 True),
    }
    engines = {name: Engine(BANKING, sweep_interval_s=None) for name in setups}
    for name, (sampler, otel_metrics, prometheus) in setups.items():
        engine = engines[name]
        if sampler is not None or otel_metrics:
            engine.observe(OTelObserver(
                tracer_provider=tracer(None if sampler == "all" else sampler),
                meter_provider=meters, traces=sampler is not None, metrics=otel_metrics))
        if prometheus:
            engine.metrics()
        for _ in range(300):
            engine.handoff(**TURN)
    times: dict[str, list[float]] = {name: [] for name in setups}
    for _ in range(args.rounds):
        for name, engine in engines.items():
            times[name].append(per_call_us(lambda e=engine: e.handoff(**TURN), args.calls))
        for provider in providers:
            provider.force_flush()
    base = min(times["no observer"])
    print(f"2. observed, in one process (best of {args.rounds} interleaved rounds x "
          f"{args.calls} calls)")
    for name, found in times.items():
        value = min(found)
        print(f"   {name:40s} {value:8.1f} us/call  x{value / base:.3f} ({value - base:+.1f} us)")
    for engine in engines.values():
        engine.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--baseline-ref", default=None)
    args = parser.parse_args()
    extras_absent(args)
    observed(args)


if __name__ == "__main__":
    main()
