"""The Prometheus observer and `serve`, importable here beside the other observers (extra
`prometheus`). They live in `engine.metrics.prometheus`, below the runtime, because
`Engine.metrics()` builds the observer itself.
"""

from engine.metrics.prometheus import PrometheusObserver, serve

__all__ = ["PrometheusObserver", "serve"]
