"""Adapters for agent and voice runtimes, one module per framework (each an optional extra:
`openai_agents`, `langgraph`, `livekit`, `pipecat`). They translate between a framework and the
engine; every routing, policy, payload and lifecycle decision stays in the engine."""
