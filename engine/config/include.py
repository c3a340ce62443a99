"""Include stage: expand the root document's `include` globs into the files of a config set.

Globs are relative to the root file's folder and may not leave it, and neither may the files
they match: a symlink is followed only when its target (`realpath`) is inside that folder
(a Kubernetes ConfigMap's `..data` links are); one leading out is an `include-outside` error
naming the path. A glob matching nothing is an `include-no-match` error. This module only
lists files; it never reads them.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePath, PurePosixPath

from engine.config.codes import issue
from engine.config.folders import resolved
from engine.config.globs import Expansion, expand_glob, real_outside
from engine.config.positions import Document, PathKey, json_path
from engine.issues import Issue

KINDS = ("agents", "capabilities", "routing")
_WILDCARD = re.compile(r"[*?\[]")


@dataclass(frozen=True, slots=True)
class Included:
    """One file of the set: its kind, where it is, its name in issues, its path in the set."""

    kind: str
    path: str
    file: str
    relative: str


def leads_outside(path: Path, folder: Path) -> str | None:
    """Where `path` really is (symlinks resolved) when that is outside `folder`, else None."""
    return real_outside(path, resolved(folder) or os.path.abspath(folder))


def outside_issue(file: str, real: str) -> Issue:
    """`include-outside` for a file or folder of the set that is a link leading out."""
    message = f"is a link that leads outside the config set's folder (to {real}); not read"
    return issue(file, (0, 0), "", "include-outside", message)


def _escapes(pattern: str) -> bool:
    pure = PurePosixPath(pattern.replace("\\", "/"))
    return pure.is_absolute() or PurePath(pattern).is_absolute() or ".." in pure.parts


def _matches(
    root: Document, folder: Path, where: PathKey, pattern: str
) -> tuple[Expansion, Issue | None]:
    """What one include glob names, or the issue that explains why it names nothing."""
    located = (root.file, root.locate(where), json_path(where))
    glob = f"include glob {pattern!r}"
    if _escapes(pattern):
        return Expansion(), issue(*located, "include-outside", f"{glob} leaves the set's folder")
    if not PurePosixPath(pattern).parts or PurePosixPath(pattern) == PurePosixPath("."):
        return Expansion(), issue(*located, "include-invalid", f"{glob} names no file")
    try:
        found = expand_glob(folder, pattern)
    except (ValueError, OSError) as error:  # a pattern pathlib would refuse, e.g. "**x"
        return Expansion(), issue(*located, "include-invalid", f"{glob}: {error}")
    if not found.matches and not found.outside:
        return found, issue(*located, "include-no-match", f"{glob} matches no file")
    return found, None


def expand_includes(
    root: Document, folder: Path, display_folder: str, *, scanned: set[str] | None = None
) -> tuple[list[Included], list[Issue]]:
    """Files named by `root.data["include"]`, in kind order then glob order (sorted matches).

    Every issue is located at the glob in the root file (`json_path` `$.include.<kind>[i]`)
    or, for a link leading out, at the link: see `incomplete_kinds`. `scanned` collects the
    folders whose entries decided the result."""
    found: list[Included] = []
    issues: list[Issue] = []
    seen: set[str] = set()
    include = root.data.get("include", {})
    base = str(folder)  # every match is `folder / ...`, so its text starts with this
    prefix = 0 if base == "." else len(base.rstrip(os.sep)) + 1
    for kind in KINDS:
        for index, pattern in enumerate(include.get(kind, ())):
            expansion, problem = _matches(root, folder, ("include", kind, index), pattern)
            if scanned is not None:
                scanned |= expansion.scanned
            if problem is not None:
                issues.append(problem)
            for link, real in expansion.outside.items():
                issues.append(outside_issue(_display(display_folder, link, folder), real))
            for match in expansion.matches:
                if match in expansion.folders:  # a wildcard's folders are not its business
                    if not _WILDCARD.search(pattern):
                        issues.append(_folder_issue(root, ("include", kind, index), pattern))
                    continue
                if match in seen:
                    continue
                seen.add(match)
                relative = match[prefix:]
                file = relative if display_folder == "." else os.path.join(display_folder, relative)
                file = match if file == match else file  # one string where both are the same
                relative = relative.replace(os.sep, "/")
                found.append(Included(kind, match, file, relative))
    return found, issues


def incomplete_kinds(issues: list[Issue]) -> frozenset[str]:
    """The kinds whose files some include issue may have left out of the set."""
    return frozenset(
        kind for kind in KINDS
        if any(found.json_path.startswith(f"$.include.{kind}") for found in issues)
    ) | (frozenset(KINDS) if any(found.code == "include-outside" and not found.json_path
                                  for found in issues) else frozenset())


def _folder_issue(root: Document, where: PathKey, pattern: str) -> Issue:
    message = (f"include glob {pattern!r} names a folder, not a file "
               f"(all YAML files in it: '{pattern.rstrip('/')}/*.yaml')")
    return issue(root.file, root.locate(where), json_path(where), "not-a-file", message)


def _display(display_folder: str, path: Path, folder: Path) -> str:
    return str(PurePath(display_folder) / path.relative_to(folder).as_posix())
