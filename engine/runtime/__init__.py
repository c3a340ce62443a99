"""Embedding the engine in a running voice or agent runtime: the facade, sessions, hot reload."""
