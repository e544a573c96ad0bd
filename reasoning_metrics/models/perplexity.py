"""Perplexity with a transformers causal language model, computed the way the reference does.

Each text is tokenised without special tokens and prefixed with the BOS token
(EOS where there is none); with GPT-2 that is the reference's input, whose
tokeniser adds nothing by itself. Texts longer than the model's context are
scored with the reference's strided window: the context is ``n_positions``
tokens and ``n_positions / 2`` new tokens are scored per window.

Deviation: the reference pads with EOS and ignores the pad id in the loss, so
an EOS token written inside a text is silently not scored (yet counted); here
padding is masked by the attention mask and every text token is scored.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from reasoning_metrics.models._torch import model_path, pick_device


class TransformersPerplexity:
    """A :class:`~reasoning_metrics.protocols.PerplexityModel`: ``exp(mean token NLL)`` and token count."""

    def __init__(self, model: str, *, device: str | None = None, batch_size: int = 16) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.name = model
        self.batch_size = batch_size
        self._torch = torch
        self._device = pick_device(device)
        path = model_path(model)
        try:  # the reference asks GPT-2's tokeniser for a leading space; others reject the option
            self._tokenizer = AutoTokenizer.from_pretrained(path, add_prefix_space=True)
        except (TypeError, ValueError):
            self._tokenizer = AutoTokenizer.from_pretrained(path)
        self._tokenizer.padding_side = "right"
        if self._tokenizer.pad_token is None:
            self._tokenizer.pad_token = self._tokenizer.eos_token
        self._model = AutoModelForCausalLM.from_pretrained(path).eval().to(self._device)
        config = self._model.config
        context = getattr(config, "n_positions", None) or getattr(config, "max_position_embeddings", None) or 1024
        self.context = int(context) - int(context) % 2
        bos = self._tokenizer.bos_token_id
        self._bos = bos if bos is not None else self._tokenizer.eos_token_id

    def perplexity(self, texts: Sequence[str]) -> np.ndarray:
        """``[len(texts), 2]``: perplexity and token count (NaN and 0 for a text without tokens)."""
        out = np.zeros((len(texts), 2), dtype=np.float64)
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            nll, counts = self._nll(batch)
            with np.errstate(divide="ignore", invalid="ignore"):
                out[start : start + len(batch), 0] = np.exp(nll / counts)
            out[start : start + len(batch), 1] = counts
        return out

    def _nll(self, batch: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Summed token NLL and token count per text (the BOS token is context, never a target)."""
        torch = self._torch
        encoded = self._tokenizer(batch, add_special_tokens=False, padding=True, return_tensors="pt")
        bos = torch.full((len(batch), 1), self._bos, dtype=encoded.input_ids.dtype)
        ids = torch.cat([bos, encoded.input_ids], dim=1)
        mask = torch.cat([torch.ones_like(bos), encoded.attention_mask], dim=1)
        length, stride = ids.shape[1], self.context // 2
        total = torch.zeros(len(batch), dtype=torch.float64)
        for i in range(0, length, stride):
            begin, end = max(i + stride - self.context, 0), min(i + stride, length)
            window_ids = ids[:, begin:end].to(self._device)
            window_mask = mask[:, begin:end].to(self._device)
            with torch.no_grad():
                logits = self._model(window_ids, attention_mask=window_mask).logits.float()
            logprobs = torch.log_softmax(logits[:, :-1], dim=-1)
            targets = window_ids[:, 1:]
            token_nll = -logprobs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
            # only the targets at positions >= i are new in this window; pads are never targets
            scored = window_mask[:, 1:].clone()
            scored[:, : max(i - begin - 1, 0)] = 0
            total += (token_nll * scored).sum(dim=1).double().cpu()
        counts = (mask.sum(dim=1) - 1).double()
        return total.numpy(), counts.numpy()
