"""Runnable embeddings of the engine; run them from the repository root with `python -m`."""
