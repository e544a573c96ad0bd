"""A transformers sequence classifier giving class probabilities (for the NLI and grammar adapters)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from reasoning_metrics.models._torch import load_pretrained, max_input_length, out_of_memory, pick_batch

PAD_MULTIPLE_GPU = 32
"""Width multiple of a batch on a GPU (see :attr:`SequenceClassifier.pad_multiple`)."""


class SequenceClassifier:
    """Softmax over a classifier's labels for texts or text pairs, ``batch_size`` at a time, truncated.

    The inputs are tokenised once, in one call, then run shortest first (little padding); the ids
    go to the device as NumPy arrays (no per-element Python conversion). A batch that runs out of
    GPU memory is halved, and the smaller batch kept. ``dtype`` ``auto``: float16 on a GPU, else float32;
    the softmax is taken in float32.
    """

    def __init__(self, model: str, device: str | None, batch_size: int | str, dtype: str = "auto") -> None:
        import torch

        self._torch = torch
        self.tokenizer, self.model, self.device = load_pretrained(
            model, "AutoModelForSequenceClassification", device, dtype
        )
        self.dtype_name = str(self.model.dtype).removeprefix("torch.")
        self.batch_size = pick_batch(batch_size, self.device)
        self.max_length = max_input_length(self.tokenizer, self.model.config)
        self.id2label: dict[int, str] = self.model.config.id2label
        pad = self.tokenizer.pad_token_id
        self._pad = int(pad if pad is not None else 0)
        self.pad_multiple = PAD_MULTIPLE_GPU if str(self.device).startswith("cuda") else 1
        """A batch's width is rounded up to a multiple of this: on a GPU each new width costs a kernel
        plan (cuDNN's attention), so fewer widths pay it fewer times; on a CPU padding only costs."""

    def probabilities(self, first: Sequence[str], second: Sequence[str] | None = None) -> np.ndarray:
        """``[len(first), labels]`` in the model's label order; ``second`` pairs each text with another."""
        out = np.zeros((len(first), len(self.id2label)), dtype=np.float32)
        if not len(first):
            return out
        encoded = self.tokenizer(
            list(first),
            None if second is None else list(second),
            truncation=True,
            padding=False,
            max_length=self.max_length,
        )
        columns = [k for k in ("input_ids", "token_type_ids") if k in encoded]
        lengths = np.fromiter((len(ids) for ids in encoded["input_ids"]), dtype=np.int64, count=len(first))
        order = np.argsort(lengths, kind="stable")
        start = 0
        while start < len(order):
            rows = order[start : start + self.batch_size]
            try:
                out[rows] = self._forward(encoded, columns, rows, self._width(int(lengths[rows].max())))
            except RuntimeError as exc:
                if self.batch_size > 1 and out_of_memory(exc):
                    self.batch_size //= 2
                    continue
                raise
            start += len(rows)
        return out

    def _width(self, longest: int) -> int:
        """The padded width of a batch whose longest input has ``longest`` tokens."""
        rounded = -(-longest // self.pad_multiple) * self.pad_multiple
        return max(longest, min(rounded, self.max_length))

    def _forward(self, encoded: Any, columns: list[str], rows: np.ndarray, width: int) -> np.ndarray:
        """Class probabilities of ``rows``, padded on the right to ``width`` tokens."""
        torch = self._torch
        arrays = {k: np.full((len(rows), width), self._pad if k == "input_ids" else 0, dtype=np.int64) for k in columns}
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for i, row in enumerate(rows.tolist()):
            n = len(encoded["input_ids"][row])
            mask[i, :n] = 1
            for k in columns:
                arrays[k][i, :n] = encoded[k][row]
        arrays["attention_mask"] = mask
        tensors = {k: torch.from_numpy(v).to(self.device, non_blocking=True) for k, v in arrays.items()}
        with torch.inference_mode():
            probs = torch.softmax(self.model(**tensors).logits.float(), dim=-1)
        result: np.ndarray = probs.cpu().numpy()
        return result
