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


@runtime_checkable
class TokenEmbedder(Protocol):
    """Contextual token embeddings, one matrix per text, special and padding tokens dropped."""

    name: str

    def embed_tokens(self, texts: Sequence[str]) -> list[np.ndarray]:
        """One ``float32`` array ``[tokens_i, d]`` per text (``[0, d]`` for a text without tokens)."""
        ...


@runtime_checkable
class PerplexityModel(Protocol):
    """A causal language model scoring how fluent a text is."""

    name: str

    def perplexity(self, texts: Sequence[str]) -> np.ndarray:
        """``[len(texts), 2]``: each text's perplexity and the number of tokens it was computed over."""
        ...


@runtime_checkable
class GrammarModel(Protocol):
    """A grammatical-acceptability (CoLA) classifier."""

    name: str

    def acceptability(self, texts: Sequence[str]) -> np.ndarray:
        """``[len(texts)]``: P(acceptable) of each text, label read from the model's config."""
        ...
