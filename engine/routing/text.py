"""Turning task text into words: the one tokenizer the index, the rules and the seed API share.

Pure functions only; nothing here knows about agents, capabilities or policy.
"""

from __future__ import annotations

import re
import string

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_PUNCTUATION = string.punctuation + "“”‘’«»…"


def words(text: str) -> list[str]:
    """Lower-cased whole words of `text`, split at anything that is not a letter or digit.

    `"My card's lost!"` -> `["my", "card", "s", "lost"]`. Keywords go through the same
    function, so a keyword `"can't"` still matches the text `"can't"`.
    """
    return _WORD.findall(text.lower())


def phrase(text: str) -> tuple[str, ...]:
    """A keyword or phrase as the tuple of words it must match, in order."""
    if text.isalnum():  # one plain word: exactly what the pattern would find, without it
        return (text.lower(),)
    return tuple(words(text))


def _extract_keywords(text: str) -> list[str]:
    """Seed 000 keyword extraction: words longer than 4 characters, lower-cased, with leading
    and trailing punctuation stripped, in text order (duplicates kept, as the seed does).

    `"Please analyze and report on market trends."` ->
    `["please", "analyze", "report", "market", "trends"]`.
    """
    found = []
    for raw in text.split():
        word = raw.strip(_PUNCTUATION).lower()
        if len(word) > 4:
            found.append(word)
    return found
