"""Read stage: filesystem and encoding problems become located issues, never exceptions."""

from __future__ import annotations

import os
from pathlib import Path

from engine.config.read import DEFAULT_MAX_BYTES, read_source


def codes(path: Path, **options: int) -> list[str]:
    return [found.code for found in read_source(path, **options)[1]]


def test_reads_bytes_and_text_and_strips_a_bom(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_bytes(b"\xef\xbb\xbfname: caf\xc3\xa9\n")
    source, issues = read_source(path)
    assert issues == []
    assert source is not None
    assert source.text == "name: café\n"
    assert source.raw.startswith(b"\xef\xbb\xbf")
    assert source.file == str(path)


def test_issue_file_is_the_name_given(tmp_path: Path) -> None:
    _, issues = read_source(tmp_path / "missing.yaml", file="sets/missing.yaml")
    assert [(found.file, found.code) for found in issues] == [
        ("sets/missing.yaml", "file-not-found")
    ]


def test_missing_path_and_broken_symlink(tmp_path: Path) -> None:
    (tmp_path / "link.yaml").symlink_to(tmp_path / "gone.yaml")
    assert codes(tmp_path / "nope.yaml") == ["file-not-found"]
    assert codes(tmp_path / "link.yaml") == ["file-not-found"]


def test_directory_and_fifo_are_not_files(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.yaml")
    assert codes(tmp_path) == ["not-a-file"]
    assert codes(tmp_path / "pipe.yaml") == ["not-a-file"]


def test_a_file_whose_read_fails_is_unreadable(tmp_path: Path) -> None:
    # Permission bits do not stop root; /proc/self/mem is a regular file whose read at
    # offset 0 fails with EIO for every user, so the OSError translation is really exercised.
    (tmp_path / "mem.yaml").symlink_to("/proc/self/mem")
    _, issues = read_source(tmp_path / "mem.yaml")
    assert [found.code for found in issues] == ["unreadable"]
    assert "Input/output error" in issues[0].message


def test_default_cap_is_one_mebibyte_and_inclusive(tmp_path: Path) -> None:
    at_cap = tmp_path / "at.yaml"
    at_cap.write_bytes(b"#" * DEFAULT_MAX_BYTES)
    over = tmp_path / "over.yaml"
    over.write_bytes(b"#" * (DEFAULT_MAX_BYTES + 1))
    assert DEFAULT_MAX_BYTES == 1024 * 1024
    assert codes(at_cap) == []
    assert codes(over) == ["file-too-large"]


def test_cap_is_configurable(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("name: abcdefgh\n", encoding="utf-8")
    _, issues = read_source(path, max_bytes=8)
    assert issues[0].code == "file-too-large"
    assert "8-byte cap" in issues[0].message
    assert codes(path, max_bytes=100) == []


def test_invalid_utf8_is_located_by_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_bytes(b"name: a\ndescription: d\xc3\xa9j\xc3\xa0 \xff\n")  # "déjà " then 0xff
    _, issues = read_source(path)
    assert [(found.code, found.line, found.col) for found in issues] == [("not-utf8", 2, 19)]
    assert "0xff" in issues[0].message


def test_a_path_the_os_refuses_is_unreadable(tmp_path: Path) -> None:
    assert codes(Path(str(tmp_path) + "/bad\0name.yaml")) == ["unreadable"]
    assert codes(tmp_path / ("x" * 300 + ".yaml")) == ["unreadable"]
