"""Router latency (p50/p99) at 100, 1,000 and 10,000 agents (or `--agents`) beside references,
and the compile-time index build. Run: `python tests/bench/bench_router.py [--quick]`.

The main reference is seed 000's algorithm as its document publishes it (`seed000.py`:
`HandoffRouter` over a pydantic `AgentCapabilityRegistry`, every agent's capability set
scanned per request), given each agent's capability words, routing the same realistic mix of
utterances (tool calls, queue rules, keyword requests, off-topic chatter) in the same run. A
second reference scores every agent against the matched capabilities (same answer as the
keyword layer, no index). Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.config.models import ConfigSet
from engine.routing import Router, RouteRequest
from engine.routing.compiled import compile_tables
from engine.routing.index import build_keyword_index
from engine.routing.snapshot import Snapshot, compile_snapshot

sys.path.insert(0, str(Path(__file__).resolve().parent))
import seed000

RULES = 50
FILLER = ["please", "help", "me", "with", "the", "issue", "about", "today", "urgent", "my"]


SHAPES = {"spread": lambda agents: max(8, agents // 4), "shared": lambda agents: 100}
"""Capabilities by number of agents: `spread` keeps about 12 agents per capability at every
size; `shared` keeps 100 capabilities, so more agents share each one as the set grows (3 at
100 agents, 300 at 10,000)."""


def make_config(agents: int, seed: int = 7, *, shape: str = "spread") -> ConfigSet:
    """`agents` agents with 3 capabilities each from a vocabulary whose size the `shape`
    gives (2 keywords, one of them a phrase, and a synonym each), a trigger each, 50 rules."""
    rng = random.Random(seed)
    vocabulary = SHAPES[shape](agents)
    capabilities = {
        f"cap{c}": {
            "name": f"cap{c}",
            "keywords": [f"kw{c}", f"topic{c} request"],
            "synonyms": [f"syn{c}"],
        }
        for c in range(vocabulary)
    }
    specs = {"hub": {"name": "hub", "peers": ["*"]}}
    for n in range(agents - 1):
        caps = rng.sample(range(vocabulary), 3)
        specs[f"agent{n}"] = {
            "name": f"agent{n}",
            "peers": ["*"],
            "handoff": {"trigger": f"handoff_agent{n}"},
            "capabilities": [f"cap{c}" for c in caps],
        }
    rules = [
        {
            "id": f"queue{r}",
            "to": f"agent{r % (agents - 1)}",
            "priority": 0,
            "when": {"context": {"queue": f"q{r}"}},
        }
        for r in range(RULES)
    ]
    return ConfigSet.model_validate(
        {
            "engine": {"name": f"bench-{agents}", "entry": "hub"},
            "agents": specs,
            "capabilities": capabilities,
            "routing": {"rules": rules, "fallback": "agent0"},
        }
    )


def _percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def measure(call: Callable[[], Any], iterations: int) -> tuple[float, float]:
    """p50 and p99 of one call, in microseconds."""
    for _ in range(min(200, iterations)):
        call()
    clock = time.perf_counter_ns
    samples = []
    gc.disable()
    try:
        for _ in range(iterations):
            start = clock()
            call()
            samples.append((clock() - start) / 1000)
    finally:
        gc.enable()
    return _percentiles(samples)


def keyword_text(config: ConfigSet, rng: random.Random) -> str:
    agent = config.agents[f"agent{rng.randrange(len(config.agents) - 1)}"]
    words = [
        f"kw{agent.capabilities[0][3:]}",
        f"topic{agent.capabilities[1][3:]} request",
        f"syn{agent.capabilities[2][3:]}",
    ]
    return " ".join(FILLER[:4] + words[:1] + FILLER[4:7] + words[1:] + FILLER[7:])


MIX = (("tool", 1), ("rule", 1), ("keyword", 6), ("chatter", 2))
"""Tenths of the mix: tool calls naming a handoff, queue-rule hits, keyword requests and
off-topic chatter that ends at the fallback."""
CHATTER = ["hello there", "can you hear me now", "thanks so much, that is all for today",
           "hold on a second please", "what was that again"]


def utterance_mix(config: ConfigSet, count: int, seed: int = 3) -> list[RouteRequest]:
    rng = random.Random(seed)
    kinds = [kind for kind, tenths in MIX for _ in range(tenths)]
    mix = []
    for _ in range(count):
        kind, text = rng.choice(kinds), keyword_text(config, rng)
        if kind == "tool":
            tool = f"handoff_agent{rng.randrange(len(config.agents) - 1)}"
            mix.append(RouteRequest("hub", text, tool=tool))
        elif kind == "rule":
            mix.append(RouteRequest("hub", text, context={"queue": f"q{rng.randrange(RULES)}"}))
        elif kind == "keyword":
            mix.append(RouteRequest("hub", text))
        else:
            mix.append(RouteRequest("hub", rng.choice(CHATTER)))
    return mix


def seed_router(config: ConfigSet) -> seed000.HandoffRouter:
    """Seed 000's router, each agent registered with the words of its capabilities (the
    seed's capabilities are words matched against the request's words)."""
    registry = seed000.AgentCapabilityRegistry()
    for agent in config.agents.values():
        words: list[str] = []
        for name in agent.capabilities:
            capability = config.capabilities[name]
            for phrase in (*capability.keywords, *capability.synonyms):
                words += phrase.lower().split()
        registry.register(agent.name, words)
    return seed000.HandoffRouter(registry)


def cycle(calls: list[Callable[[], Any]]) -> Callable[[], Any]:
    """One call per invocation, going round `calls`."""
    turn = itertools.cycle(calls)
    return lambda: next(turn)()


def naive_scoring(snapshot: Snapshot) -> Callable[[RouteRequest], str | None]:
    """The keyword layer without an index: score every agent against the capabilities the
    text signals, keep the best allowed one (same answer as the router's keyword layer)."""
    agents = list(snapshot.agents.values())

    def route(request: RouteRequest) -> str | None:
        signalled = set(snapshot.keyword_index.match(request.text))
        best, best_score = None, 0
        for agent in agents:
            score = len(signalled.intersection(agent.capabilities))
            if score > best_score and agent.name != request.sender and agent.enabled:
                best, best_score = agent.name, score
        return best

    return route


def build_times(call: Callable[[], Any], repeat: int = 5) -> str:
    """Median and best of `repeat` builds in ms with garbage collection on (as in real use,
    where a full collection may walk the whole 10,000-agent heap during a build), then the
    median with collection paused (the cost of the build itself)."""
    on, paused = [], []
    for samples, pause in ((on, False), (paused, True)):
        for _ in range(repeat):
            if pause:
                gc.disable()
            started = time.perf_counter()
            call()
            samples.append((time.perf_counter() - started) * 1000)
            gc.enable()
    return (f"{statistics.median(on):.1f} ms (best {min(on):.1f}; "
            f"{statistics.median(paused):.1f} with gc paused)")


def bench_size(agents: int, iterations: int, shape: str = "spread") -> tuple[list[str], float]:
    """The size's printed lines and its keyword routing p50 (us)."""
    config = make_config(agents, shape=shape)
    snapshot = compile_snapshot(config, version="bench", root="bench")
    compile_time = build_times(lambda: compile_snapshot(config, version="bench", root="bench"))
    index_time = build_times(lambda: build_keyword_index(config.agents.values(),
                                                         config.capabilities))
    tables_time = build_times(lambda: compile_tables(config))
    router = Router(snapshot)
    rng = random.Random(1)
    text = keyword_text(config, rng)
    trigger = RouteRequest("hub", text, tool=f"handoff_agent{agents // 2 - 1}")
    rule = RouteRequest("hub", text, context={"queue": f"q{RULES // 2}"})
    keyword = RouteRequest("hub", text)
    expected = naive_scoring(snapshot)(keyword)
    assert router.route(keyword).target == expected, "keyword layer disagrees with the scan"
    seed = seed_router(config)
    scan = naive_scoring(snapshot)
    slow_iterations = max(50, min(iterations, 2_000_000 // agents))
    mix = utterance_mix(config, 500)
    ours = cycle([lambda r=r: router.route(r) for r in mix])
    seed_requests = [
        seed000.HandoffRequest(from_agent=r.sender, to_agent="", task_description=r.text)
        for r in mix
    ]
    theirs = cycle([lambda r=r: seed.route(r) for r in seed_requests])
    rows = [
        ("trigger hit", measure(lambda: router.route(trigger), iterations)),
        ("rule hit (26th of 50 rules)", measure(lambda: router.route(rule), iterations)),
        ("keyword routing", measure(lambda: router.route(keyword), iterations)),
        ("utterance mix", measure(ours, iterations)),
        ("mix, seed 000 as published (reference)", measure(theirs, slow_iterations)),
        ("keyword, scoring scan (reference)", measure(lambda: scan(keyword), slow_iterations)),
    ]
    keyword_p50, mix_p50 = rows[2][1][0], rows[3][1][0]
    lines = [
        f"{agents:>6} agents ({shape}), build: keyword index {index_time}",
        f"{'':>15} routing tables {tables_time}",
        f"{'':>15} whole compile_snapshot {compile_time}",
    ]
    for label, (p50, p99) in rows:
        base, name = (mix_p50, "the mix") if "mix" in label else (keyword_p50, "keyword routing")
        ratio = f"  {p50 / base:7.1f}x the time of {name}" if "reference" in label else ""
        lines.append(f"        {label:<40} p50 {p50:9.2f} us   p99 {p99:9.2f} us{ratio}")
    return lines, keyword_p50


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer iterations")
    parser.add_argument("--shape", choices=sorted(SHAPES), action="append",
                        help="agents per capability: spread (about 12 at every size) or "
                             "shared (100 capabilities at every size); default: both")
    parser.add_argument("--agents", type=int, action="append", help="sizes (default: "
                        "100, 1,000, 10,000)")
    args = parser.parse_args()
    iterations = 2_000 if args.quick else 20_000
    print(
        "router benchmark (targets: trigger < 3 us; keyword at 10,000 agents < 40 us and "
        ">= 100x the seed scan; index build at 10,000 agents < 100 ms; keyword routing at "
        "10,000 agents <= 2x its cost at 100, in both shapes)"
    )
    sizes = sorted(args.agents or (100, 1_000, 10_000))
    for shape in args.shape or sorted(SHAPES, reverse=True):
        keyword = {}
        for agents in sizes:
            lines, keyword[agents] = bench_size(agents, iterations, shape)
            print("\n".join(lines))
        smallest, largest = sizes[0], sizes[-1]
        print(f"  keyword routing ({shape}), {largest:,} agents against {smallest:,}: "
              f"{keyword[largest] / keyword[smallest]:.2f}x")


if __name__ == "__main__":
    main()
