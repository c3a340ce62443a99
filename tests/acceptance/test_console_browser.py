"""`handoff console` in a real headless Chromium (Debian's package, driven by Playwright):
every page loads without a script or CSP error, the playground routes a typed sentence, an
edit on disk redraws the graph, a record's timeline opens, and config markup stays text."""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from console_server import (
    BROWSER_ARGS,
    CHROMIUM,
    REPO,
    ConsoleServer,
    require,
    seed_store,
    shows_pin,
)

from tests.extras import installed
from tests.patience import HANG_S

pytestmark = pytest.mark.slow
require(installed("starlette") and installed("uvicorn") and installed("jinja2"),
        "handoff console needs the console extra")
require(installed("playwright"), "the browser tests need playwright (the test extra)")
require(CHROMIUM.is_file(), f"the browser tests need Chromium at {CHROMIUM} (apt-get install "
                            "chromium)")

from playwright.sync_api import Browser, Page, expect, sync_playwright  # noqa: E402

SCRIPT = "<script>window.pwned = 1</script>"
WAIT_MS = int(HANG_S * 1000)  # playwright waits in ms


def _banking_copy(folder: Path) -> Path:
    target = folder / "banking"
    shutil.copytree(REPO / "configs" / "banking", target)
    return target


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConsoleServer]:
    """The banking set with markup in a description, and a store of recorded calls."""
    folder = tmp_path_factory.mktemp("browser")
    config = _banking_copy(folder)
    claims = config / "agents" / "claims.yaml"
    claims.write_text(re.sub(r"(?m)^description: .*$", f"description: '{SCRIPT}'",
                             claims.read_text(encoding="utf-8"), count=1), encoding="utf-8")
    store = folder / "records.sqlite"
    seed_store(store)
    console = ConsoleServer(config, "--store", store, log=folder / "console.log")
    yield console
    console.stop()


class Problems(list[str]):
    """Script errors, failed requests and console errors (CSP violations are reported there)."""


@pytest.fixture
def page(browser: Browser) -> Iterator[tuple[Page, Problems]]:
    context = browser.new_context(viewport={"width": 1360, "height": 900})
    opened = context.new_page()
    problems = Problems()
    opened.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    opened.on("pageerror", lambda error: problems.append(str(error)))
    yield opened, problems
    context.close()


def test_every_page_loads_cleanly(server: ConsoleServer, page: tuple[Page, Problems]) -> None:
    tab, problems = page
    headings = {"/topology": "banking-concierge", "/playground": "Playground",
                "/records": "Handoff records", "/eval": "Routing accuracy"}
    for path, heading in headings.items():
        tab.goto(server.url + path)
        expect(tab.locator("h1").first).to_have_text(heading)
        expect(tab.locator("nav a.active")).to_have_count(1)
    tab.goto(server.url + "/topology")
    expect(tab.locator("#graph svg [data-agent='fraud_agent']")).to_have_count(1)
    expect(tab.locator("#graph svg .edge-rule")).to_have_count(8)
    rule = tab.locator("#graph svg .edge-rule").first
    # the picture's look is presentation attributes, which the CSP allows (a style would not)
    assert rule.evaluate("line => getComputedStyle(line).stroke") == "rgb(123, 79, 201)"
    assert problems == []


def test_playground_routes_a_typed_sentence(server: ConsoleServer,
                                            page: tuple[Page, Problems]) -> None:
    tab, problems = page
    tab.goto(server.url + "/playground")
    tab.evaluate("window.sameDocument = true")
    tab.fill("#text", "Someone stole my card on the train")
    tab.select_option("#sender", "concierge")
    tab.click("button[type=submit]")
    expect(tab.locator("#routed-agent")).to_have_text("fraud_agent", timeout=WAIT_MS)
    expect(tab.locator("#candidates tr.chosen")).to_contain_text("fraud_agent")
    expect(tab.locator("#rule-checks")).to_contain_text("matched, chosen")
    tab.fill("#text", "I'd like to invest in a fund")
    tab.fill("#context", "customer_tier=private")
    tab.click("button[type=submit]")
    expect(tab.locator("#routed-agent")).to_have_text("investment_advisor", timeout=WAIT_MS)
    expect(tab.locator(".decision .tag").first).to_have_text("rule")
    assert tab.evaluate("window.sameDocument") is True  # updated in place, not reloaded
    assert "customer_tier" in tab.url and "invest" in tab.url
    assert problems == []


