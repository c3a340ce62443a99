"""Take the console screenshots in this folder: the banking set, a store of recorded calls,
`handoff console` in a real process and Debian's Chromium driven by Playwright.

    python docs/console/screenshots.py        # needs the console and test extras

Writes topology.png, topology-rejected.png, playground.png, records.png, record.png, eval.png.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "acceptance"))

from console_server import BROWSER_ARGS, CHROMIUM, ConsoleServer, seed_store  # noqa: E402
from playwright.sync_api import Page, expect, sync_playwright  # noqa: E402

OUT = Path(__file__).resolve().parent
VIEWPORT = {"width": 1360, "height": 860}
TALL = {"width": 1360, "height": 1060}


def shoot(page: Page, name: str, *, full: bool = True) -> None:
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(OUT / f"{name}.png"), full_page=full)
    print(f"wrote {OUT / name}.png")


def pages(page: Page, url: str, config: Path) -> None:
    page.set_viewport_size(TALL)
    page.goto(url + "/topology")
    shoot(page, "topology", full=False)
    page.set_viewport_size(VIEWPORT)
    page.goto(url + "/playground")
    page.fill("#text", "Someone took money out of my account, I didn't make that payment")
    page.click("button[type=submit]")
    expect(page.locator("#routed-agent")).to_be_visible()
    shoot(page, "playground")
    page.goto(url + "/records")
    shoot(page, "records", full=False)
    page.locator("#records tbody tr", has_text="failed").first.locator("a").click()
    shoot(page, "record")
    page.goto(url + "/eval?corpus=corpus/holdout.csv")
    shoot(page, "eval")
    page.set_viewport_size(TALL)
    page.goto(url + "/topology")
    routing = config / "routing.yaml"
    routing.write_text(routing.read_text(encoding="utf-8").replace("to: claims", "to: claimz"),
                       encoding="utf-8")
    expect(page.locator("#reload-status")).to_have_attribute("data-outcome", "rejected",
                                                             timeout=15_000)
    shoot(page, "topology-rejected", full=False)


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "banking"
        shutil.copytree(REPO / "configs" / "banking", config)
        store = Path(folder) / "records.sqlite"
        seed_store(store)
        console = ConsoleServer(config, "--store", store, log=Path(folder) / "console.log")
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=str(CHROMIUM),
                                                     args=BROWSER_ARGS)
                pages(browser.new_page(viewport=VIEWPORT), console.url, config)
                browser.close()
        finally:
            console.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
