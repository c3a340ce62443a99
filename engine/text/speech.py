"""English word tables for normalization: contractions (with their apostrophe-less speech
spellings) and disfluencies (fillers a speech recognizer transcribes).

Data only: `engine.text.normalize` decides when to apply them.
"""

from __future__ import annotations

CONTRACTIONS: dict[str, tuple[str, ...]] = {
    "can't": ("can", "not"),
    "cannot": ("can", "not"),
    "won't": ("will", "not"),
    "shan't": ("shall", "not"),
    "ain't": ("is", "not"),
    "i'm": ("i", "am"),
    "let's": ("let", "us"),
    "it's": ("it", "is"),
    "that's": ("that", "is"),
    "there's": ("there", "is"),
    "here's": ("here", "is"),
    "what's": ("what", "is"),
    "where's": ("where", "is"),
    "who's": ("who", "is"),
    "how's": ("how", "is"),
    "he's": ("he", "is"),
    "she's": ("she", "is"),
    "y'all": ("you", "all"),
}
"""Whole tokens with an irregular expansion. Other `n't`, `'re`, `'ve`, `'ll`, `'d`, `'m`
endings expand by rule, and any other `'s` (a possessive) is dropped."""

SUFFIXES: tuple[tuple[str, str], ...] = (
    ("n't", "not"),
    ("'re", "are"),
    ("'ve", "have"),
    ("'ll", "will"),
    ("'d", "would"),
    ("'m", "am"),
)

SPOKEN: dict[str, tuple[str, ...]] = {
    "dont": ("do", "not"),
    "didnt": ("did", "not"),
    "doesnt": ("does", "not"),
    "cant": ("can", "not"),
    "couldnt": ("could", "not"),
    "wouldnt": ("would", "not"),
    "shouldnt": ("should", "not"),
    "isnt": ("is", "not"),
    "arent": ("are", "not"),
    "wasnt": ("was", "not"),
    "werent": ("were", "not"),
    "hasnt": ("has", "not"),
    "havent": ("have", "not"),
    "hadnt": ("had", "not"),
    "wont": ("will", "not"),
    "aint": ("is", "not"),
    "im": ("i", "am"),
    "ive": ("i", "have"),
    "youre": ("you", "are"),
    "youve": ("you", "have"),
    "theyre": ("they", "are"),
    "theyve": ("they", "have"),
    "thats": ("that", "is"),
    "whats": ("what", "is"),
    "theres": ("there", "is"),
    "wanna": ("want", "to"),
    "gonna": ("going", "to"),
    "gotta": ("got", "to"),
    "gimme": ("give", "me"),
    "lemme": ("let", "me"),
    "dunno": ("do", "not", "know"),
    "kinda": ("kind", "of"),
}
"""Contractions as speech recognizers and hurried typists write them, without the apostrophe."""

FILLERS: frozenset[str] = frozenset({
    "uh", "uhh", "uhm", "um", "umm", "uhmm", "er", "erm", "err", "ah", "ahh", "eh",
    "hm", "hmm", "hmmm", "mm", "mmm", "mhm", "huh",
})
"""Filler words removed with the `disfluencies` step."""

FILLER_PHRASES: tuple[tuple[str, ...], ...] = (
    ("you", "know"),
    ("i", "mean"),
)
"""Filler phrases removed with the `disfluencies` step (after contractions are expanded)."""
