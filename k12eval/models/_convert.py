"""Dequantize a GGUF chat model once into a safetensors folder, so later loads take a second."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from kg.errors import InputError
from runners.backends.gguf import dequantize_gguf


def gguf_to_safetensors(folder: Path, gguf_file: str, report: Callable[[str], None] = lambda _: None) -> str:
    """Convert ``folder/gguf_file`` into safetensors weights and tokenizer in ``folder``; return their dtype.

    The conversion (and its logit check) is the transformers backend's own,
    :func:`runners.backends.gguf.dequantize_gguf`; here the files are also made
    world-readable, since the model cache is meant to be shared.
    """
    report(f"dequantizing {gguf_file} (about a minute for 0.5B parameters)")
    try:
        dtype = dequantize_gguf(folder, gguf_file, folder)
    except ImportError as exc:
        raise InputError(
            f"converting {gguf_file} needs torch and transformers ({exc}); pip install k12eval[hf]"
        ) from None
    # transformers writes some files owner-only; the cache is meant to be shared
    for path in folder.iterdir():
        if path.is_file():
            os.chmod(path, 0o644)
    return dtype
