"""Include stage: expand the root document's `include` globs into the files of a config set.

Globs are relative to the root file's folder and may not leave it. A glob matching nothing is
an `include-no-match` error. This module only lists files; it never reads them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePath, PurePosixPath

from engine.config.codes import issue
from engine.config.positions import Document, PathKey, json_path
from engine.issues import Issue

KINDS = ("agents", "capabilities", "routing")


@dataclass(frozen=True, slots=True)
class Included:
    """One file of the set: its kind, where it is, its name in issues, its path in the set."""

    kind: str
    path: Path
    file: str
    relative: str


def _escapes(pattern: str) -> bool:
    pure = PurePosixPath(pattern.replace("\\", "/"))
    return pure.is_absolute() or PurePath(pattern).is_absolute() or ".." in pure.parts


def _matches(
    root: Document, folder: Path, where: PathKey, pattern: str
) -> tuple[list[Path], Issue | None]:
    """Files one include glob names, or the issue that explains why it names none."""
    located = (root.file, root.locate(where), json_path(where))
    if _escapes(pattern):
        message = f"include glob {pattern!r} leaves the config set's folder"
        return [], issue(*located, "include-outside", message)
    if not PurePosixPath(pattern).parts or PurePosixPath(pattern) == PurePosixPath("."):
        return [], issue(*located, "include-invalid", f"include glob {pattern!r} names no file")
    try:
        matches = sorted(folder.glob(pattern))
    except (ValueError, IndexError, OSError) as error:  # pathlib refuses e.g. "**x"
        return [], issue(*located, "include-invalid", f"include glob {pattern!r}: {error}")
    if not matches:
        return [], issue(*located, "include-no-match", f"include glob {pattern!r} matches no file")
    return matches, None


def expand_includes(
    root: Document, folder: Path, display_folder: str
) -> tuple[list[Included], list[Issue]]:
    """Files named by `root.data["include"]`, in kind order then glob order (sorted matches)."""
    found: list[Included] = []
    issues: list[Issue] = []
    seen: set[Path] = set()
    include = root.data.get("include", {})
    for kind in KINDS:
        for index, pattern in enumerate(include.get(kind, ())):
            matches, problem = _matches(root, folder, ("include", kind, index), pattern)
            if problem is not None:
                issues.append(problem)
            for match in matches:
                if match in seen or (os.path.isdir(match) and "*" in pattern):
                    continue
                seen.add(match)
                relative = match.relative_to(folder).as_posix()
                file = str(PurePath(display_folder) / relative)
                found.append(Included(kind, match, file, relative))
    return found, issues
