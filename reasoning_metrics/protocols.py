"""The narrow model protocols the metrics are computed through; adapters implement them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

NLI_COLUMNS = ("entailment", "neutral", "contradiction")
"""Column order of every ``nli`` result, whatever the model's own label order (read from its config)."""


@runtime_checkable
class SentenceEncoder(Protocol):
    """Sentence embeddings."""

    name: str

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """``float32`` array of shape ``[len(texts), d]``."""
        ...


@runtime_checkable
class NLIModel(Protocol):
    """Natural-language inference over (premise, hypothesis) pairs."""

    name: str

    def nli(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Probabilities of shape ``[len(pairs), 3]`` in :data:`NLI_COLUMNS` order."""
        ...
