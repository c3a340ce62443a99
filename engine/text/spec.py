"""The settings of the text-normalization pipeline, as `engine.yaml`'s `normalization` declares
them (config reads them there; the pipeline in `engine.text.normalize` runs them).

Data only: the steps are applied by `Normalizer`.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class NormalizationSpec(BaseModel):
    """How text is normalized before keywords, rules and examples match it (one pipeline).

    Frozen and strict like every config model (config's `Frozen` base sits above this
    package, so the two settings are spelled out here)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    unicode: bool = True
    casefold: bool = True
    contractions: bool = True
    disfluencies: bool = True
    stemming: str = "english"
    phrase_window: int = 3
    """A phrase's words in any order within this many words ("stolen card" matches "my card
    was stolen"); 0 keeps them consecutive and in order."""
