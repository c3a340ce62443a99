"""A simulated voice session on the banking config: `python -m examples.voice_orchestrator`.

Scripted caller turns and scripted model tool calls drive real handoffs through `engine.Engine`:
routing, a policy refusal, a return to the concierge, greetings from agent metadata, and a
lifecycle record per handoff in a SQLite file. It uses only the public `engine` API.
"""
