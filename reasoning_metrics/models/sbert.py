"""Sentence embeddings with sentence-transformers (hub id or local folder)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from reasoning_metrics.models._torch import model_path, out_of_memory, pick_batch, pick_device, pick_dtype


class SentenceTransformerEncoder:
    """A :class:`~reasoning_metrics.protocols.SentenceEncoder` over a sentence-transformers model.

    Texts are truncated at the model's ``max_seq_length`` (256 word pieces for
    all-MiniLM-L6-v2, 384 for all-mpnet-base-v2), as in the reference; chain
    embeddings of long chains depend on it. sentence-transformers tokenises each batch once and
    runs the texts longest first; ``batch_size`` ``auto`` is 256 texts on a GPU and 64 on a CPU
    (halved if a batch runs out of GPU memory); ``dtype`` ``auto`` is float16 on a GPU, else float32.
    """

    def __init__(
        self,
        model: str,
        *,
        device: str | None = None,
        batch_size: int | str = "auto",
        max_seq_length: int | None = None,
        dtype: str = "auto",
    ) -> None:
        from sentence_transformers import SentenceTransformer

        self.name = model
        chosen = pick_device(device)
        self.batch_size = (
            64 if batch_size == "auto" and not chosen.startswith("cuda") else pick_batch(batch_size, chosen)
        )
        self._model = SentenceTransformer(model_path(model), device=chosen)
        self._model.to(pick_dtype(dtype, chosen))
        self.dtype_name = str(pick_dtype(dtype, chosen)).removeprefix("torch.")
        if max_seq_length is not None:
            self._model.max_seq_length = max_seq_length
        self.max_seq_length: int | None = self._model.max_seq_length
        self.dim = int(self._model.get_embedding_dimension() or 0)

    def fit(self, text: str) -> str:
        """``text`` cut to 8 characters a word piece of the window: the model reads no further, and its
        tokenizer need not read a 2 MB line to find that out."""
        return text if self.max_seq_length is None else text[: self.max_seq_length * 8]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """``float32`` ``[len(texts), d]``, not normalised."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        while True:
            try:
                vectors = self._model.encode(
                    list(texts), batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False
                )
            except RuntimeError as exc:
                if self.batch_size > 1 and out_of_memory(exc):
                    self.batch_size //= 2
                    continue
                raise
            return np.asarray(vectors, dtype=np.float32)