def test_an_edit_on_disk_redraws_the_graph(tmp_path: Path, page: tuple[Page, Problems]) -> None:
    tab, problems = page
    config = _banking_copy(tmp_path)
    console = ConsoleServer(config, log=tmp_path / "console.log")
    try:
        tab.goto(console.url + "/topology")
        graph = tab.locator("#graph")
        expect(graph).to_contain_text("file-a-claim")
        version = tab.locator("#config-version").inner_text()
        routing = config / "routing.yaml"
        text = routing.read_text(encoding="utf-8")
        routing.write_text(text.replace("id: file-a-claim", "id: claims-desk-rule"),
                           encoding="utf-8")
        expect(graph).to_contain_text("claims-desk-rule", timeout=WAIT_MS)
        expect(tab.locator("#reload-status")).to_have_attribute("data-outcome", "applied")
        assert tab.locator("#config-version").inner_text() != version
        routing.write_text(text.replace("priority: 50", "priority: high"), encoding="utf-8")
        status = tab.locator("#reload-status")
        expect(status).to_have_attribute("data-outcome", "rejected", timeout=WAIT_MS)
        expect(status.locator(".issues")).to_contain_text("routing.yaml:")
        expect(status.locator(".issues")).to_contain_text("error[type]")
        expect(graph).to_contain_text("claims-desk-rule")  # the last good config still serves
    finally:
        code = console.stop()
    assert code == 0  # the page's event stream does not hold the server up
    assert problems == []


def test_a_record_timeline_opens(server: ConsoleServer, page: tuple[Page, Problems]) -> None:
    tab, problems = page
    tab.goto(server.url + "/records")
    tab.fill("#session", "call-1002")
    tab.click("#record-search button[type=submit]")
    expect(tab.locator("#records tbody tr")).to_have_count(2)
    row = tab.locator("#records tbody tr", has_text="failed")
    row.locator("a.record-link").click()
    expect(tab.locator("h1")).to_contain_text("Handoff")
    steps = tab.locator("#timeline li")
    expect(steps).to_have_count(4)
    expect(steps.last).to_contain_text("fail")
    expect(steps.last).to_contain_text("the claims system did not answer")
    expect(tab.locator("#record-config")).not_to_have_text("-")
    assert not shows_pin(tab.content())  # the context's pin is redacted
    assert problems == []


def test_markup_in_a_description_is_text(server: ConsoleServer,
                                         page: tuple[Page, Problems]) -> None:
    tab, problems = page
    tab.goto(server.url + "/topology")
    row = tab.locator("#agents tr", has_text="handoff_claims")
    expect(row.locator("td.description")).to_have_text(SCRIPT)
    title = tab.locator("#graph [data-agent='claims'] title")
    assert title.text_content() == SCRIPT
    assert tab.evaluate("typeof window.pwned") == "undefined"
    assert problems == []


def test_eval_upload_shows_the_report(server: ConsoleServer, page: tuple[Page, Problems],
                                      tmp_path: Path) -> None:
    tab, problems = page
    corpus = tmp_path / "calls.csv"
    corpus.write_text("text,agent\nmy card was stolen,fraud_agent\nwhat is my balance,concierge\n"
                      "I want to invest in a fund,investment_advisor\n", encoding="utf-8")
    tab.goto(server.url + "/eval")
    tab.set_input_files("#upload", str(corpus))
    tab.click("#upload-form button")
    expect(tab.locator("#eval-result h2").first).to_have_text("uploaded: calls.csv",
                                                              timeout=WAIT_MS)
    expect(tab.locator("#confusion")).to_be_visible()
    expect(tab.locator("#chart svg .bar").first).to_be_visible()
    tab.select_option("#corpus", "corpus/dev.csv")
    tab.click("#corpus-form button")
    expect(tab.locator("#accuracy")).to_have_text(re.compile(r"\d+\.\d%"), timeout=WAIT_MS)
    assert problems == []
