"""One-time conversion of a GGUF checkpoint into a safetensors folder, cached next to the file.

Dequantizing a GGUF file with transformers takes about a minute for a 0.5B model; the
converted folder then loads in about a second. The conversion writes into a temporary
sibling folder and renames it into place, so an interrupted conversion leaves nothing
half-written behind.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

MARKER = "k12eval-gguf.json"
"""Written last into a converted folder: which GGUF file it came from."""


def split_gguf(model: str, gguf_file: str | None) -> tuple[str, str | None]:
    """``(folder or hub id, gguf file name)``: a ``model`` that is itself a ``.gguf`` file is split."""
    if gguf_file is None and model.endswith(".gguf") and Path(model).is_file():
        path = Path(model).resolve()
        return str(path.parent), path.name
    return model, gguf_file


def converted_dir(gguf_path: Path, cache_root: Path | None = None) -> Path:
    """Where the converted copy of ``gguf_path`` lives: ``<stem>-hf`` beside it when writable.

    A read-only location (e.g. inside site-packages) falls back to ``cache_root`` or
    ``~/.cache/k12eval/gguf``, under a name that includes a hash of the file's path.
    """
    beside = gguf_path.with_name(gguf_path.stem + "-hf")
    if cache_root is None and os.access(gguf_path.parent, os.W_OK):
        return beside
    root = cache_root or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "k12eval" / "gguf"
    digest = hashlib.sha256(str(gguf_path.resolve()).encode()).hexdigest()[:12]
    return root / f"{gguf_path.stem}-{digest}"


def _source_stamp(gguf_path: Path) -> dict[str, object]:
    stat = gguf_path.stat()
    return {"source": str(gguf_path.resolve()), "size": stat.st_size, "mtime": int(stat.st_mtime)}


def is_converted(target: Path, gguf_path: Path) -> bool:
    """Whether ``target`` holds a finished conversion of this very file (same size and time)."""
    try:
        stamp = json.loads((target / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return bool(stamp == _source_stamp(gguf_path))


def convert_gguf(gguf_path: Path, cache_root: Path | None = None) -> Path:
    """Convert ``gguf_path`` to a transformers folder (safetensors + tokenizer) once; return it."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    target = converted_dir(gguf_path, cache_root)
    if is_converted(target, gguf_path):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    folder, name = str(gguf_path.parent), gguf_path.name
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, **_dequantized())
    _forget_gguf_origin(model)
    model.save_pretrained(partial)
    tokenizer.save_pretrained(partial)
    (partial / MARKER).write_text(json.dumps(_source_stamp(gguf_path)), encoding="utf-8")
    shutil.rmtree(target, ignore_errors=True)
    os.replace(partial, target)
    return target


def _dequantized() -> dict[str, Any]:
    """Ask for float weights even where GGUF kernels would keep them packed (transformers >= 5)."""
    try:
        from transformers import GgufConfig
    except ImportError:  # older transformers always dequantize
        return {}
    return {"quantization_config": GgufConfig(dequantize=True)}


def _forget_gguf_origin(model: Any) -> None:
    """Let a dequantized GGUF model save as a plain checkpoint.

    Recent transformers keep a GGUF "quantizer" on the model, which refuses to save even when
    every weight was dequantized to floats (as on a CPU without GGUF kernels). Weights still
    packed in GGUF blocks cannot be saved as safetensors: that is an error.
    """
    packed = [name for name, module in model.named_modules() if "gguf" in type(module).__name__.lower()]
    if packed:
        raise ValueError(f"GGUF weights are still packed (e.g. {packed[0]}); cannot convert to safetensors")
    if getattr(model, "hf_quantizer", None) is not None:
        model.hf_quantizer = None
    if getattr(model.config, "quantization_config", None) is not None:
        del model.config.quantization_config
    if getattr(model, "is_quantized", False):
        model.is_quantized = False
