"""Shared test fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("K12EVAL_SHARED_DATA") or REPO.parent / "shared" / "data")
"""The public data sets: ``../shared/data`` beside the checkout, or ``$K12EVAL_SHARED_DATA``."""


@pytest.fixture
def shared_data() -> Path:
    """The public data sets beside the checkout; the test is skipped when they are absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"{SHARED_DATA} is absent")
    return SHARED_DATA
