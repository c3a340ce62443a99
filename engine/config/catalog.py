"""Every bundled JSON Schema by short name: the config documents and the canonical specs.

Short names are what `handoff schema` and `handoff validate` take ("agent", "cases",
"capsule_format_v1"). This module maps them to bundled files and exports copies; it never
fetches anything and never writes outside the folder it is given.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from engine.config.schemas import bundled_files, load_schema, schema_root
from engine.errors import SchemaNotFoundError, UsageError

CONFIG_SUFFIX = ".schema.json"
SPECS = "specs/"


@dataclass(frozen=True, slots=True)
class BundledSchema:
    """One bundled schema: its short `name`, its `file` under the schema folder, its kind."""

    name: str
    file: str
    kind: Literal["config", "spec"]

    def load(self) -> dict[str, Any]:
        """A fresh copy of the schema."""
        return load_schema(self.file)

    @property
    def title(self) -> str:
        return str(self.load().get("title", ""))

    @property
    def schema_id(self) -> str:
        return str(self.load().get("$id", ""))


def _entry(file: str) -> BundledSchema:
    if file.startswith(SPECS):
        return BundledSchema(file[len(SPECS):].removesuffix(".json"), file, "spec")
    return BundledSchema(file.removesuffix(CONFIG_SUFFIX), file, "config")


def catalog() -> tuple[BundledSchema, ...]:
    """Every bundled schema: the config documents, then the canonical specs, each sorted."""
    return tuple(_entry(file) for file in bundled_files())


def find_schema(name: str) -> BundledSchema:
    """The bundled schema called `name` (short name or file name); SchemaNotFoundError lists
    the known names otherwise."""
    entries = catalog()
    for entry in entries:
        if name in (entry.name, entry.file, os.path.basename(entry.file)):
            return entry
    raise SchemaNotFoundError(name, [entry.name for entry in entries])


def schema_file(entry: BundledSchema) -> Path:
    """The bundled file on disk (installed packages are unpacked folders)."""
    return Path(str(schema_root() / entry.file)).resolve()


def export_schemas(folder: str | os.PathLike[str]) -> list[Path]:
    """Copy every bundled schema into `folder` (created if needed; specs under `specs/`), byte
    for byte, replacing earlier copies of the same name. Returns the files written."""
    written = []
    for entry in catalog():
        target = Path(folder) / entry.file
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes((schema_root() / entry.file).read_bytes())
        except OSError as error:
            raise UsageError(f"cannot export the schemas: {target}: {error.strerror or error}"
                             ) from None
        written.append(target)
    return written
