"""One-time conversion of a GGUF checkpoint into a safetensors folder, cached next to the file.

Dequantizing a GGUF file with transformers takes about a minute for a 0.5B model; the
converted folder then loads in about a second. The conversion writes into a temporary
sibling folder and renames it into place, so an interrupted conversion leaves nothing
half-written behind. :func:`dequantize_gguf` is the one conversion; ``k12eval models pull``
uses it too (:mod:`k12eval.models._convert`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

from kg.errors import InputError
from runners.files import cache_home
from runners.leftovers import OWNER, owner, put_in_place, remove_abandoned

_PROBE = "1 + 1 = 2. 数学"
"""A short text whose logits are compared before and after saving (English and Chinese tokens)."""

MARKER = "k12eval-gguf.json"
"""Written last into a converted folder: which GGUF file it came from."""


def split_gguf(model: str, gguf_file: str | None) -> tuple[str, str | None]:
    """``(folder or hub id, gguf file name)``: a ``model`` that is itself a ``.gguf`` file is split."""
    if gguf_file is None and model.endswith(".gguf") and Path(model).is_file():
        path = Path(model).resolve()
        return str(path.parent), path.name
    return model, gguf_file


def converted_dir(gguf_path: Path, cache_root: Path | None = None) -> Path:
    """Where the converted copy of ``gguf_path`` lives: ``<stem>-hf`` beside it when writable and free.

    A read-only location (e.g. inside site-packages) falls back to ``cache_root`` or the
    ``gguf`` folder of k12eval's cache (:func:`runners.files.cache_home`, which honours
    ``$K12EVAL_HOME``), under a name that includes a hash of the file's path. So does a ``<stem>-hf``
    that is not a conversion (no :data:`MARKER`): a user's own folder, often the checkpoint the GGUF file was
    made from, which a conversion replacing it would delete.
    """
    beside = gguf_path.with_name(gguf_path.stem + "-hf")
    if cache_root is None and os.access(gguf_path.parent, os.W_OK) and _free_or_converted(beside):
        return beside
    root = cache_root or cache_home() / "gguf"
    digest = hashlib.sha256(str(gguf_path.resolve()).encode()).hexdigest()[:12]
    return root / f"{gguf_path.stem}-{digest}"


def _free_or_converted(folder: Path) -> bool:
    """Whether a conversion may be put at ``folder``: nothing there, an empty folder, or a conversion's folder."""
    if not os.path.lexists(folder):
        return True
    if folder.is_symlink() or not folder.is_dir():
        return False
    return os.path.lexists(folder / MARKER) or not any(folder.iterdir())


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
    target = converted_dir(gguf_path, cache_root)
    if is_converted(target, gguf_path):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    # A conversion killed midway (a model's size) is removed once its process is gone.
    remove_abandoned(target.parent, (re.compile(rf"\.{re.escape(target.name)}\.partial-{OWNER}"),))
    partial = target.with_name(f".{target.name}.partial-{owner()}")
    shutil.rmtree(partial, ignore_errors=True)
    dequantize_gguf(gguf_path.parent, gguf_path.name, partial)
    (partial / MARKER).write_text(json.dumps(_source_stamp(gguf_path)), encoding="utf-8")
    shutil.rmtree(target, ignore_errors=True)  # an older conversion (converted_dir: never another folder)
    put_in_place(partial, target)  # a conversion of the same file by another process may have landed first
    if not is_converted(target, gguf_path):  # the older one could not be removed (another user's files)
        raise InputError(f"{target}: holds an older conversion that could not be removed; remove it and run again")
    return target


def dequantize_gguf(folder: Path, gguf_file: str, target: Path) -> str:
    """Load ``folder/gguf_file`` with transformers, dequantized; save weights and tokenizer into ``target``.

    The saved copy is reloaded and must give the same logits as the GGUF-loaded model on a probe
    text, so a bad conversion never reaches a cache. Returns the saved weights' dtype. ``target``
    may be ``folder`` itself. Needs torch, transformers and gguf (imported here): an
    :class:`ImportError` when torch or transformers is missing, an :class:`InputError` when the
    file cannot be loaded or converted.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=gguf_file)
        model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=gguf_file, **_dequantized())
        _forget_gguf_origin(model)
    except (ImportError, ValueError, OSError) as exc:
        raise InputError(f"transformers could not load {folder / gguf_file}: {exc}") from None
    model.eval()
    probe = tokenizer(_PROBE, return_tensors="pt").input_ids
    with torch.no_grad():
        before = model(probe).logits
    model.save_pretrained(target)
    tokenizer.save_pretrained(target)
    dtype = str(model.dtype).removeprefix("torch.")
    del model
    reloaded = AutoModelForCausalLM.from_pretrained(target)
    with torch.no_grad():
        after = reloaded(probe).logits
    if not torch.allclose(before, after, atol=1e-4, rtol=1e-4):
        diff = (before - after).abs().max().item()
        raise InputError(f"the converted copy of {gguf_file} does not reproduce its logits (max diff {diff:.3g})")
    return dtype


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
