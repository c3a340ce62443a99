"""`handoff console` in a real process, over plain HTTP: every page answers, config text is
escaped, the security headers and checks hold, nothing it serves changes a file, and bad
arguments exit with a clear message."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from console_server import REPO, ConsoleServer, require, seed_store, shows_pin

from tests.extras import installed
from tests.patience import HANG_S

pytestmark = pytest.mark.slow
require(installed("starlette") and installed("uvicorn") and installed("jinja2"),
        "handoff console needs the console extra")

SCRIPT = "<script>window.pwned = 1</script>"


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The banking set, with markup in an agent's description."""
    folder = tmp_path_factory.mktemp("console") / "banking"
    shutil.copytree(REPO / "configs" / "banking", folder)
    claims = folder / "agents" / "claims.yaml"
    text = claims.read_text(encoding="utf-8")
    claims.write_text(re.sub(r"(?m)^description: .*$", f"description: '{SCRIPT} & claims'",
                             text, count=1), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def store(config: Path) -> Path:
    path = config.parent / "records.sqlite"
    seed_store(path)
    return path


@pytest.fixture(scope="module")
def server(config: Path, store: Path) -> Iterator[ConsoleServer]:
    console = ConsoleServer(config, "--store", store, "--max-upload-mb", "0.01",
                            log=config.parent / "console.log")
    yield console
    assert console.stop() == 0


def _digest(*paths: Path) -> str:
    found = hashlib.sha256()
    for root in paths:
        files = sorted(root.rglob("*")) if root.is_dir() else [root]
        for path in files:
            if path.is_file():
                found.update(str(path).encode() + path.read_bytes())
    return found.hexdigest()


def _record_ids(server: ConsoleServer, query: str = "") -> list[str]:
    status, _, body = server.get("/records" + query)
    assert status == 200
    return re.findall(r'href="/records/([^"]+)"', body)


def test_binds_loopback_and_serves_every_page(server: ConsoleServer) -> None:
    assert server.url.startswith("http://127.0.0.1:")
    record = _record_ids(server)[0]
    pages = {"/topology": "<svg", "/playground": "route-form", "/records": 'id="records"',
             "/eval": "corpus/dev.csv", f"/records/{record}": 'id="timeline"',
             "/topology/live": "reload-status", "/static/console.css": "--accent",
             "/static/console.js": "EventSource"}
    for path, marker in pages.items():
        status, headers, body = server.get(path)
        assert status == 200, path
        assert marker in body, path
        assert "script-src 'self'" in headers["content-security-policy"]
        assert headers["x-content-type-options"] == "nosniff"


def test_config_text_is_escaped(server: ConsoleServer) -> None:
    _, _, body = server.get("/topology")
    assert SCRIPT not in body
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt; &amp; claims" in body
    assert body.count("<script") == 1  # the page's own script tag, from /static
    assert '<script src="/static/console.js" defer></script>' in body


def test_playground_shows_the_decision_route_explain_makes(
    server: ConsoleServer, config: Path
) -> None:
    text = "my card was stolen"
    status, _, body = server.get("/playground/decision?sender=concierge&text=my+card+was+stolen")
    assert status == 200
    cli = subprocess.run(
        [sys.executable, "-m", "engine", "route", str(config), "--from", "concierge", text,
         "--explain", "--format", "json"], capture_output=True, text=True, check=True)
    expected = json.loads(cli.stdout)
    assert re.search(r'id="routed-agent">([^<]+)<', body)[1] == expected["target"]  # type: ignore[index]
    for check in expected["rule_checks"]:
        assert f"<code>{check['rule']}</code>" in body
    assert expected["normalization"]["trace"][-1]["text"] in body


def test_playground_reports_a_bad_field(server: ConsoleServer) -> None:
    status, _, body = server.get("/playground?text=hello&sender=nobody")
    assert status == 400
    assert "&#39;nobody&#39;: unknown agent" in body
    status, _, body = server.get("/playground?text=hello&context=novalue")
    assert status == 400 and "expected KEY=VALUE" in body


def test_records_search_and_redaction(server: ConsoleServer) -> None:
    assert len(_record_ids(server)) == 8
    assert len(_record_ids(server, "?status=failed")) == 2
    assert len(_record_ids(server, "?session=call-1002")) == 2
    assert len(_record_ids(server, "?agent=claims")) == 1
    assert _record_ids(server, "?until=2000-01-01T00:00") == []
    status, _, body = server.get("/records?since=yesterday")
    assert status == 400 and "expected an ISO 8601 time" in body
    for record in _record_ids(server):
        _, _, body = server.get(f"/records/{record}")
        assert not shows_pin(body) and "tok-123" not in body  # pin and api_token
    status, _, body = server.get("/records/no-such-id")
    assert status == 404 and "no handoff record with id" in body


def test_eval_of_a_shipped_corpus_matches_handoff_eval(
    server: ConsoleServer, config: Path
) -> None:
    corpus = "corpus/holdout.csv"
    status, _, body = server.get(f"/eval?corpus={corpus}")
    assert status == 200
    cli = subprocess.run(
        [sys.executable, "-m", "engine", "eval", str(config), str(config / corpus),
         "--format", "json"], capture_output=True, text=True)
    expected = json.loads(cli.stdout)
    shown = re.search(r'id="accuracy">([^<]+)<', body)[1]  # type: ignore[index]
    assert shown == f"{expected['accuracy']:.1%}"
    assert 'id="confusion"' in body and "<svg" in body
    status, _, body = server.get("/eval?corpus=../../etc/passwd")
    assert status == 400 and "is not a corpus of this config set" in body


def test_eval_upload_is_bounded_and_evaluated(server: ConsoleServer) -> None:
    rows = "text,agent\nmy card was stolen,fraud_agent\nwhat is my balance,concierge\n"
    headers = {"content-type": "application/octet-stream", "x-corpus-name": "mine.csv"}
    status, _, body = server.request("POST", "/eval/upload", headers=headers,
                                     body=rows.encode())
    assert status == 200 and "uploaded: mine.csv" in body and 'id="accuracy"' in body
    big = b"text,agent\n" + b"my card was stolen,fraud_agent\n" * 400  # 12 KB, over 10 KB
    status, _, body = server.request("POST", "/eval/upload", headers=headers, body=big)
    assert status == 413 and "upload limit (10485 bytes)" in body
    chunked = {**headers, "transfer-encoding": "chunked"}  # no length: counted as it streams
    status, _, body = server.request("POST", "/eval/upload", headers=chunked,
                                     body=iter([big[:6000], big[6000:]]))
    assert status == 413 and "upload limit" in body


def test_refuses_other_hosts_cross_site_posts_and_writes(server: ConsoleServer) -> None:
    port = server.url.rsplit(":", 1)[1]
    assert server.get("/topology", Host=f"attacker.example:{port}")[0] == 421
    assert server.get("/topology", Host=f"localhost:{port}")[0] == 200
    cross = {"origin": "http://attacker.example", "content-type": "application/octet-stream"}
    assert server.request("POST", "/eval/upload", headers=cross, body=b"x")[0] == 403
    site = {"sec-fetch-site": "cross-site", "content-type": "application/octet-stream"}
    assert server.request("POST", "/eval/upload", headers=site, body=b"x")[0] == 403
    for method in ("PUT", "DELETE", "PATCH"):
        assert server.request(method, "/records")[0] == 405
    assert server.request("POST", "/records")[0] == 405
    assert server.request("POST", "/topology")[0] == 405


def test_serving_changes_no_file(config: Path, store: Path, tmp_path: Path) -> None:
    before = _digest(config, store)
    console = ConsoleServer(config, "--store", store, log=tmp_path / "console.log")
    try:
        for path in ("/topology", "/playground?text=my+card+was+stolen", "/records",
                     "/eval?corpus=corpus/dev.csv", "/topology/live"):
            assert console.get(path)[0] == 200
        for record in _record_ids(console):
            assert console.get(f"/records/{record}")[0] == 200
    finally:
        assert console.stop() == 0
    assert _digest(config, store) == before


def _console(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine", "console", *args],
                          capture_output=True, text=True, timeout=HANG_S, cwd=REPO)


def test_bad_config_store_and_arguments(tmp_path: Path, config: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(config, broken)
    routing = broken / "routing.yaml"
    routing.write_text(routing.read_text(encoding="utf-8").replace("to: claims", "to: claimz"),
                       encoding="utf-8")
    done = _console(str(broken))
    assert done.returncode == 1 and "routing.yaml:" in done.stderr and "claimz" in done.stderr
    done = _console(str(config), "--store", str(tmp_path / "missing.sqlite"))
    assert done.returncode == 1 and "no such store file" in done.stderr
    assert not (tmp_path / "missing.sqlite").exists()
    done = _console(str(config), "--port", "70000")
    assert done.returncode == 2 and "--port 70000" in done.stderr
    done = _console(str(config), "--store", "postgresql://db/records")
    assert done.returncode == 2 and "expected a SQLite store file" in done.stderr
    for size in ("inf", "nan", "0"):
        done = _console(str(config), "--max-upload-mb", size)
        assert done.returncode == 2 and "--max-upload-mb must be > 0 and at most" in done.stderr


def test_without_the_console_extra_it_says_what_to_install(config: Path) -> None:
    blocked = ("import sys; sys.modules['uvicorn'] = None; from engine.cli.main import main; "
               f"sys.exit(main(['console', {str(config)!r}]))")
    done = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True,
                          timeout=HANG_S, cwd=REPO)
    assert done.returncode == 1
    assert "pip install 'handoff-engine[console]'" in done.stderr


def test_a_non_loopback_host_is_served_only_when_asked(config: Path, tmp_path: Path) -> None:
    console = ConsoleServer(config, "--host", "0.0.0.0", log=tmp_path / "console.log")
    try:
        assert console.url.startswith("http://0.0.0.0:")
        port = console.url.rsplit(":", 1)[1]
        status, _, _ = console.request("GET", "/topology", headers={"host": f"127.0.0.1:{port}"})
        _, _, records = console.get("/records")  # started without --store
        assert 'id="no-store"' in records
        assert console.get("/records/anything")[0] == 404
    finally:
        code = console.stop(signal.SIGTERM)
    assert status == 200  # bound to every interface: no single host name to check
    assert code == 0  # SIGTERM is a clean stop
    assert "no authentication" in (tmp_path / "console.log").read_text(encoding="utf-8")
