"""Dequantize a GGUF chat model once into a safetensors folder, so later loads take a second."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from kg.errors import InputError

_PROBE = "1 + 1 = 2. 数学"
"""A short text whose logits are compared before and after saving (English and Chinese tokens)."""


def gguf_to_safetensors(folder: Path, gguf_file: str, report: Callable[[str], None] = lambda _: None) -> str:
    """Load ``folder/gguf_file`` with transformers; save weights and tokenizer into ``folder``.

    The saved copy is reloaded and must give the same logits as the GGUF-loaded model on a probe
    text, so a bad conversion never reaches the cache. Returns the saved weights' dtype.
    Needs torch, transformers, gguf and accelerate (imported here, not at module import).
    """
    try:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as exc:
        raise InputError(
            f"converting {gguf_file} needs torch and transformers ({exc}); pip install k12eval[hf]"
        ) from None
    try:
        from transformers import GgufConfig

        dequantize = {"quantization_config": GgufConfig(dequantize=True)}
    except ImportError:  # transformers < 5 always dequantizes GGUF weights
        dequantize = {}

    report(f"dequantizing {gguf_file} (about a minute for 0.5B parameters)")
    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=gguf_file)
        model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=gguf_file, **dequantize)
    except (ImportError, ValueError, OSError) as exc:
        raise InputError(f"transformers could not load {folder / gguf_file}: {exc}") from None
    model.eval()
    probe = tokenizer(_PROBE, return_tensors="pt").input_ids
    with torch.no_grad():
        before = model(probe).logits
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    dtype = str(model.dtype).removeprefix("torch.")
    del model
    reloaded = AutoModelForCausalLM.from_pretrained(folder)
    with torch.no_grad():
        after = reloaded(probe).logits
    if not torch.allclose(before, after, atol=1e-4, rtol=1e-4):
        diff = (before - after).abs().max().item()
        raise InputError(f"the converted copy of {gguf_file} does not reproduce its logits (max diff {diff:.3g})")
    # transformers writes some files owner-only; the cache is meant to be shared
    for path in folder.iterdir():
        if path.is_file():
            os.chmod(path, 0o644)
    return dtype
