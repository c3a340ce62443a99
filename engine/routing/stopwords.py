"""The words that alone never move a caller: function words and conversational filler ("can
you help me with my"). The examples layer transfers a request only when it holds a known word
outside this list. Data only."""

from __future__ import annotations

from collections.abc import Sequence

ENGLISH = (
    "a", "about", "above", "after", "again", "all", "am", "an", "and", "any", "are", "as", "at",
    "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can",
    "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from",
    "further", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how",
    "i", "if", "in", "into", "is", "it", "its", "itself", "just", "let", "me", "more", "most",
    "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other",
    "our", "ours", "out", "over", "own", "please", "same", "she", "should", "so", "some", "such",
    "than", "thank", "thanks", "that", "the", "their", "them", "then", "there", "these", "they",
    "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were",
    "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would",
    "yes", "you", "your", "yours", "hello", "hi", "hey", "okay", "ok", "well", "want", "need",
    "help", "get", "got", "know", "like", "tell", "say", "said", "go", "going",
)


def stop_words(setting: str | Sequence[str]) -> tuple[str, ...]:
    """The stop words a set declares: `english` (the list above), `none`, or its own list."""
    if isinstance(setting, str):
        return ENGLISH if setting == "english" else ()
    return tuple(setting)
