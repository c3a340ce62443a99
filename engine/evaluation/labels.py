"""A label map: which agent each label of a corpus means (`--labels FILE` of `handoff eval` and
`handoff learn`), so a corpus labelled by intent is scored or learned at agent level as it is.

A YAML or JSON mapping `label: agent`, at the top or under `intents:`; a value may also be
`{agent: NAME, ...}` (other keys are notes). Reads one small file; never routes.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from engine.config.validate import suggest
from engine.errors import UsageError

MAX_BYTES = 1 << 20


def load_labels(path: str | Path, *, agents: Collection[str]) -> dict[str, str]:
    """label -> agent from the file at `path`; a `UsageError` naming what is wrong."""
    where = Path(path)
    try:
        if where.stat().st_size > MAX_BYTES:
            raise UsageError(f"--labels {str(path)!r} is larger than {MAX_BYTES} bytes")
        # every scalar read as the text it is: labels such as 001, 1.10 or null stay labels
        data = _merged(YAML(typ="base").load(where))
    except (OSError, UnicodeDecodeError, YAMLError) as error:
        raise UsageError(f"--labels {str(path)!r} cannot be read: {error}") from None
    if isinstance(data, dict) and isinstance(data.get("intents"), dict):
        data = data["intents"]
    if not isinstance(data, dict) or not data:
        raise UsageError(f"--labels {str(path)!r} must map labels to agents")
    return {str(label): _agent(str(path), str(label), value, agents)
            for label, value in data.items()}


def _merged(value: Any) -> Any:
    """A mapping with its merge keys (`<<: *common`) applied, as a YAML loader that knows them
    would (the base loader reads every scalar as text, and `<<` as a plain key)."""
    if not isinstance(value, dict) or "<<" not in value:
        return value
    bases = value["<<"] if isinstance(value["<<"], list) else [value["<<"]]
    found: dict[Any, Any] = {}
    for base in reversed(bases):
        if isinstance(base, dict):
            found.update(_merged(base))
    found.update((key, item) for key, item in value.items() if key != "<<")
    return found


def _agent(path: str, label: str, value: Any, agents: Collection[str]) -> str:
    value = _merged(value)
    agent = value.get("agent") if isinstance(value, dict) else value
    if not isinstance(agent, str) or not agent:
        raise UsageError(f"--labels {path!r}: label {label!r} names no agent")
    if agent not in agents:
        raise UsageError(f"--labels {path!r}: label {label!r} maps to {agent!r}, which is not "
                         f"an agent of the config{suggest(agent, agents)}")
    return agent
