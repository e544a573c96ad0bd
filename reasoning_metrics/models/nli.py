"""Natural-language inference with a transformers sequence-classification model (hub id or folder)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from reasoning_metrics.models._torch import max_input_length, model_path, pick_device
from reasoning_metrics.models.labels import nli_columns


class TransformersNLI:
    """An :class:`~reasoning_metrics.protocols.NLIModel`; columns reordered from ``config.id2label``.

    Pairs are truncated (longest first) at the model's maximum length, as in the reference.
    """

    def __init__(self, model: str, *, device: str | None = None, batch_size: int = 32) -> None:
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        self.name = model
        self.batch_size = batch_size
        self._torch = torch
        self._device = pick_device(device)
        path = model_path(model)
        self._tokenizer = AutoTokenizer.from_pretrained(path)
        self._model = AutoModelForSequenceClassification.from_pretrained(path).eval().to(self._device)
        self.columns = nli_columns(self._model.config.id2label)
        self.max_length = max_input_length(self._tokenizer, self._model.config)

    def nli(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """``[len(pairs), 3]`` P(entailment, neutral, contradiction) of (premise, hypothesis) pairs."""
        out = np.zeros((len(pairs), 3), dtype=np.float32)
        for start in range(0, len(pairs), self.batch_size):
            batch = pairs[start : start + self.batch_size]
            encoded = self._tokenizer(
                [p for p, _ in batch],
                [h for _, h in batch],
                truncation=True,
                padding=True,
                max_length=self.max_length,
                return_tensors="pt",
            ).to(self._device)
            with self._torch.no_grad():
                probs = self._torch.softmax(self._model(**encoded).logits.float(), dim=-1)
            out[start : start + len(batch)] = probs[:, self.columns].cpu().numpy()
        return out
