"""k12eval: where a language model's knowledge and reasoning break down, knowledge point by knowledge point.

The Python API (docs/python.md) is :mod:`k12eval.api`, re-exported here and imported on first use,
so ``import k12eval`` (and ``k12eval --help``) loads neither pandas nor a model library.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from k12eval._guard import foreign_package
from k12eval._version import __version__

if (_problem := foreign_package()) is not None:  # before anything imports kg, runners or reports
    raise ImportError(_problem)

__all__ = [
    "__version__",
    "calibrate",
    "load_bank",
    "load_runs",
    "meta_eval",
    "node_table",
    "question_table",
    "report",
    "run",
    "sample_bank",
    "score",
]

if TYPE_CHECKING:
    from k12eval.api import (
        calibrate,
        load_bank,
        load_runs,
        meta_eval,
        node_table,
        question_table,
        report,
        run,
        sample_bank,
        score,
    )


def __getattr__(name: str) -> Any:
    """The API functions, imported from :mod:`k12eval.api` when first asked for (PEP 562)."""
    if name in __all__ and name != "__version__":
        from k12eval import api

        return getattr(api, name)
    raise AttributeError(f"module 'k12eval' has no attribute {name!r}")
