"""Load a causal LM and its tokenizer with transformers: hub id, local folder or GGUF file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from runners.backends.gguf import convert_gguf, split_gguf

_DTYPES = ("auto", "float32", "bfloat16", "float16")


def pick_device(device: str) -> str:
    """``auto`` means CUDA when available, else CPU; anything else is passed to torch as is."""
    if device != "auto":
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def pick_dtype(dtype: str, device: str) -> Any:
    """``auto``: float32 on a CPU (bfloat16 matmuls are slow on most CPUs), the checkpoint's own on GPU."""
    import torch

    if dtype not in _DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(_DTYPES)}, got {dtype!r}")
    if dtype == "auto":
        return torch.float32 if device == "cpu" else "auto"
    return getattr(torch, dtype)


def resolve_model_path(model: str, gguf_file: str | None, gguf_cache: str | None = None) -> str:
    """The folder or hub id to load; a local GGUF file is converted once and its folder returned."""
    folder, name = split_gguf(model, gguf_file)
    if name is None:
        return folder
    local = Path(folder) / name
    if not local.is_file():
        from huggingface_hub import hf_hub_download

        local = Path(hf_hub_download(folder, name))
    return str(convert_gguf(local, Path(gguf_cache) if gguf_cache else None))


def load_causal_lm(
    model: str,
    *,
    device: str = "auto",
    dtype: str = "auto",
    gguf_file: str | None = None,
    gguf_cache: str | None = None,
    trust_remote_code: bool = False,
) -> tuple[Any, Any, str]:
    """``(model, tokenizer, device)``: the model in eval mode on ``device``."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = resolve_model_path(model, gguf_file, gguf_cache)
    device = pick_device(device)
    tokenizer = AutoTokenizer.from_pretrained(path, trust_remote_code=trust_remote_code)
    lm: Any = AutoModelForCausalLM.from_pretrained(
        path, dtype=pick_dtype(dtype, device), trust_remote_code=trust_remote_code
    )
    lm.to(device).eval()
    return lm, tokenizer, device
