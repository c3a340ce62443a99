"""Fuzz target over the whole config pipeline (read -> parse -> validate -> include -> build ->
link -> compile) through `check_paths` and `load_config`, on generated hostile sets: random
bytes, deep nesting, huge numbers, aliases, links out of the set, FIFOs, links to devices and
to /usr, payload schemas with remote refs and backtracking patterns, comments holding the line
breaks only YAML 1.1 readers see (U+0085, U+2028, U+2029) with keys after them.

Whatever the set holds: `check_paths` never raises, `load_config` raises nothing but
ConfigError and agrees with `check_paths`, nothing outside the set is opened or listed, no
socket is used, no outside content reaches a message, no loaded file holds such a line break,
and no call runs past its deadline.
Bounded for CI: a fixed number of examples, derandomized under the `ci` profile.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine.config.parse import parse_text
from engine.errors import ConfigError
from engine.loading.incremental.look import scan
from engine.loading.loader import check_paths, load_config, set_members
from tests.sandbox import RecordingServer, deadline, watch

SECRET = "SECRET-0f1e2d3c"
SERVER = RecordingServer()
ROOT_KEYS = "version: 1\nname: fuzz\nentry: a\n"
GLOBS = ["agents/*.yaml", "**/*.yaml", "*/*", "*", "link/*.yaml", "out/*", "usr/**/*.yaml",
         "fifo.yaml", "zero.yaml", "../outside/*", "/etc/*", "agents/", "**", "[a-", "**x"]
LINKS = {"outside-file": "{outside}/secret.yaml", "outside-dir": "{outside}",
         "dev-zero": "/dev/zero", "usr": "/usr", "dangling": "nowhere.yaml", "loop": ".",
         "inside": "agents/a.yaml", "self": "{name}"}
NUMBERS = [".inf", "-.inf", ".nan", "1e999", "1e308", "9" * 25, "-9223372036854775809",
           "0x" + "f" * 40, "!!float .inf", "12", "0.5"]


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


ODD = ["?x", "[?0]", "{?k: 1}", "*a", "&a 1", "!!python/name:os.system", "!custom 1", "~", "",
       "'", '"\\ud800"']
SCALAR = st.one_of(st.sampled_from(NUMBERS), st.text(max_size=12).map(json.dumps),
                   st.sampled_from(ODD))
PAYLOAD = st.sampled_from([
    {"$ref": "{server}/schema.json"}, {"$ref": "file://{outside}/secret.yaml"},
    {"$ref": "secret.yaml"}, {"$ref": "#/definitions/nope"}, {"$ref": "#/examples/0"},
    {"type": "string", "pattern": "^(a+)+$"}, {"pattern": "(?=x)"},
    {"patternProperties": {"(a|a)*$": {}}, "unevaluatedProperties": False},
    {"$defs": {"x": {"type": "integer", "maximum": 1e308}}, "$ref": "#/$defs/x"},
    {"type": "object", "properties": {"$ref": {"const": "http://x"}}},
])
AGENT = st.builds(
    lambda name, extra, payload: (
        f"name: {name}\nterminal: true\nhandoff: {{trigger: go_{name}}}\n{extra}"
        f"accepts:\n  payload_schema: {json.dumps(payload)}\n"
    ),
    st.sampled_from(["b", "c", '"b\\n"', "a"]),
    st.one_of(st.just(""), SCALAR.map(lambda value: f"metadata: {{v: {value}}}\n")),
    PAYLOAD,
)
BREAKS = ["\x85", "\u2028", "\u2029"]
ON_ONE_LINE = st.text(st.characters(exclude_categories=("Cs",),
                                    exclude_characters="\n\r" + "".join(BREAKS)), max_size=12)
AFTER_BREAK = st.one_of(st.sampled_from(["peers: ['*']", "enabled: false", "<<: {peers: '*'}",
                                         "accepts: {from: '*'}", "name: c"]), ON_ONE_LINE)
HIDDEN = st.builds(
    lambda note, brk, after: f"name: b\nterminal: true  # {note}{brk}{after}\n",
    ON_ONE_LINE, st.sampled_from(BREAKS), AFTER_BREAK,
)
"""An agent file whose comment holds a line break only YAML 1.1 readers see, then YAML."""
CONTENT = st.one_of(
    AGENT,
    HIDDEN,
    st.binary(max_size=300).map(lambda raw: raw.decode("latin-1")),
    st.integers(1, 300).map(nested),
    SCALAR.map(lambda value: f"name: x\nv: {value}\n"),
    st.just("a: &a [1, 2]\nb: &b [*a, *a, *a, *a]\nc: &c [*b, *b, *b, *b]\nd: [*c, *c, *c]\n"),
    st.just("\ufeffname: b\n\x00"),
)


@st.composite
def hostile_sets(draw: st.DrawFn) -> dict[str, Any]:
    globs = draw(st.lists(st.sampled_from(GLOBS), min_size=1, max_size=3))
    files = {"agents/a.yaml": "name: a\nhandoff: {is_entry_point: true}\nterminal: true\n",
             "capabilities.yaml": "capabilities: {}\n", "routing.yaml": "rules: []\n"}
    for index in range(draw(st.integers(0, 3))):
        files[draw(st.sampled_from([f"agents/x{index}.yaml", "routing.yaml", "agents/a.yaml",
                                    "capabilities.yaml", "notes.json"]))] = draw(CONTENT)
    links = draw(st.dictionaries(
        st.sampled_from(["agents/l.yaml", "link", "out", "usr", "zero.yaml", "engine.yaml",
                         "capabilities.yaml"]),
        st.sampled_from(sorted(LINKS)), max_size=3))
    timeout = SCALAR.map(lambda value: f"policies: {{pending_timeout_s: {value}}}\n")
    return {"globs": globs, "files": files, "links": links,
            "fifo": draw(st.sampled_from([None, "fifo.yaml", "agents/f.yaml"])),
            "root_extra": draw(st.one_of(st.just(""), timeout))}


def materialize(spec: dict[str, Any], base: Path) -> tuple[Path, Path]:
    outside, root = base / "outside", base / "set"
    outside.mkdir()
    (outside / "secret.yaml").write_text(f"name: {SECRET}\n", encoding="utf-8")
    (root / "agents").mkdir(parents=True)
    include = json.dumps({"agents": spec["globs"], "capabilities": ["capabilities.yaml"],
                          "routing": ["routing.yaml"]})
    (root / "engine.yaml").write_text(f"{ROOT_KEYS}{spec['root_extra']}include: {include}\n",
                                      encoding="utf-8")
    for name, text in spec["files"].items():
        text = text.replace("{server}", SERVER.url).replace("{outside}", str(outside))
        (root / name).write_bytes(text.encode("utf-8", "surrogatepass"))
    for name, kind in spec["links"].items():
        (root / name).unlink(missing_ok=True)
        target = LINKS[kind].format(outside=outside, name=name.rsplit("/", 1)[-1])
        (root / name).symlink_to(target)
    if spec["fifo"] is not None:
        os.mkfifo(root / spec["fifo"])
    return root, outside


@pytest.fixture(scope="module", autouse=True)
def _server() -> Any:
    with SERVER:
        yield


@pytest.mark.slow
@settings(max_examples=400, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(hostile_sets())
@example({"globs": ["agents/*.yaml"], "links": {}, "fifo": None, "root_extra": "",
          "files": {"agents/a.yaml": "name: a\nhandoff: {is_entry_point: true}\nterminal: true\n",
                    "agents/x0.yaml": "name: b\nterminal: true  # ok\u2028peers: ['*']\n",
                    "capabilities.yaml": "capabilities: {}\n", "routing.yaml": "rules: []\n"}})
def test_no_config_set_can_crash_hang_leak_read_outside_or_fetch(spec: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as base:
        root, outside = materialize(spec, Path(base))
        with watch() as activity, deadline(20):
            result = check_paths([root])
            try:
                snapshot = load_config(root)
            except ConfigError as error:
                snapshot, errors = None, error.issues
            else:
                errors = ()
            members = set_members(root)
            scan(root)
        assert activity.outside(root) == [], spec
        assert activity.network == [] and SERVER.hits == [], spec
        assert all(SECRET not in issue.message for issue in result.issues), spec
        assert (snapshot is None) == bool(result.errors), spec
        assert snapshot is None or snapshot.version == result.snapshots[0].version
        assert snapshot is not None or set(errors) == set(result.errors), spec
        real = os.path.realpath(root)
        for member in map(os.path.realpath, members):
            assert member == real or member.startswith(real + os.sep), spec
        assert str(outside) not in " ".join(activity.opened)
        loaded = snapshot.config.files if snapshot is not None else ()
        assert not any(brk in Path(file).read_text("utf-8", "replace")
                       for file in loaded for brk in BREAKS), spec


@settings(max_examples=300, deadline=None)
@given(ON_ONE_LINE, st.sampled_from(BREAKS), AFTER_BREAK, st.booleans())
def test_a_comment_never_hides_yaml_behind_a_unicode_line_break(
    note: str, brk: str, after: str, positions: bool
) -> None:
    """Whatever follows the break, the file is refused at the break's own line and column."""
    text = f"name: b\nterminal: true  # {note}{brk}{after}\n"
    document, issues = parse_text(text, "b.yaml", positions=positions)
    assert document is None
    where = (2, len("terminal: true  # ") + len(note) + 1)
    assert (issues[0].code, issues[0].line, issues[0].col) == ("yaml-ambiguous", *where)
