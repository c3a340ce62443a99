from engine.cli.main import run

run()
