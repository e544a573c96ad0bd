"""Grammatical acceptability with a CoLA-style transformers classifier (hub id or folder)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from reasoning_metrics.models._torch import max_input_length, model_path, pick_device
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
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        self.name = model
        self.batch_size = batch_size
        self._torch = torch
        self._device = pick_device(device)
        path = model_path(model)
        self._tokenizer = AutoTokenizer.from_pretrained(path)
        self._model = AutoModelForSequenceClassification.from_pretrained(path).eval().to(self._device)
        self.column = acceptable_column(self._model.config.id2label, model, acceptable_label)
        self.max_length = max_input_length(self._tokenizer, self._model.config)

    def acceptability(self, texts: Sequence[str]) -> np.ndarray:
        """``[len(texts)]`` P(acceptable)."""
        out = np.zeros(len(texts), dtype=np.float32)
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            encoded = self._tokenizer(
                batch, truncation=True, padding=True, max_length=self.max_length, return_tensors="pt"
            ).to(self._device)
            with self._torch.no_grad():
                probs = self._torch.softmax(self._model(**encoded).logits.float(), dim=-1)
            out[start : start + len(batch)] = probs[:, self.column].cpu().numpy()
        return out
