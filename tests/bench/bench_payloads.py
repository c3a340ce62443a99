"""Handoff payload check per call (`engine.runtime.payloads.check_payload`) on configs/banking,
beside a bare compiled jsonschema validator and the guard's schema-by-content path, same run.
Also shows that reloads leave the contract cache at its size.

Run: python tests/bench/bench_payloads.py [--calls N]. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from engine.guard import check_handoff_payload
from engine.guard.contracts import thaw
from engine.loading.loader import load_config
from engine.runtime.payloads import check_payload, contract_cache_size

BANKING = Path(__file__).resolve().parents[2] / "configs" / "banking"
VALID = {"reason": "card stolen", "suspected_amount": 120.5, "card_last4": "4242"}
INVALID = {"reason": "x", "card_last4": "12a4"}
RELOADS = 25


def per_call_us(call: Callable[[], Any], calls: int) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        best = min(best, time.perf_counter() - start)
    return best / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=5000)
    calls = parser.parse_args().calls
    snapshot = load_config(BANKING)
    schema = snapshot.agents["fraud_agent"].accepts.payload_schema
    bare = Draft202012Validator(thaw(schema), format_checker=Draft202012Validator.FORMAT_CHECKER)
    rows = {
        "jsonschema is_valid (baseline)": lambda: bare.is_valid(VALID),
        "check_payload valid": lambda: check_payload(
            snapshot, sender="concierge", target="fraud_agent", payload=VALID),
        "check_payload invalid (refusal built)": lambda: check_payload(
            snapshot, sender="concierge", target="fraud_agent", payload=INVALID),
        "check_payload target without schema": lambda: check_payload(
            snapshot, sender="concierge", target="claims", payload=VALID),
        "check_handoff_payload by schema content": lambda: check_handoff_payload(
            VALID, schema, target="fraud_agent"),
    }
    figures = {name: per_call_us(call, calls) for name, call in rows.items()}
    baseline = figures["jsonschema is_valid (baseline)"]
    for name, figure in figures.items():
        print(f"{name:42s} {figure:8.2f} us/call  x{figure / baseline:5.2f} of baseline")
    before = contract_cache_size()
    for _ in range(RELOADS):
        reloaded = load_config(BANKING)
        check_payload(reloaded, sender="concierge", target="fraud_agent", payload=VALID)
        del reloaded
    gc.collect()
    print(f"contract cache: {before} before, {contract_cache_size()} after {RELOADS} reloads")


if __name__ == "__main__":
    main()
