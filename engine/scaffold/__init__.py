"""A starter config set (`handoff init`): the files, and writing them without overwriting.

Templates are package data under `engine/scaffold/files/`. Each file's modeline points at the
exported schemas by a path relative to that file, so editors validate it offline.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from engine.errors import UsageError

MODELINE = "# yaml-language-server: $schema={path}\n"
TEMPLATES: dict[str, str] = {
    "engine.yaml": "engine",
    "agents/frontdesk.yaml": "agent",
    "agents/billing.yaml": "agent",
    "capabilities.yaml": "capabilities",
    "routing.yaml": "routing",
    "cases.yaml": "cases",
}
"""Starter file (relative to the set's folder) -> the short name of its schema."""
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass(frozen=True, slots=True)
class Scaffold:
    """Where the set goes, where its editors find the schemas, and the set's name."""

    folder: Path
    schemas: Path
    name: str

    def modeline(self, relative: str, schema: str) -> str:
        """The yaml-language-server line of file `relative`: a path from it to the schema."""
        here = (self.folder / relative).parent.resolve()
        target = (self.schemas / f"{schema}.schema.json").resolve()
        return MODELINE.format(path=Path(os.path.relpath(target, here)).as_posix())

    def text(self, relative: str) -> str:
        body = resources.files("engine.scaffold") / "files"
        for part in relative.split("/"):
            body = body / part
        template = body.read_text(encoding="utf-8")
        return self.modeline(relative, TEMPLATES[relative]) + template.replace("{name}",
                                                                               self.name)

    def existing(self) -> list[Path]:
        """Starter files that already exist (init refuses to overwrite any of them)."""
        return [self.folder / name for name in TEMPLATES if os.path.lexists(self.folder / name)]

    def check(self) -> None:
        """UsageError when the set cannot be written: a bad name, a file where its folder goes,
        or files in the way."""
        if not NAME_PATTERN.match(self.name):
            raise UsageError(f"set name {self.name!r}: use letters, digits, '_', '-', '.'")
        for folder in (self.folder, *self.folder.parents):  # the nearest one that exists
            if folder.exists():
                if not folder.is_dir():
                    raise UsageError(f"{folder} is a file, not a folder")
                break
        clashes = self.existing()
        if clashes:
            listed = ", ".join(str(path) for path in clashes)
            raise UsageError(f"refusing to overwrite existing files: {listed}")

    def write(self) -> list[Path]:
        """Write every starter file, or none: UsageError naming the files in the way, or the
        file that could not be written (the ones written before it are removed)."""
        self.check()
        written: list[Path] = []
        for relative in TEMPLATES:
            target = self.folder / relative
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                with open(target, "x", encoding="utf-8") as out:
                    written.append(target)
                    out.write(self.text(relative))
            except OSError as error:
                for path in written:
                    path.unlink(missing_ok=True)
                raise UsageError(f"cannot write {target}: {error.strerror or error}") from None
        return written
