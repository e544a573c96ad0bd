"""A transformers sequence classifier giving class probabilities (for the NLI and grammar adapters)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from reasoning_metrics.models._torch import load_pretrained, max_input_length


class SequenceClassifier:
    """Softmax over a classifier's labels for texts or text pairs, ``batch_size`` at a time, truncated."""

    def __init__(self, model: str, device: str | None, batch_size: int) -> None:
        import torch

        self._torch = torch
        self.tokenizer, self.model, self.device = load_pretrained(model, "AutoModelForSequenceClassification", device)
        self.batch_size = batch_size
        self.max_length = max_input_length(self.tokenizer, self.model.config)
        self.id2label: dict[int, str] = self.model.config.id2label

    def probabilities(self, first: Sequence[str], second: Sequence[str] | None = None) -> np.ndarray:
        """``[len(first), labels]`` in the model's label order; ``second`` pairs each text with another."""
        out = np.zeros((len(first), len(self.id2label)), dtype=np.float32)
        for start in range(0, len(first), self.batch_size):
            end = start + self.batch_size
            encoded = self.tokenizer(
                list(first[start:end]),
                None if second is None else list(second[start:end]),
                truncation=True,
                padding=True,
                max_length=self.max_length,
                return_tensors="pt",
            ).to(self.device)
            with self._torch.no_grad():
                probs = self._torch.softmax(self.model(**encoded).logits.float(), dim=-1)
            out[start:end] = probs.cpu().numpy()
        return out
