"""The version kept between builds of one listing equals the version computed from scratch."""

from __future__ import annotations

import hashlib

import pytest

from engine.config.members import Member
from engine.loading.incremental.patch import VersionMemo
from engine.loading.pipeline import content_version


def _member(relative: str, text: str | None) -> Member:
    digest = None if text is None else hashlib.sha256(text.encode()).digest()
    return Member("agents", relative, relative, digest, None, ())


def _expected(root: bytes, members: list[Member]) -> str:
    files = [("engine.yaml", root), *((m.relative, m.digest or b"") for m in members)]
    return content_version(files)


@pytest.mark.parametrize("changes", [
    {},  # nothing replaced
    {3: "edited"},
    {0: "first", 7: "last"},
    {2: None},  # a file that could not be read
    {5: None, 6: "again"},
])
def test_a_kept_version_equals_a_fresh_one(changes: dict[int, str | None]) -> None:
    listing, root = 1, hashlib.sha256(b"root").digest()
    names = [f"agents/{name}.yaml" for name in "hgfedcba"]  # not in name order
    members = [_member(name, name) for name in names]
    memo = VersionMemo()
    assert memo.version(listing, "engine.yaml", root, members) == _expected(root, members)
    members = [_member(names[n], text) if n in changes else member
               for n, member in enumerate(members)
               for text in [changes.get(n)]]
    assert memo.version(listing, "engine.yaml", root, members) == _expected(root, members)
    members[1] = _member(names[1], "once more")
    assert memo.version(listing, "engine.yaml", root, members) == _expected(root, members)


def test_files_of_one_name_are_versioned_in_full() -> None:
    listing, root = 1, hashlib.sha256(b"root").digest()
    members = [_member("agents/a.yaml", "1"), _member("agents/a.yaml", "2")]
    memo = VersionMemo()
    assert memo.version(listing, "engine.yaml", root, members) == _expected(root, members)
    members[0] = _member("agents/a.yaml", "3")
    assert memo.version(listing, "engine.yaml", root, members) == _expected(root, members)
