"""Binding and request checks: loopback by default, Host allow-list, same-origin POSTs only,
security headers on every response."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine.console.security import CSP, Guard, allowed_hosts, bind_host, is_loopback
from engine.errors import UsageError


@pytest.mark.parametrize("host", ["127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost"])
def test_loopback_hosts(host: str) -> None:
    assert is_loopback(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.7", "example.com", ""])
def test_other_hosts(host: str) -> None:
    assert not is_loopback(host)


def test_the_bind_is_loopback_unless_a_host_is_given() -> None:
    assert bind_host(None) == "127.0.0.1"
    assert bind_host("0.0.0.0") == "0.0.0.0"
    with pytest.raises(UsageError, match="empty host"):
        bind_host(" ")


def test_allowed_hosts() -> None:
    hosts = allowed_hosts("127.0.0.1", 8765)
    assert hosts is not None and {"127.0.0.1:8765", "localhost:8765", "[::1]:8765"} <= hosts
    assert "attacker.example:8765" not in hosts
    assert "192.0.2.7:80" in (allowed_hosts("192.0.2.7", 80) or ())
    assert allowed_hosts("0.0.0.0", 8765) is None


def _call(method: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bool]:
    reached: list[bool] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(True)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    scope = {"type": "http", "method": method,
             "headers": [(k.encode(), v.encode()) for k, v in headers.items()]}
    asyncio.run(Guard(app, hosts={"127.0.0.1:8765"})(scope, receive, send))
    start = sent[0]
    names = {k.decode(): v.decode() for k, v in start["headers"]}
    return start["status"], names, bool(reached)


def test_guard_answers_known_hosts_with_security_headers() -> None:
    status, headers, reached = _call("GET", {"host": "127.0.0.1:8765"})
    assert (status, reached) == (200, True)
    assert headers["content-security-policy"] == CSP
    assert "script-src 'self'" in CSP and "unsafe-inline" not in CSP
    assert headers["x-frame-options"] == "DENY"


@pytest.mark.parametrize(("method", "headers", "status"), [
    ("GET", {"host": "attacker.example:8765"}, 421),
    ("GET", {}, 421),
    ("DELETE", {"host": "127.0.0.1:8765"}, 405),
    ("POST", {"host": "127.0.0.1:8765", "origin": "http://attacker.example"}, 403),
    ("POST", {"host": "127.0.0.1:8765", "origin": "null"}, 403),
    ("POST", {"host": "127.0.0.1:8765", "sec-fetch-site": "same-site"}, 403),
])
def test_guard_refuses_before_the_app_runs(method: str, headers: dict[str, str],
                                           status: int) -> None:
    answered, sent_headers, reached = _call(method, headers)
    assert (answered, reached) == (status, False)
    assert sent_headers["content-security-policy"] == CSP


def test_guard_lets_same_origin_posts_through() -> None:
    headers = {"host": "127.0.0.1:8765", "origin": "http://127.0.0.1:8765",
               "sec-fetch-site": "same-origin"}
    assert _call("POST", headers)[::2] == (200, True)
