"""Grammatical acceptability with a CoLA-style transformers classifier (hub id or folder)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from reasoning_metrics.models._classifier import SequenceClassifier
from reasoning_metrics.models.labels import acceptable_column


class TransformersGrammar:
    """A :class:`~reasoning_metrics.protocols.GrammarModel`; the 'acceptable' column is read from the config.

    The reference hard-codes column 0 (right for its default model,
    cointegrated/roberta-large-cola-krishna2020, whose labels are ``LABEL_0/1``).
    """

    def __init__(
        self,
        model: str,
        *,
        device: str | None = None,
        batch_size: int = 32,
        acceptable_label: str | None = None,
    ) -> None:
        self.name = model
        self._classifier = SequenceClassifier(model, device, batch_size)
        self.column = acceptable_column(self._classifier.id2label, model, acceptable_label)

    def acceptability(self, texts: Sequence[str]) -> np.ndarray:
        """``[len(texts)]`` P(acceptable)."""
        return self._classifier.probabilities(texts)[:, self.column]
