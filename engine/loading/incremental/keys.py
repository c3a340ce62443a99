"""What the reload memory keeps its results by: typed keys, read by field name."""

from __future__ import annotations

from typing import NamedTuple

from engine.config.listing import Caps, SetFiles
from engine.config.members import Member


class FileKey(NamedTuple):
    """A file of a set as a load reads it: its kind, its name in issues, the caps."""

    kind: str
    file: str
    caps: Caps


class ContentKey(NamedTuple):
    """One content of a file: its per-file result depends on nothing else."""

    kind: str
    file: str
    digest: bytes
    caps: Caps


class ListingKey(NamedTuple):
    """A set's root file, its name in issues and the caps it is listed with."""

    root: str
    display: str
    caps: Caps


class Listing(NamedTuple):
    """A set's files as its root lists them, numbered by the memory that listed them: two
    listings with the same number are one listing, kept while the root file and the folders
    its globs looked into are unchanged (so `number` stands for comparing every entry)."""

    number: int
    files: SetFiles


class StatSeen(NamedTuple):
    """A file's stat key when it was read, and what it gave."""

    stat: tuple[int, ...]
    member: Member


class KeptListing(NamedTuple):
    """A listing and the `signatures` of the paths that may change it."""

    signatures: tuple[object, ...]
    listing: Listing


class LastLoad(NamedTuple):
    """The listing a load used (by number), its caps and its members in include order."""

    listing: int
    caps: Caps
    members: list[Member]
