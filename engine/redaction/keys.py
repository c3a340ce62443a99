"""Which keys name secrets: a key's words (camelCase, spaces and separators split, look-alike
letters folded) checked against the built-in secret words, and config globs.

Linear in a key's length: the only regular expression is one character class. Pure.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from engine.errors import UsageError

STEMS = ("password", "passwd", "passphrase", "passcode", "secret", "credential", "apikey",
         "privatekey", "privkey", "accesskey", "sshkey", "signingkey", "encryptionkey",
         "cardnumber", "creditcard", "securitycode", "socialsecurity")
"""Secret wherever they appear once a key's words are joined: `userPassword`, `x-api-key`,
`API Key`, `clientsecret`, `social_security_number`."""
WORDS = frozenset({"pwd", "jwt", "jwts", "bearer", "iban", "ssn", "cvv", "cvc", "cvn", "ccv",
                   "otp", "totp", "hotp"})
"""Secret as a whole word of a key (`jwt_token`, `cvv2`, `payer_iban`), never inside another
word (`hotpot`, `classname`)."""
NOUNS = frozenset({"pin", "pass", "token", "authorization", "cookie", "cookies"})
"""Secret as a key's last word (`new_pin`, `db_pass`, `accessToken`) or before a value word
(`pin_code`), not before another word (`pin_hint`, `token_count`; `max_tokens` is plural)."""
QUALIFIED = frozenset({"card", "cc", "verification", "access", "mfa"})
"""Secret only before a value word: `card_no`, `cc_number`, `verification_code`."""
VALUE_WORDS = frozenset({"code", "number", "no", "num", "nr", "value", "digits"})
SUFFIXES = ("token", "authorization", "cookie", "cookies")
"""Secret at the end of a key written as one word: `authtoken`, `proxyauthorization`."""
PLAIN_WORDS = frozenset({"secretary", "secretaries", "secretariat"})
"""Words that contain a stem and name no secret."""

PATTERN = re.compile(r"\*?[a-z0-9_.]+\*?")
"""A config key pattern once normalized: a literal with an optional `*` at either end."""
_ALNUM = re.compile(r"[^\W_]+")  # one class, one quantifier: linear, nothing to backtrack

# Letters drawn like Latin ones (Cyrillic, Greek, Armenian, Latin variants), by the Latin
# letter they pass for; NFKD leaves them as they are.
_DRAWN_LIKE = {
    "a": "\u0430\u03b1", "b": "\u0432\u03b2", "c": "\u0441", "d": "\u0501",
    "e": "\u0435\u03b5", "g": "\u0261", "h": "\u043d\u04bb", "i": "\u0456\u03b9\u0131",
    "j": "\u0458\u03f3\u0237", "k": "\u043a\u03ba", "l": "\u04cf", "m": "\u043c",
    "n": "\u043f", "o": "\u043e\u03bf\u0585", "p": "\u0440\u03c1", "q": "\u051b",
    "s": "\u0455", "t": "\u0442\u03c4", "u": "\u03c5\u057d", "v": "\u03bd",
    "w": "\u051d\u03c9", "x": "\u0445\u03c7", "y": "\u0443\u03b3",
    "A": "\u0410\u0391", "B": "\u0412\u0392", "C": "\u0421", "D": "\u0500",
    "E": "\u0415\u0395", "H": "\u041d\u0397", "I": "\u0406\u0399\u04c0",
    "J": "\u0408", "K": "\u041a\u039a", "M": "\u041c\u039c", "N": "\u039d",
    "O": "\u041e\u039f", "P": "\u0420\u03a1", "Q": "\u051a", "S": "\u0405",
    "T": "\u0422\u03a4", "W": "\u051c", "X": "\u0425\u03a7", "Y": "\u0423\u03a5",
    "Z": "\u0396",
}
_LOOKALIKES = str.maketrans({ch: latin for latin, chars in _DRAWN_LIKE.items() for ch in chars})


def normalize(key: str) -> str:
    """A key as config patterns compare it: case-insensitive, `-` equal to `_`."""
    return key.lower().replace("-", "_")


def fold(key: str) -> str:
    """`key` in plain letters: compatibility forms (full-width, mathematical) decomposed,
    accents and invisible format characters dropped, look-alike letters made Latin."""
    text = unicodedata.normalize("NFKD", key)
    if text.isascii():
        return text
    text = "".join(ch for ch in text
                   if not unicodedata.combining(ch) and unicodedata.category(ch) != "Cf")
    return text.translate(_LOOKALIKES)


def words(key: str) -> tuple[str, ...]:
    """The case-folded words of `key`: `userPassword` -> (user, password), `API Key` ->
    (api, key), `HTTPServer` -> (http, server), `cvv2` -> (cvv, 2)."""
    found: list[str] = []
    for run in _ALNUM.findall(fold(key)):
        if (run.islower() and run.isalpha()) or run.isdigit():
            found.append(run)
        else:
            found.extend(_split_run(run))
    return tuple(word.casefold() for word in found)


def _kind(ch: str) -> int:
    return 2 if ch.isdigit() else 1 if ch.isupper() else 0


def _split_run(run: str) -> list[str]:
    """Split letters and digits, and camelCase: before an upper-case letter that follows a
    lower-case one, and before the last of several upper-case letters followed by a lower."""
    parts, start = [], 0
    kinds = [_kind(ch) for ch in run]
    for i in range(1, len(run)):
        before, here = kinds[i - 1], kinds[i]
        if ((before == 2) != (here == 2) or (before == 0 and here == 1)
                or (before == 1 and here == 1 and i + 1 < len(run) and kinds[i + 1] == 0)):
            parts.append(run[start:i])
            start = i
    parts.append(run[start:])
    return parts


def names_secret(key_words: tuple[str, ...]) -> bool:
    """True when a key of these words names a secret by the built-in rules."""
    core = list(key_words)
    while core and core[-1].isdigit():  # `pin1`, `cvv2`
        core.pop()
    joined = "".join(word for word in core if word not in PLAIN_WORDS)
    if any(stem in joined for stem in STEMS) or joined.endswith(SUFFIXES):
        return True
    last = len(core) - 1
    for i, word in enumerate(core):
        if word in WORDS:
            return True
        before_value = i < last and core[i + 1] in VALUE_WORDS
        if (word in NOUNS and (i == last or before_value)) or (word in QUALIFIED
                                                               and before_value):
            return True
    return False


class Globs:
    """Config key patterns: exact `name`, prefix `name*`, suffix `*name`, inner `*name*`,
    matched against the key as written (normalized) and as its words joined by `_`."""

    def __init__(self, patterns: Iterable[str]) -> None:
        groups: dict[str, list[str]] = {"exact": [], "prefix": [], "suffix": [], "inner": []}
        for pattern in patterns:
            kind, core = parse(pattern)
            groups[kind].append(core)
        self.empty = not any(groups.values())
        self._exact = frozenset(groups["exact"])
        self._prefixes = tuple(groups["prefix"])
        self._suffixes = tuple(groups["suffix"])
        self._inner = tuple(groups["inner"])

    def match(self, key: str, key_words: tuple[str, ...]) -> bool:
        return not self.empty and (self._one(normalize(key)) or self._one("_".join(key_words)))

    def _one(self, name: str) -> bool:
        return (name in self._exact or name.startswith(self._prefixes)
                or name.endswith(self._suffixes) or any(part in name for part in self._inner))


def parse(pattern: object) -> tuple[str, str]:
    """(kind, literal) of one key pattern: exact `name`, prefix `name*`, suffix `*name` or
    inner `*name*`; anything else is a UsageError."""
    text = normalize(pattern) if isinstance(pattern, str) else ""
    if PATTERN.fullmatch(text) is None:
        raise UsageError(
            f"redact key pattern {pattern!r} must be a name of letters, digits, '_', '-' or "
            "'.', with an optional '*' at the start and/or the end"
        )
    starts, ends = text.startswith("*"), text.endswith("*")
    kind = {(False, False): "exact", (False, True): "prefix", (True, False): "suffix",
            (True, True): "inner"}[(starts, ends)]
    return kind, text.strip("*")
