"""Natural-language inference with a transformers sequence-classification model (hub id or folder)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from reasoning_metrics.models._classifier import SequenceClassifier
from reasoning_metrics.models.labels import nli_columns


class TransformersNLI:
    """An :class:`~reasoning_metrics.protocols.NLIModel`; columns reordered from ``config.id2label``.

    Pairs are truncated (longest first) at the model's maximum length, as in the reference.
    """

    def __init__(
        self, model: str, *, device: str | None = None, batch_size: int | str = "auto", dtype: str = "auto"
    ) -> None:
        """``batch_size`` ``auto``: 256 pairs on a GPU, 32 on a CPU; ``dtype`` ``auto``: float16 on a GPU, else float32."""
        self.name = model
        self._classifier = SequenceClassifier(model, device, batch_size, dtype)
        self.dtype_name = self._classifier.dtype_name
        self.columns = nli_columns(self._classifier.id2label)

    @property
    def batch_size(self) -> int:
        """Pairs per forward pass."""
        return self._classifier.batch_size

    def nli(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """``[len(pairs), 3]`` P(entailment, neutral, contradiction) of (premise, hypothesis) pairs."""
        probs = self._classifier.probabilities([p for p, _ in pairs], [h for _, h in pairs])
        return probs[:, self.columns]
