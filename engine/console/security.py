"""What keeps the console a local, read-only page: loopback binds unless asked, a Host check
against DNS rebinding, same-origin POSTs only, and strict response headers (CSP and friends).

An ASGI middleware and pure helpers; it never looks at what a page shows.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine.errors import UsageError

LOOPBACK = "127.0.0.1"
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
       "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}
SAFE_METHODS = frozenset({"GET", "HEAD"})
"""Methods every page accepts; POST only where a route declares it (the eval upload)."""


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and `localhost`."""
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind_host(host: str | None) -> str:
    """The address to listen on: loopback unless a host was given explicitly."""
    if host is None:
        return LOOPBACK
    if not host.strip():
        raise UsageError("--host: empty host")
    return host


def allowed_hosts(host: str, port: int) -> frozenset[str] | None:
    """`Host` header values the server answers: its loopback names, and the explicit host.
    None (any) when bound to every interface, where no single name is known."""
    if host in ("0.0.0.0", "::"):
        return None
    names = {"127.0.0.1", "localhost", "[::1]", f"[{host}]" if ":" in host else host}
    return frozenset(f"{name}:{port}" for name in names) | frozenset(names)


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return ""


class Guard:
    """Refuses requests for other hosts (421), cross-site POSTs (403) and unknown methods
    (405), and adds the security headers to every response."""

    def __init__(self, app: ASGIApp, *, hosts: Iterable[str] | None) -> None:
        self.app = app
        self.hosts = None if hosts is None else frozenset(hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(scope)
        if refusal is not None:
            status, text = refusal
            await _plain(send, status, text)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(k.encode(), v.encode()) for k, v in HEADERS.items()]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _refusal(self, scope: Scope) -> tuple[int, str] | None:
        host = _header(scope, b"host").lower()
        if self.hosts is not None and host not in self.hosts:
            return 421, f"this console does not answer for host {host!r}"
        method = scope["method"]
        if method in SAFE_METHODS:
            return None
        if method != "POST":
            return 405, "the console is read-only"
        origin = _header(scope, b"origin")
        site = _header(scope, b"sec-fetch-site")
        if site not in ("", "same-origin") or (origin and origin.split("//", 1)[-1] != host):
            return 403, "cross-site requests are refused"
        return None


async def _plain(send: Send, status: int, text: str) -> None:
    body = text.encode()
    headers: list[Any] = [(b"content-type", b"text/plain; charset=utf-8"),
                          (b"content-length", str(len(body)).encode())]
    headers += [(k.encode(), v.encode()) for k, v in HEADERS.items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
