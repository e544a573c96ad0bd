"""Which weights a local model run really loaded: its hub revision and the sha256 of its weight files.

A model's name (``Qwen/Qwen2.5-7B-Instruct``) says nothing of the weights behind it: the hub moves
``main``, a folder is overwritten, a GGUF re-quantized under the same name. ``run.json`` therefore
records, for a model loaded here (transformers, vLLM), what :func:`describe_model` finds:

- ``revision``: the commit of the hub cache's snapshot the model was loaded from
  (``.../models--Qwen--Qwen2.5-7B-Instruct/snapshots/<commit>``), as lm-eval's ``model_sha``;
  ``None`` for a folder of your own;
- ``files``: each weight file (``*.safetensors``, ``*.bin``, ``*.gguf``, ``*.pt``, ``*.pth``) and its
  sha256, in name order; ``sha256``: the sha256 of those ``name sha256`` lines, one value to
  compare two runs by.

Hashing reads every byte once (about 1 GiB per 2-3 s on one core); the result is cached in
``<cache_home>/weights_sha256.json`` by the file's resolved path, size and modification time, so a
second run of the same weights reads nothing.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from pathlib import Path
from typing import Any

from runners.files import atomic_write, cache_home

log = logging.getLogger(__name__)
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".gguf", ".pt", ".pth")
CACHE_FILE = "weights_sha256.json"
_SNAPSHOT = re.compile(r"^[0-9a-f]{40}$")
_CHUNK = 8 << 20


def model_folder(model: str) -> Path | None:
    """The folder or file ``model`` names, or the hub cache's snapshot of a hub id (never downloads); else ``None``."""
    path = Path(model).expanduser()
    if path.exists():
        return path
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    found = try_to_load_from_cache(model, "config.json")
    return Path(found).parent if isinstance(found, str) else None


def weight_files(path: Path) -> list[Path]:
    """The weight files of a model folder (in name order), or the file itself."""
    if path.is_file():
        return [path]
    return sorted(f for f in path.iterdir() if f.suffix in WEIGHT_SUFFIXES and f.is_file())


def describe_model(model: str, gguf_file: str | None = None) -> dict[str, Any] | None:
    """``{"revision", "files", "sha256"}`` of a model loaded here, or ``None`` when its files are not found."""
    folder = model_folder(model)
    if folder is None:
        return None
    files = [folder / gguf_file] if gguf_file and folder.is_dir() else weight_files(folder)
    files = [f for f in files if f.is_file()]
    if not files:
        return None
    hashes = file_hashes(files)
    combined = hashlib.sha256("".join(f"{name} {digest}\n" for name, digest in hashes.items()).encode()).hexdigest()
    snapshot = folder if folder.is_dir() else folder.parent
    revision = snapshot.name if _SNAPSHOT.match(snapshot.name) and snapshot.parent.name == "snapshots" else None
    return {"revision": revision, "files": hashes, "sha256": combined}


def file_hashes(files: list[Path]) -> dict[str, str]:
    """``{file name: sha256}``, from the cache when a file's path, size and modification time are unchanged."""
    cache_path = cache_home() / CACHE_FILE
    try:
        cache = json.loads(cache_path.read_text(encoding="utf-8"))
        cache = cache if isinstance(cache, dict) else {}
    except (OSError, ValueError):
        cache = {}
    hashes: dict[str, str] = {}
    changed = False
    for file in files:
        real = file.resolve()
        stat = real.stat()
        key = f"{real}|{stat.st_size}|{stat.st_mtime_ns}"
        digest = cache.get(key)
        if not isinstance(digest, str):
            log.info("sha256 of %s (%.1f GiB), once", file.name, stat.st_size / 2**30)
            digest = sha256_file(real)
            cache[key] = digest
            changed = True
        hashes[file.name] = digest
    if changed:
        try:
            cache_path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(cache_path, json.dumps(cache, indent=1, sort_keys=True))
        except OSError as exc:  # a read-only cache: the hashes are still right, only not kept
            log.warning("could not keep the weights' sha256 in %s: %s", cache_path, exc)
    return hashes


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file, read in chunks (the one reader of the project: model pulls check theirs with it)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
