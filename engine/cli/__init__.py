"""The `handoff` command line. `main.py` dispatches; one module per subcommand."""
