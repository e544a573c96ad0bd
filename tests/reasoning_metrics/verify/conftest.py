"""Fixtures of the detector, diagnostics and meta-evaluation tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def shared_data() -> Path:
    """``<repo>/../shared/data`` (or ``$K12EVAL_SHARED_DATA``); skip when absent: licensed data stays out."""
    path = Path(os.environ.get("K12EVAL_SHARED_DATA") or REPO / "../shared/data").resolve()
    if not path.is_dir():
        pytest.skip("../shared/data is absent")
    return path
