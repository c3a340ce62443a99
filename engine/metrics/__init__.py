"""The metrics every backend exports, declared once (`catalog`), and the Prometheus observer
(`prometheus`) that `Engine.metrics()` builds on demand.

Below the runtime, so the engine builds its Prometheus observer without importing the
observers in `engine.observability` (OpenTelemetry, logs), which stay independent of it. It
imports only the bottom (records, the Observer seam); `prometheus_client` only with its extra.
"""
