"""The README's test command and `.ci/run` install the same extras (every optional part), so a
developer runs what CI runs; CI turns a missing optional part into a failure."""

from __future__ import annotations

import re

from tests.conftest import REPO


def _extras(text: str) -> set[str]:
    found = re.findall(r'pip install (?:--quiet )?-e "\.\[([^\]]+)\]"', text)
    assert found, "no editable install of the project found"
    return {extra.strip() for group in found for extra in group.split(",")}


def test_readme_test_command_installs_what_ci_installs() -> None:
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    set_up = readme.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    assert _extras(set_up) == _extras(ci) == {"test", "all"}
    for required in ("BROWSER", "ADAPTERS"):
        assert f"export HANDOFF_REQUIRE_{required}=1" in ci
    assert "apt-get install -y -qq chromium" in ci
