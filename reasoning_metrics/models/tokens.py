"""Contextual token embeddings from a transformers encoder (the *base* model of a sentence encoder)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from reasoning_metrics.models._torch import load_pretrained, max_input_length


class TransformersTokenEmbedder:
    """A :class:`~reasoning_metrics.protocols.TokenEmbedder`: last hidden states, special and pad tokens out.

    Deviation from the reference, on purpose: the reference calls the model
    without an attention mask, so the token embeddings of a short step depend on
    the longest step padded next to it; here pads are masked, so a step's
    embeddings are its own (which is also what lets steps be batched across
    chains). It drops the first and last position; here the tokenizer's special
    tokens are dropped, the same positions for BERT, RoBERTa and MPNet.
    """

    def __init__(self, model: str, *, device: str | None = None, batch_size: int = 32, max_length: int = 512) -> None:
        import torch

        self.name = model
        self.batch_size = batch_size
        self._torch = torch
        self._tokenizer, self._model, self._device = load_pretrained(model, "AutoModel", device)
        self.max_length = max_input_length(self._tokenizer, self._model.config, cap=max_length)

    def embed_tokens(self, texts: Sequence[str]) -> list[np.ndarray]:
        """One ``float32`` ``[tokens_i, d]`` array per text."""
        out: list[np.ndarray] = []
        for start in range(0, len(texts), self.batch_size):
            encoded = self._tokenizer(
                list(texts[start : start + self.batch_size]),
                truncation=True,
                padding=True,
                max_length=self.max_length,
                return_tensors="pt",
                return_special_tokens_mask=True,
            )
            special = encoded.pop("special_tokens_mask")
            keep = (encoded["attention_mask"] == 1) & (special == 0)
            with self._torch.no_grad():
                hidden = self._model(**encoded.to(self._device)).last_hidden_state.float().cpu()
            out.extend(hidden[i][keep[i]].numpy() for i in range(len(hidden)))
        return out
