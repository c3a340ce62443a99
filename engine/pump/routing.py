"""The envelope rules: from enforced, to checked against peers, payloads validated, chains pruned
on `.respond()`, fan-out, depth and message budgets capped, todo listeners served.
Synchronous: it must not await, queue or run handlers.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from engine.errors import UsageError
from engine.pump.contract import (
    REPLY_BY_NAME_MESSAGE,
    ROUTING_ERROR,
    HandlerMetadata,
    HandlerResponse,
    SystemError,
)
from engine.pump.envelope import Envelope, Limits, Outcome
from engine.pump.payloads import PayloadRejected
from engine.pump.registry import (
    SYSTEM_LISTENERS,
    SYSTEM_SENDER,
    Listener,
    ListenerRegistry,
    is_reserved,
    name_problem,
)
from engine.pump.replies import answers_caller, legacy_xml_message
from engine.pump.threads import ThreadRegistry
from engine.pump.todos import TodoRegistry, format_nudge, serve_todo

log = logging.getLogger("engine.pump")


class Router:
    """Applies the envelope rules for one pump. Owns the thread and todo registries."""

    def __init__(self, registry: ListenerRegistry, *, limits: Limits | None = None) -> None:
        registry.check()
        self.registry = registry
        self.limits = limits or Limits()
        self.threads = ThreadRegistry()
        self.todos = TodoRegistry(owns=self.threads.__contains__)
        self._usage = {n: registry.usage_instructions(lsn) for n, lsn in registry.listeners.items()}
        self._strikes: dict[str, int] = {}
        self._hops: dict[str, int] = {}

    def open(self, target: str, payload: Any, *, sender: str) -> Envelope:
        """Start a conversation from outside: validate, open a root thread, build the envelope."""
        if target not in self.registry:
            raise UsageError(f"cannot inject to {target!r}: no listener has this name")
        problem = name_problem(sender)
        if problem is not None:
            shown = sender[:60] if isinstance(sender, str) else sender
            raise UsageError(f"sender {shown!r}: a sender name {problem}")
        if sender in self.registry or is_reserved(sender):
            raise UsageError(f"sender {sender!r} is a listener or reserved name ('*', 'system', "
                             "'system.*'); use another")
        try:
            value = self.registry[target].payload.validate(payload)
        except PayloadRejected as e:
            raise UsageError(f"payload for {target!r} rejected: {e.reason}") from e
        thread_id = self.threads.start(sender, target)
        return Envelope(target, sender, thread_id, value, thread_id)

    def end_conversation(self, root: str) -> tuple[str, ...]:
        """Forget every thread and watcher of a finished conversation; returns threads removed."""
        removed = self.threads.terminate(root)
        self._hops.pop(root, None)
        self.todos.close_threads(removed)
        for thread_id in removed:
            self._strikes.pop(thread_id, None)
        return removed

    def metadata(self, listener: Listener, env: Envelope) -> HandlerMetadata:
        """The trustworthy context of one handler call; also feeds the todo watchers."""
        todo_nudge = ""
        if self.todos:
            type_name = listener.payload.type_name(env.payload)
            self.todos.check(env.thread_id, type_name, env.from_id)
            if listener.agent:
                todo_nudge = format_nudge(self.todos.get_raised_for(env.thread_id, listener.name))
        return HandlerMetadata(
            thread_id=env.thread_id,
            from_id=env.from_id,
            own_name=listener.name if listener.agent else None,
            is_self_call=env.from_id == listener.name,
            usage_instructions=self._usage[listener.name],
            todo_nudge=todo_nudge,
        )

    def route(self, listener: Listener, env: Envelope, result: Any) -> Outcome:
        """Route what `listener` returned while handling `env`."""
        outcome = Outcome()
        if env.thread_id not in self.threads:
            if result is not None:
                outcome.dropped.append("terminated")
                log.info("dropped output of %s: its thread was terminated", listener.name)
            return outcome
        if result is None:
            self._strikes.pop(env.thread_id, None)
            return outcome
        if isinstance(result, HandlerResponse):
            self._route_one(listener, env, result, outcome, single=True)
        elif isinstance(result, (list, tuple)):
            self._route_many(listener, env, result, outcome)
        elif isinstance(result, (bytes, bytearray, memoryview)):  # fails once, never bounces
            message = legacy_xml_message(listener.name, type(result).__name__)
            log.error("%s", message)
            self._fail_into(listener, env, outcome, "contract", message, retry_allowed=False)
        else:
            self._error_to_sender(
                listener, env, outcome, "contract",
                f"handler returned {type(result).__name__}; expected a HandlerResponse, "
                "a list of HandlerResponse, or None",
            )
        if not outcome.errors:
            self._strikes.pop(env.thread_id, None)
        return self._charge(env, outcome)

    def fail(self, listener: Listener, env: Envelope, code: str, message: str) -> Outcome:
        """The handler raised or timed out: its caller gets a SystemError; its thread ends."""
        outcome = Outcome()
        self._fail_into(listener, env, outcome, code, message, retry_allowed=True)
        return self._charge(env, outcome)

    def _charge(self, env: Envelope, outcome: Outcome) -> Outcome:
        """Count the conversation's messages. Past `max_hops` (e.g. two agents ping-ponging
        forever) the conversation ends: its initiator gets a `limit` SystemError, every thread
        is terminated and the messages of this outcome are dropped as `limit`."""
        if not outcome.envelopes:
            return outcome
        hops = self._hops.get(env.root, 0) + len(outcome.envelopes)
        self._hops[env.root] = hops
        if hops <= self.limits.max_hops or env.root not in self.threads:
            return outcome
        initiator = self.threads.chain(env.root)[0]
        log.warning("conversation %s ended: more than %d messages", env.root, self.limits.max_hops)
        error = SystemError(code="limit", retry_allowed=False,
                            message="The conversation exceeded its message budget and was ended.")
        notice = Envelope(initiator, SYSTEM_SENDER, env.root, error, env.root, external=True)
        return Outcome(
            envelopes=[notice],
            errors=[*outcome.errors, "limit"],
            dropped=[*outcome.dropped, *["limit"] * len(outcome.envelopes)],
            terminated=outcome.terminated + self.end_conversation(env.root),
            replied=outcome.replied, reply=outcome.reply, failure=outcome.failure,
        )

    def _fail_into(
        self, listener: Listener, env: Envelope, outcome: Outcome,
        code: str, message: str, *, retry_allowed: bool,
    ) -> None:
        if env.thread_id not in self.threads:
            outcome.dropped.append("terminated")
            return
        error = SystemError(code=code, message=message, retry_allowed=retry_allowed)
        outcome.errors.append(code)
        self._reply(listener, env, error, outcome)
        outcome.failure = code

    def _route_many(
        self, listener: Listener, env: Envelope, results: Sequence[Any], outcome: Outcome
    ) -> None:
        if len(results) > self.limits.max_fanout:
            log.warning("%s returned %d sends, above the fan-out cap %d",
                        listener.name, len(results), self.limits.max_fanout)
            self._error_to_sender(
                listener, env, outcome, "limit",
                f"too many messages in one result ({len(results)}); "
                f"at most {self.limits.max_fanout} are allowed; nothing was sent",
            )
            return
        for item in results:
            if not isinstance(item, HandlerResponse):
                self._error_to_sender(
                    listener, env, outcome, "contract",
                    f"a result list holds {type(item).__name__}; expected HandlerResponse",
                )
            else:
                self._route_one(listener, env, item, outcome, single=False)

    def _route_one(
        self, listener: Listener, env: Envelope, response: HandlerResponse,
        outcome: Outcome, *, single: bool,
    ) -> None:
        if response.is_response:
            if not single:
                self._error_to_sender(
                    listener, env, outcome, "contract",
                    ".respond() must be returned alone, not inside a list",
                )
                return
            self._respond(listener, env, response.payload, outcome)
            return
        if single and answers_caller(listener, env.thread_id, env.from_id, response.to,
                                     self.threads, self.registry):
            self._respond(listener, env, response.payload, outcome)  # the contract's pure tool
            return
        target = self._deliverable(listener, env, response.to)
        if target is None:
            by_name = response.to == env.from_id
            message = REPLY_BY_NAME_MESSAGE if by_name else ROUTING_ERROR.message
            self._error_to_sender(listener, env, outcome, "routing", message)
            return
        if target in SYSTEM_LISTENERS:
            self._serve_system(listener, env, target, response.payload, outcome)
            return
        if self.threads.depth(env.thread_id) >= self.limits.max_depth:
            self._error_to_sender(
                listener, env, outcome, "limit",
                f"call depth limit ({self.limits.max_depth}) reached; respond to your caller",
            )
            return
        try:
            payload = self.registry[target].payload.validate(response.payload)
        except PayloadRejected as e:
            self._error_to_sender(listener, env, outcome, "validation",
                                  f"payload for {target!r} rejected: {e.reason}")
            return
        child = self.threads.extend(env.thread_id, target)
        outcome.envelopes.append(
            Envelope(target, listener.name, child, payload, env.root, forward=True)
        )

    def _deliverable(self, listener: Listener, env: Envelope, target: object) -> str | None:
        """The target if the peer rule allows it and it exists; a refusal is logged in detail."""
        if isinstance(target, str) and listener.may_send_to(target) and (
            target in self.registry or target in SYSTEM_LISTENERS
        ):
            return target
        log.warning("blocked send %s -> %r on chain %s (peers: %s)", listener.name, target,
                    list(self.threads.chain(env.thread_id)),
                    "*" if listener.peers is None else list(listener.peers))
        return None

    def _respond(self, listener: Listener, env: Envelope, value: Any, outcome: Outcome) -> None:
        chain = self.threads.chain(env.thread_id)
        caller = chain[-2]
        if caller in self.registry:
            try:
                value = self.registry[caller].payload.validate(value)
            except PayloadRejected as e:
                self._error_to_sender(listener, env, outcome, "validation",
                                      f"response to your caller rejected: {e.reason}")
                return
        self._reply(listener, env, value, outcome)
        outcome.replied, outcome.reply = True, value

    def _reply(self, listener: Listener, env: Envelope, value: Any, outcome: Outcome) -> None:
        pruned = self.threads.prune(env.thread_id)
        outcome.terminated += pruned.terminated
        for thread_id in pruned.terminated:
            self._strikes.pop(thread_id, None)
        self.todos.close_threads(pruned.terminated)
        if pruned.thread_id is None:
            outcome.envelopes.append(
                Envelope(pruned.target, listener.name, env.root, value, env.root, external=True)
            )
        else:
            outcome.envelopes.append(
                Envelope(pruned.target, listener.name, pruned.thread_id, value, env.root)
            )

    def _serve_system(
        self, listener: Listener, env: Envelope, target: str, payload: Any, outcome: Outcome
    ) -> None:
        try:
            ack = serve_todo(self.todos, target, payload, thread_id=env.thread_id,
                             issuer=listener.name)
        except PayloadRejected as e:
            self._error_to_sender(listener, env, outcome, "validation",
                                  f"payload for {target!r} rejected: {e.reason}")
            return
        outcome.envelopes.append(Envelope(listener.name, target, env.thread_id, ack, env.root))

    def _error_to_sender(
        self, listener: Listener, env: Envelope, outcome: Outcome, code: str, message: str
    ) -> None:
        """A SystemError back to the sending listener on its own thread (it may retry); after
        `max_strikes` consecutive errors on one thread, the thread is aborted instead."""
        strikes = self._strikes.get(env.thread_id, 0) + 1
        self._strikes[env.thread_id] = strikes
        if strikes > self.limits.max_strikes:
            self._fail_into(
                listener, env, outcome, "aborted",
                f"{listener.name!r} kept failing ({strikes} errors in a row); thread aborted",
                retry_allowed=False,
            )
            return
        error = (ROUTING_ERROR if code == "routing" and message == ROUTING_ERROR.message
                 else SystemError(code=code, message=message))
        outcome.errors.append(code)
        outcome.envelopes.append(
            Envelope(listener.name, SYSTEM_SENDER, env.thread_id, error, env.root)
        )
