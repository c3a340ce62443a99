"""What a handler's result means when it is not a plain send: an answer to the caller by name
(the handler contract's pure-tool example), or an XML response of the deprecated contract.
Pure decisions and messages; the router acts on them.
"""

from __future__ import annotations

from collections.abc import Container

from engine.pump.registry import Listener
from engine.pump.threads import ThreadRegistry


def answers_caller(
    listener: Listener, thread_id: str, from_id: str, target: object, threads: ThreadRegistry,
    listeners: Container[str],
) -> bool:
    """Whether a send to `target` is an answer to the caller: it names `metadata.from_id`,
    that is the caller in the thread's chain, and it could not go as a send (the peer rule
    does not allow it, or the caller is outside the pump). Answering whoever called needs no
    peer entry, so it is delivered as `.respond()` is; a caller that is a peer gets a send (a
    new sub-thread), as any peer does."""
    if target != from_id or target == listener.name:
        return False
    if listener.may_send_to(target) and target in listeners:
        return False
    chain = threads.chain(thread_id)
    return len(chain) >= 2 and chain[-2] == target


def legacy_xml_message(listener: str, kind: str) -> str:
    """The `contract` error of a handler that returned bytes. Such a handler would answer the
    error with XML again, so it is told once, through its caller, and its thread ends."""
    return (f"{listener!r} returned {kind} (an XML response of the deprecated handler "
            "contract); return HandlerResponse(payload, to=...), "
            "HandlerResponse.respond(payload) or None, with a pydantic model or dict payload")
