"""A forgiving JSON reader for what language models typically break.

A small tokenizer plus a recursive-descent parser that accepts trailing commas, single
quotes, unquoted keys, comments, Python literals and output cut off mid-object (it closes
open strings, arrays and objects). Pure: text in, value out; finding JSON in chat text is
`parse`'s job.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

STRUCTURAL = "{}[]:,"
MAX_DEPTH = 200
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "/": "/"}
_WORDS: dict[str, Any] = {
    "true": True, "false": False, "null": None, "True": True, "False": False, "None": None,
}


class RepairFailed(Exception):
    """The text holds nothing the repair pass can turn into a value."""


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # one of STRUCTURAL, "string", "word"
    value: str
    closed: bool = True  # False for a string cut off by the end of the text


def _read_string(text: str, start: int) -> tuple[Token, int]:
    quote, pos, chars = text[start], start + 1, list[str]()
    while pos < len(text):
        char = text[pos]
        if char == quote:
            return Token("string", "".join(chars)), pos + 1
        if char == "\\" and pos + 1 < len(text):
            escaped = text[pos + 1]
            if escaped == "u" and pos + 6 <= len(text):
                try:
                    chars.append(chr(int(text[pos + 2 : pos + 6], 16)))
                    pos += 6
                    continue
                except ValueError:
                    pass
            chars.append(_ESCAPES.get(escaped, escaped))
            pos += 2
            continue
        chars.append(char)
        pos += 1
    return Token("string", "".join(chars), closed=False), pos


def _skip_comment(text: str, pos: int) -> int:
    """Position after a `//`, `#` or `/* */` comment starting at `pos` (or `pos` if none)."""
    if text.startswith("/*", pos):
        end = text.find("*/", pos + 2)
        return len(text) if end < 0 else end + 2
    if text.startswith("//", pos) or text[pos] == "#":
        end = text.find("\n", pos)
        return len(text) if end < 0 else end + 1
    return pos


def tokenize(text: str) -> Iterator[Token]:
    """Split `text` into structural characters, strings and bare words; drop comments."""
    pos = 0
    while pos < len(text):
        char = text[pos]
        after_comment = _skip_comment(text, pos)
        if after_comment != pos:
            pos = after_comment
        elif char.isspace():
            pos += 1
        elif char in STRUCTURAL:
            yield Token(char, char)
            pos += 1
        elif char in "\"'":
            token, pos = _read_string(text, pos)
            yield token
        else:
            end = pos
            while end < len(text) and not (
                text[end].isspace() or text[end] in STRUCTURAL or text[end] in "\"'"
            ):
                end += 1
            yield Token("word", text[pos:end])
            pos = end


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
        if token.kind == "{":
            return self.object(depth)
        if token.kind == "[":
            return self.array(depth)
        if token.kind == "string":
            self.truncated |= not token.closed
            return token.value
        if token.kind == "word":
            return _word_value(token.value)
        raise RepairFailed(f"unexpected {token.value!r} where a value was expected")

    def _end(self, closer: str) -> bool:
        """Skip stray commas; True at the closer (consumed) or at the end of the text."""
        while (token := self.peek()) is not None and token.kind == ",":
            self.pos += 1
        if token is None:
            self.truncated = True
            return True
        if token.kind == closer:
            self.pos += 1
            return True
        return False

    def object(self, depth: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        while not self._end("}"):
            key = self.take()
            if key is None or key.kind not in ("string", "word"):
                raise RepairFailed("an object key must be a string")
            if self.peek() is None or not key.closed:
                self.truncated = True
                break
            if self.peek() == Token(":", ":"):
                self.pos += 1
            try:
                result[key.value] = self.value(depth + 1)
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
    """Read the first JSON-like value in `text`: `(value, truncated)`.

    Raises `RepairFailed` when no value can be read, or when everything but an empty
    container had to be dropped (`{ see below` is chat, not an empty object).
    """
    tokens = list(tokenize(text))
    reader = _Reader(tokens)
    value = reader.value(0)
    if value in ({}, []) and any(token.kind in ("string", "word") for token in tokens):
        raise RepairFailed("only an empty container could be recovered")
    return value, reader.truncated
