"""The documentation stays true: generated reference pages match the schemas, every code block
marked `<!-- runnable -->` runs and prints what it shows, every page of docs/ is in the site's
navigation, and the configuration page's example set is valid and routes the sentence of the
README's tour."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from engine.cli.main import COMMAND_MODULES
from engine.lifecycle import mermaid
from engine.loading.loader import check_paths, load_config
from engine.routing import Router, RouteRequest
from tests.conftest import REPO
from tests.patience import HANG_S

pytestmark = pytest.mark.slow
BIN = Path(sys.executable).parent
PAGES = [*sorted((REPO / "docs").rglob("*.md")), REPO / "README.md"]
MARK = "<!-- runnable -->"
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>\w+)")
EXIT = re.compile(r"\s+#\s*exits?\s+(\d+)$")


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    lang: str
    text: str


def blocks(page: Path) -> list[Block]:
    """Every fenced block of `page` (`runnable` or not), with its language and first line."""
    found, lines, n = [], page.read_text("utf-8").splitlines(), 0
    while n < len(lines):
        opened = FENCE.match(lines[n])
        if opened is None:
            n += 1
            continue
        indent, body, start = opened["indent"], [], n
        n += 1
        while n < len(lines) and lines[n].strip() != "```":
            body.append(lines[n][len(indent):])
            n += 1
        runnable = start > 0 and lines[start - 1].strip() == MARK
        found.append(Block(page, start + 1, opened["lang"] if runnable else "", "\n".join(body)))
        n += 1
    return found


def runnable(page: Path) -> list[Block]:
    return [block for block in blocks(page) if block.lang]


def _matches(expected: list[str], actual: list[str]) -> bool:
    """Line by line; a line `...` stands for any number of lines."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(_matches(expected[1:], actual[k:]) for k in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and _matches(expected[1:], actual[1:])


def run_console(block: Block, cwd: Path) -> None:
    commands: list[tuple[str, list[str]]] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            commands.append((line[2:], []))
        else:
            commands[-1][1].append(line)
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "NO_COLOR": "1"}
    for command, expected in commands:
        code = EXIT.search(command)
        done = subprocess.run(["bash", "-c", EXIT.sub("", command)], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=HANG_S, check=False)
        where = f"{block.page.name}:{block.line}: $ {command}"
        assert done.returncode == (int(code[1]) if code else 0), f"{where}\n{done.stderr}"
        actual = (done.stdout + done.stderr).rstrip("\n").splitlines()
        assert _matches(expected, actual), f"{where}\nexpected {expected}\ngot {actual}"


def run_python(block: Block, cwd: Path) -> None:
    done = subprocess.run([sys.executable, "-c", block.text], cwd=cwd, capture_output=True,
                          text=True, timeout=HANG_S, check=False)
    assert done.returncode == 0, f"{block.page.name}:{block.line}:\n{done.stderr}"


def test_some_blocks_are_marked_runnable() -> None:
    kinds = {block.lang for page in PAGES for block in runnable(page)}
    assert kinds == {"console", "python"}


@pytest.mark.parametrize("page", [p for p in PAGES if runnable(p)],
                         ids=lambda p: str(p.relative_to(REPO)))
def test_runnable_blocks_print_what_they_show(page: Path, tmp_path: Path) -> None:
    """Each page runs in its own folder holding a copy of configs/, blocks in page order."""
    shutil.copytree(REPO / "configs", tmp_path / "configs")
    for block in runnable(page):
        assert block.lang in ("console", "python"), f"{page.name}:{block.line}"
        (run_console if block.lang == "console" else run_python)(block, tmp_path)


