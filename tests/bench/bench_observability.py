"""What observability costs Engine.handoff (memory store, configs/banking, a voice turn).

1. Nothing observing, the extras not installed: this tree against the engine as it was before
   the observer seam (`--baseline-ref`, default the parent of the commit that added it), each in
   fresh interpreters, rounds interleaved; in this tree's runs `opentelemetry` and
   `prometheus_client` cannot be imported at all.
2. Observed, in one process, rounds interleaved: the same engine without observers against
   Prometheus metrics, OpenTelemetry traces (SDK, batch processor, an exporter that drops
   spans), both, everything (plus OTel metrics), and traces sampled at 10 % and 1 % with
   Prometheus. A user's setup: the SDK's own TracerProvider and BatchSpanProcessor; the exporter
   drops spans, so export cost (OTLP encoding, network) is not in these figures.
3. The libraries' own floor, without the engine, in the same rounds: one span shaped as the
   engine's (start, made current, ten attributes, end) on the same provider, the same with the
   10 % sampler, and a prometheus_client counter increment plus histogram observation. What a
   setup costs above these is the engine's own glue.

Times are CPU time of the process (every thread: a span exporter's work counts), so other
processes' load disturbs them less than wall time; each figure is the best of R rounds, the
least disturbed one. Run: python tests/bench/bench_observability.py [--calls N] [--rounds R]
[--baseline-ref REF] [--observed-only]. Needs the otel and prometheus extras. Prints figures and
ratios; asserts nothing. Figures on a shared machine are noisy: compare the ratios, taken in the
same run.
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
        "OTel traces sampled 1% + Prometheus": (ParentBased(TraceIdRatioBased(0.01)), False,
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
    floors = library_floors(tracer(), tracer(ParentBased(TraceIdRatioBased(0.1))))
    times: dict[str, list[float]] = {name: [] for name in (*setups, *floors)}
    for _ in range(args.rounds):
        for name, engine in engines.items():
            times[name].append(per_call_us(lambda e=engine: e.handoff(**TURN), args.calls))
        for name, call in floors.items():
            times[name].append(per_call_us(call, args.calls))
        for provider in providers:
            provider.force_flush()
    base = min(times["no observer"])
    print(f"2. observed, in one process (best of {args.rounds} interleaved rounds x "
          f"{args.calls} calls)")
    for name in setups:
        value = min(times[name])
        print(f"   {name:40s} {value:8.1f} us/call  x{value / base:.3f} ({value - base:+.1f} us)")
    print("3. the libraries alone, no engine (same rounds; as a share of an unobserved handoff)")
    for name in floors:
        value = min(times[name])
        print(f"   {name:40s} {value:8.1f} us/call  {value / base:6.1%}")
    for engine in engines.values():
        engine.close()


def library_floors(every: Any, sampled: Any) -> dict[str, Callable[[], Any]]:
    """What the telemetry libraries cost on their own for what one handoff asks of them."""
    from opentelemetry import context, trace
    from prometheus_client import CollectorRegistry, Counter, Histogram

    attributes = {"gen_ai.agent.name": "concierge", "handoff.outcome": "routed",
                  "gen_ai.conversation.id": "call-1", "gen_ai.tool.name": "handoff_fraud_agent",
                  "handoff.target": "fraud_agent", "handoff.layer": "rule",
                  "handoff.rule": "lost-or-stolen-card", "handoff.record.id": "0" * 32,
                  "handoff.config.version": "sha256:0123456789ab", "handoff.keywords.matched": 1}

    def span(tracer: Any) -> Callable[[], None]:
        def one() -> None:
            started = tracer.start_span("handoff", attributes={"gen_ai.operation.name": "handoff"})
            token = context.attach(trace.set_span_in_context(started))
            context.detach(token)
            if started.is_recording():
                started.update_name("handoff concierge")
                started.set_attributes(attributes)
            started.end()
        return one

    registry = CollectorRegistry()
    counted = Counter("c", "c", ["layer", "outcome", "reason"], registry=registry).labels(
        "rule", "routed", "none")
    timed = Histogram("h", "h", ["layer", "outcome"], registry=registry).labels("rule", "routed")

    def count() -> None:
        counted.inc()
        timed.observe(0.0001)

    return {"SDK: one span as the engine's": span(every.get_tracer("floor")),
            "SDK: the same, sampled 10%": span(sampled.get_tracer("floor")),
            "prometheus_client: inc + observe": count}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--baseline-ref", default=None)
    parser.add_argument("--observed-only", action="store_true", help="skip part 1")
    args = parser.parse_args()
    if not args.observed_only:
        extras_absent(args)
    observed(args)


if __name__ == "__main__":
    main()
