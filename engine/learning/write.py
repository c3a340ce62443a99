"""Writing a learned config set: a copy of the set's files with the learned examples and
keywords appended in place, each block under a comment naming its source, in a stable order.

Round-trips the YAML (comments and layout kept). It only ever writes into the output folder;
the original set is read, never written.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

from engine.config.root import CASES_FILES
from engine.errors import UsageError
from engine.evaluation.sweep import Thresholds, thresholds_of
from engine.learning.examples import Place
from engine.learning.keywords import Keyword
from engine.routing.snapshot import Snapshot


def _yaml() -> YAML:
    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def check_out(snapshot: Snapshot, out: Path) -> None:
    """A `UsageError` unless `out` can take the learned set: a folder that is new or empty,
    outside the set (checked before any learning, and again when writing)."""
    root = Path(snapshot.root).resolve().parent
    if out.is_symlink() and not out.exists():
        raise UsageError(f"--out {str(out)!r} is a link to nothing; give a folder")
    for folder in out.parents:  # the nearest folder on the way that exists must be one
        if folder.exists():
            if not folder.is_dir():
                raise UsageError(f"--out {str(out)!r}: {str(folder)!r} is a file, not a folder")
            break
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {str(out)!r} is a file, not a folder; learn never overwrites "
                         "files")
    if out.exists() and any(out.iterdir()):
        raise UsageError(f"--out {str(out)!r} is not empty; learn never overwrites files")
    if out.resolve() == root or root in out.resolve().parents:
        raise UsageError(f"--out {str(out)!r} is inside the config set; choose another folder")


def copy_set(snapshot: Snapshot, out: Path) -> dict[str, Path]:
    """Copy every file of the set (and its cases.yaml) into `out`, keeping their layout:
    source -> copy."""
    root = Path(snapshot.root).resolve().parent
    check_out(snapshot, out)
    copies = {}
    for name in snapshot.config.files:
        source = Path(name).resolve()
        target = out / source.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        copies[name] = target
    for cases in [root / name for name in CASES_FILES if (root / name).is_file()][:1]:
        out.mkdir(parents=True, exist_ok=True)  # its tests go with it (a link: what it names)
        shutil.copyfile(cases, out / cases.name)
    return copies


def _append(
    mapping: CommentedMap, key: str, items: Sequence[str], note: str, indent: int
) -> None:
    """Append `items` to `mapping[key]` (a list, created when absent), under a comment."""
    current = mapping.get(key)
    if current is None:
        mapping[key] = CommentedSeq(items)
        mapping.yaml_set_comment_before_after_key(key, before=note, indent=indent)
        return
    if not isinstance(current, CommentedSeq):
        current = CommentedSeq(current)
        mapping[key] = current
    current.fa.set_block_style()
    start = len(current)
    # What follows the old last item (a blank line, the next section's comment) moves
    # below the new last item, so the learned block sits right under the list it extends.
    trailing = current.ca.items.pop(start - 1, None) if start else None
    current.extend(items)
    if trailing is not None:
        current.ca.items[len(current) - 1] = trailing
    current.yaml_set_comment_before_after_key(start, before=note, indent=indent + 2)


def _edit(path: Path, change: Any) -> None:
    yaml = _yaml()
    with path.open(encoding="utf-8") as stream:
        data = yaml.load(stream)
    change(data)
    with path.open("w", encoding="utf-8") as stream:
        yaml.dump(data, stream)


def write_learned(
    snapshot: Snapshot,
    out: Path,
    added: Mapping[Place, Sequence[str]],
    keywords: Sequence[Keyword],
    *,
    source: str,
    thresholds: Thresholds | None = None,
) -> dict[str, Path]:
    """Write the learned set into `out` (with the examples layer's `thresholds` in its
    engine.yaml when they differ from the set's); returns source file -> written copy. A
    write that fails (a full disk, a folder it may not write) removes what it wrote and is a
    UsageError: no half-written set is left to block the next try."""
    existed = out.exists()
    try:
        return _write_learned(snapshot, out, added, keywords, source=source,
                              thresholds=thresholds)
    except OSError as error:
        _remove_written(out, existed)
        raise UsageError(f"cannot write the learned set into {str(out)!r}: "
                         f"{error.strerror or error}") from None


def _remove_written(out: Path, existed: bool) -> None:
    """Remove what a failed write left in `out` (it was empty or new: all of it is ours)."""
    if not existed:
        shutil.rmtree(out, ignore_errors=True)
        return
    for child in out.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)


def _write_learned(
    snapshot: Snapshot,
    out: Path,
    added: Mapping[Place, Sequence[str]],
    keywords: Sequence[Keyword],
    *,
    source: str,
    thresholds: Thresholds | None,
) -> dict[str, Path]:
    copies = copy_set(snapshot, out)
    config = snapshot.config
    note = f"learned by `handoff learn` from {source}"
    edits: dict[Path, list[Any]] = {}
    own: dict[Path, list[str]] = {}  # an agent file's own new examples

    def examples_of(place: Place, texts: list[str]) -> None:
        agent, capability = place
        if capability:
            spec_file = config.capabilities[capability].source
            edits.setdefault(copies[spec_file.file if spec_file else ""], []).append(
                lambda d: _append(d["capabilities"][capability], "examples", texts, note, 4))
        else:
            agent_file = config.agents[agent].source
            path = copies[agent_file.file if agent_file else ""]
            edits.setdefault(path, []).append(lambda d: _append(d, "examples", texts, note, 0))
            own[path] = texts

    for place in sorted(added):
        examples_of(place, sorted(set(added[place]), key=str.lower))
    _keyword_edits(snapshot, keywords, copies, edits, note)
    if thresholds is not None and thresholds != thresholds_of(snapshot):
        engine_file = config.engine.source
        edits.setdefault(copies[engine_file.file if engine_file else ""], []).append(
            lambda d: _set_thresholds(d, thresholds, note))
    for path, changes in edits.items():
        if len(changes) == 1 and path in own and _appended_as_text(path, own[path], note):
            continue
        _edit(path, lambda data, changes=changes: [change(data) for change in changes])
    return copies


_EXAMPLES_KEY = re.compile(r"^examples[ \t]*:", re.MULTILINE)
_PLAIN = re.compile(r"[A-Za-z](?:[\w ,.;'\"?!()\[\]{}/&$%@*+=~^<>|\\-]|[^\x00-\x7f]|:(?=\S)"
                    r"|(?<=\S)#)*")
"""Text that reads back as itself in a plain scalar (a letter first, no indicator YAML reads
inside a plain scalar, no trailing space); anything else is written double-quoted."""


def _scalar(text: str) -> str:
    plain = _PLAIN.fullmatch(text) and not text.endswith(" ")
    return text if plain and text.lower() not in _WORDS else json.dumps(text, ensure_ascii=False)


_WORDS = frozenset({"true", "false", "yes", "no", "on", "off", "y", "n", "null"})


def _appended_as_text(path: Path, texts: Sequence[str], note: str) -> bool:
    """Add `texts` as a new top-level `examples` list at the end of an agent file that has
    none, as text: a round trip through the YAML emitter costs learning from 10,000 rows a
    fifth of its time. Kept only when the file reads back as before plus exactly that list;
    False (nothing written) otherwise, and the caller round-trips the file."""
    text = path.read_text(encoding="utf-8")
    if _EXAMPLES_KEY.search(text):
        return False
    block = "".join(f"  - {_scalar(example)}\n" for example in texts)
    if text and not text.endswith("\n"):
        text += "\n"
    joined = f"{text}# {note}\nexamples:\n{block}"
    loader = YAML(typ="safe")
    try:
        before, after = loader.load(text), loader.load(joined)
    except YAMLError:
        return False
    if not isinstance(before, dict) or after != {**before, "examples": list(texts)}:
        return False
    path.write_text(joined, encoding="utf-8")
    return True


def _set_thresholds(document: CommentedMap, thresholds: Thresholds, note: str) -> None:
    """Set `examples.min_score`, `margin`, `temperature` and `unknown_words` in an engine
    document."""
    block = document.get("examples")
    if not isinstance(block, CommentedMap):
        block = CommentedMap()
        document["examples"] = block
    block["min_score"] = thresholds.min_score
    block["margin"] = thresholds.margin
    block["temperature"] = thresholds.temperature
    block["unknown_words"] = thresholds.unknown_words
    document.yaml_set_comment_before_after_key(
        "examples", before=f"{note} (min_score, margin, temperature, unknown_words: chosen "
                           "on held-out rows)")


def _keyword_edits(
    snapshot: Snapshot,
    keywords: Sequence[Keyword],
    copies: Mapping[str, Path],
    edits: dict[Path, list[Any]],
    note: str,
) -> None:
    """Queue the edits that add each keyword to its agent's primary capability."""
    config = snapshot.config
    by_capability: dict[str, list[str]] = {}
    for keyword in keywords:
        capability = primary_capability(snapshot, keyword.agent)
        if capability is not None:
            by_capability.setdefault(capability, []).append(keyword.text)
    for capability, words in sorted(by_capability.items()):
        spec = config.capabilities[capability].source
        ordered = sorted(words)
        edits.setdefault(copies[spec.file if spec else ""], []).append(
            lambda d, c=capability, w=ordered: _append(
                d["capabilities"][c], "keywords", w, note, 4))


def primary_capability(snapshot: Snapshot, agent: str) -> str | None:
    """The first capability that `agent` alone declares: where its learned keywords go."""
    config = snapshot.config
    for name in config.agents[agent].capabilities:
        holders = [a for a in config.agents.values() if name in a.capabilities]
        if len(holders) == 1 and name in config.capabilities:
            return name
    return None
