"""Noise for the synthetic corpora: typing slips (swapped, dropped, doubled or neighbouring
keys), apostrophes left out, speech fillers and stutters, and words a speech recognizer
mishears. Deterministic for a `random.Random`.
"""

from __future__ import annotations

import random

FILLERS = ["um", "uh", "er", "like", "you know", "i mean"]
HEARD = {"card": "cart", "stolen": "stolon", "pin": "pen", "transfer": "transfur",
         "account": "a count", "refund": "re fund", "balance": "ballance", "fee": "free",
         "top": "stop", "declined": "the client", "direct": "the rect", "cash": "catch",
         "pending": "spending"}
NEIGHBOURS = {"a": "sq", "c": "xv", "d": "sf", "e": "wr", "i": "uo", "n": "bm", "o": "ip",
              "r": "et", "s": "ad", "t": "ry", "u": "yi", "y": "tu", "m": "n", "l": "k",
              "p": "o", "g": "fh", "h": "gj", "b": "vn", "w": "qe", "f": "dg"}


def typo(word: str, rng: random.Random) -> str:
    """One typing slip in a word of four letters or more."""
    if len(word) < 4 or not word.isalpha():
        return word
    i = rng.randrange(1, len(word) - 1)
    kind = rng.randrange(4)
    if kind == 0:
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    if kind == 1:
        return word[:i] + word[i + 1:]
    if kind == 2:
        return word[:i] + word[i] + word[i:]
    near = NEIGHBOURS.get(word[i])
    return word if near is None else word[:i] + rng.choice(near) + word[i + 1:]


def noisy(text: str, rng: random.Random) -> str:
    """`text` with, each at its own rate, a filler, a stutter, misheard words, a typo and
    apostrophes left out."""
    words = text.split()
    if rng.random() < 0.15 and len(words) > 2:
        words.insert(rng.randrange(1, len(words)), rng.choice(FILLERS))
    if rng.random() < 0.05 and len(words) > 1:
        n = rng.randrange(len(words))
        words.insert(n, words[n])
    if rng.random() < 0.08:
        words = [HEARD.get(w, w) if rng.random() < 0.5 else w for w in words]
    if rng.random() < 0.15:
        n = rng.randrange(len(words))
        words[n] = typo(words[n], rng)
    text = " ".join(words)
    if rng.random() < 0.2:
        text = text.replace("'", "")
    return text


HOMOPHONES = {"to": "too", "two": "to", "for": "four", "four": "for", "their": "there",
              "there": "their", "your": "you're", "card": "cart", "pin": "pen", "fee": "free",
              "cash": "catch", "account": "a count", "where": "wear", "no": "know",
              "know": "no", "new": "knew", "right": "write", "buy": "by", "one": "won",
              "sent": "cent", "charge": "charged", "paid": "payed", "wait": "weight",
              "find": "fined", "through": "threw", "here": "hear", "would": "wood"}


def speech(text: str, rng: random.Random) -> str:
    """`text` as a speech recognizer might hand it over: per word, a near-homophone (10%), a
    long word split in two (5%), two words merged into one (5%), a short word dropped (10%);
    lower-cased, without punctuation."""
    words = [w.strip(".,?!;:\"") for w in text.lower().split()]
    out: list[str] = []
    for word in words:
        roll = rng.random()
        if len(word) <= 3 and roll < 0.10:
            continue  # a short word the recognizer dropped
        if roll < 0.20 and word in HOMOPHONES:
            out.append(HOMOPHONES[word])
        elif roll < 0.25 and len(word) >= 6:
            cut = rng.randrange(2, len(word) - 2)
            out += [word[:cut], word[cut:]]
        elif roll < 0.30 and out:
            out[-1] += word
        else:
            out.append(word)
    return " ".join(out) or text
