"""The Hugging Face hub side: downloads, offline detection and the local hub cache."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from kg.errors import InputError

_TRUE = {"1", "true", "yes", "on"}


def hub_offline() -> bool:
    """Whether the hub must not be used: ``HF_HUB_OFFLINE`` / ``TRANSFORMERS_OFFLINE``, or no hub library."""
    if any(os.environ.get(var, "").strip().lower() in _TRUE for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")):
        return True
    return importlib.util.find_spec("huggingface_hub") is None


def hub_cache_dir() -> Path:
    """The hub's own download cache: ``HF_HUB_CACHE``, ``HF_HOME/hub`` or ``~/.cache/huggingface/hub``."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    return Path.home() / ".cache" / "huggingface" / "hub"


def in_hub_cache(hub_id: str) -> bool:
    """Whether the hub cache holds a snapshot of ``hub_id`` (so offline loading by hub id works)."""
    snapshots = hub_cache_dir() / ("models--" + hub_id.replace("/", "--")) / "snapshots"
    return snapshots.is_dir() and any(snapshots.iterdir())


def download(hub_id: str, folder: Path, revision: str | None, offline_hint: str) -> None:
    """Download a hub snapshot into ``folder``; errors become :class:`InputError` ending in the hint."""
    try:
        from huggingface_hub import snapshot_download
    except ImportError:
        raise InputError(
            f"huggingface_hub is not installed, so nothing can be fetched from the hub; {offline_hint}"
        ) from None
    try:
        snapshot_download(repo_id=hub_id, local_dir=str(folder), revision=revision)
    except (OSError, ValueError) as exc:
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise InputError(f"could not fetch {hub_id} from the Hugging Face hub ({reason}); {offline_hint}") from None
