"""`handoff console`: a local web app over one config set and an optional record store.

Topology, routing playground, record search and eval report, rendered on the server from the
engine's own code. Read-only: nothing here writes a config file or a record. Needs the
`console` extra (Starlette, uvicorn, Jinja2); `engine` never imports this package.
"""
