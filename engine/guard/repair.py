"""A forgiving JSON reader for what language models typically break.

A small tokenizer plus a recursive-descent parser that accepts trailing commas, single
quotes, unquoted keys, comments, Python literals and output cut off mid-object (it closes
open strings, arrays and objects). Pure: text in, value out; finding JSON in chat text is
`parse`'s job.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

STRUCTURAL = "{}[]:,"
MAX_DEPTH = 200
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "/": "/"}
_WORDS: dict[str, Any] = {
    "true": True, "false": False, "null": None, "True": True, "False": False, "None": None,
}

Token = tuple[str, str, bool]
"""(kind, value, closed): kind is one of STRUCTURAL, "string" or "word"; `closed` is False
for a string cut off by the end of the text."""

_TOKEN = re.compile(
    r"""(?P<skip>\s+|//[^\n]*|\#[^\n]*|/\*.*?(?:\*/|\Z))
      |(?P<struct>[{}\[\]:,])
      |(?P<string>"(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?)
      |(?P<word>[^\s{}\[\]:,"']+)""",
    re.DOTALL | re.VERBOSE,
)
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.DOTALL)


class RepairFailed(Exception):
    """The text holds nothing the repair pass can turn into a value."""


def _unescape(match: re.Match[str]) -> str:
    code = match.group(1)
    return chr(int(code[1:], 16)) if len(code) == 5 else _ESCAPES.get(code, code)


def _string(raw: str) -> Token:
    """A quoted string token; unclosed when the text ends inside it."""
    quote, end = raw[0], len(raw) - 1
    backslashes = end - len(raw[:end].rstrip("\\"))
    closed = end > 0 and raw[end] == quote and backslashes % 2 == 0
    body = raw[1:end] if closed else raw[1:]
    if "\\" in body:
        body = _ESCAPE.sub(_unescape, body)
    return ("string", body, closed)


def tokenize(text: str) -> Iterator[Token]:
    """Split `text` into structural characters, strings and bare words; drop comments."""
    for match in _TOKEN.finditer(text):
        kind, value = match.lastgroup, match.group()
        if kind == "struct":
            yield (value, value, True)
        elif kind == "string":
            yield _string(value)
        elif kind == "word":
            yield ("word", value, True)


def _word_value(word: str) -> Any:
    if word in _WORDS:
        return _WORDS[word]
    try:
        return int(word)
    except ValueError:
        pass
    try:
        return float(word)
    except ValueError:
        return word


class _Reader:
    """Reads one value from a token list; `truncated` is set when the text ended early."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.truncated = False

    def peek(self) -> Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> Token | None:
        token = self.peek()
        self.pos += token is not None
        return token

    def value(self, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise RepairFailed(f"nesting deeper than {MAX_DEPTH} levels")
        token = self.take()
        if token is None:
            self.truncated = True
            raise RepairFailed("text ended where a value was expected")
        kind = token[0]
        if kind == "{":
            return self.object(depth)
        if kind == "[":
            return self.array(depth)
        if kind == "string":
            self.truncated |= not token[2]
            return token[1]
        if kind == "word":
            return _word_value(token[1])
        raise RepairFailed(f"unexpected {token[1]!r} where a value was expected")

    def _end(self, closer: str) -> bool:
        """Skip stray commas; True at the closer (consumed) or at the end of the text."""
        while (token := self.peek()) is not None and token[0] == ",":
            self.pos += 1
        if token is None:
            self.truncated = True
            return True
        if token[0] == closer:
            self.pos += 1
            return True
        return False

    def object(self, depth: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        while not self._end("}"):
            key = self.take()
            if key is None or key[0] not in ("string", "word"):
                raise RepairFailed("an object key must be a string")
            following = self.peek()
            if following is None or not key[2]:
                self.truncated = True
                break
            if following[0] == ":":
                self.pos += 1
            try:
                result[key[1]] = self.value(depth + 1)
            except RepairFailed:
                if not self.truncated:
                    raise
                break
        return result

    def array(self, depth: int) -> list[Any]:
        result: list[Any] = []
        while not self._end("]"):
            try:
                result.append(self.value(depth + 1))
            except RepairFailed:
                if not self.truncated:
                    raise
                break
        return result


def repair(text: str) -> tuple[Any, bool]:
    """Read the first JSON-like value in `text` (what follows it is ignored):
    `(value, truncated)`.

    Raises `RepairFailed` when no value can be read, or when everything but an empty
    container had to be dropped (`{ see below` is chat, not an empty object).
    """
    tokens = list(tokenize(text))
    reader = _Reader(tokens)
    value = reader.value(0)
    read = tokens[: reader.pos]
    if value in ({}, []) and any(token[0] in ("string", "word") for token in read):
        raise RepairFailed("only an empty container could be recovered")
    return value, reader.truncated