def test_generated_reference_pages_are_current() -> None:
    spec = importlib.util.spec_from_file_location("gen_reference", REPO / "docs" /
                                                  "gen_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    generated = module.pages()
    assert generated, "no pages generated"
    for relative, text in generated.items():
        committed = REPO / "docs" / "reference" / relative
        assert committed.read_text("utf-8") == text, "run python docs/gen_reference.py"


def test_the_drawn_package_layers_are_current() -> None:
    spec = importlib.util.spec_from_file_location("gen_layers", REPO / "docs" / "gen_layers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    page = (REPO / "docs" / "development.md").read_text("utf-8")
    assert page == module.page(), "run python docs/gen_layers.py"
    assert "\n 1  cli " in page  # the block is there, not only its markers


def test_the_example_set_is_valid_and_routes_the_tour_sentence(tmp_path: Path) -> None:
    """The YAML blocks of the configuration page's complete set that name their file form a
    complete set; it passes --strict, and the README tour's sentence gets the route shown."""
    text = (REPO / "docs" / "configuration.md").read_text("utf-8")
    section = text.split("\n## A complete set\n", 1)[1].split("\n## ", 1)[0]
    written = 0
    for block in blocks_in(section):
        first = block.splitlines()[0]
        if re.fullmatch(r"# [\w/.-]+\.yaml", first):
            target = tmp_path / first[2:]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block + "\n", encoding="utf-8")
            written += 1
    assert written >= 5
    tour = (REPO / "README.md").read_text("utf-8").split("## A one-screen tour", 1)[1]
    assert 'engine.handoff("My card was stolen last night"' in tour
    result = check_paths([tmp_path])
    assert result.issues == (), [str(issue) for issue in result.issues]
    decision = Router(load_config(tmp_path)).route(
        RouteRequest("concierge", "My card was stolen last night"))
    assert (decision.target, decision.rule) == ("fraud_agent", "lost-or-stolen-card")


def _mermaid(page: str) -> str:
    (diagram,) = re.findall(r"```mermaid\n(.*?)```", (REPO / "docs" / page).read_text("utf-8"),
                            re.S)
    return diagram.strip()


def test_the_diagrams_are_what_the_engine_draws() -> None:
    """The lifecycle diagram is `engine.lifecycle.mermaid()`, the banking topology is
    `handoff graph configs/banking --format mermaid-raw`, as their pages say."""
    assert _mermaid("lifecycle.md") == mermaid().strip()
    done = subprocess.run([str(BIN / "handoff"), "graph", "configs/banking", "--format",
                           "mermaid-raw"], cwd=REPO, capture_output=True, text=True, timeout=HANG_S,
                          check=True)
    assert _mermaid("routing-cli.md") == done.stdout.strip()


def test_the_cli_reference_lists_every_command() -> None:
    page = (REPO / "docs" / "cli.md").read_text("utf-8")
    listed = set(re.findall(r"^\| `handoff ([a-z]+)", page, re.M))
    assert listed == set(COMMAND_MODULES)


def test_every_page_is_in_the_site_navigation() -> None:
    """A page left out of mkdocs.yml's nav builds but no reader finds it."""
    site = YAML(typ="safe").load((REPO / "mkdocs.yml").read_text("utf-8"))

    def pages(entries: list[Any]) -> set[str]:
        found: set[str] = set()
        for entry in entries:
            value = next(iter(entry.values())) if isinstance(entry, dict) else entry
            found |= pages(value) if isinstance(value, list) else {value}
        return found

    listed = pages(site["nav"])
    written = {str(page.relative_to(REPO / "docs")) for page in (REPO / "docs").rglob("*.md")}
    assert listed == written


def test_the_readme_stays_short_and_its_links_lead_somewhere() -> None:
    """The README is the front door (what, why, set-up, a tour); reference material lives in
    docs/. Its relative links are checked here, since the site build does not read it."""
    text = (REPO / "README.md").read_text("utf-8")
    assert len(text.encode("utf-8")) < 15_000, "move reference material into docs/"
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    local = [target for target in targets if "://" not in target]
    assert len(local) >= 15
    for target in local:
        assert (REPO / target).is_file(), target


def blocks_in(markdown: str) -> list[str]:
    return [match[1] for match in re.finditer(r"```yaml\n(.*?)\n```", markdown, re.S)]


def test_a_console_block_that_prints_otherwise_fails(tmp_path: Path) -> None:
    assert _matches(["a", "...", "z"], ["a", "b", "c", "z"]) and _matches(["..."], [])
    assert not _matches(["a", "z"], ["a", "b", "z"])
    wrong = Block(tmp_path / "page.md", 1, "console", "$ echo hello\nhullo")
    with pytest.raises(AssertionError, match="expected \\['hullo'\\]"):
        run_console(wrong, tmp_path)
    failing = Block(tmp_path / "page.md", 1, "console", "$ false")
    with pytest.raises(AssertionError):
        run_console(failing, tmp_path)
    run_console(Block(tmp_path / "page.md", 1, "console", "$ false  # exit 1"), tmp_path)
