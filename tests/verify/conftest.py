"""Fixtures of the detector, diagnostics and meta-evaluation tests."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def shared_data() -> Path:
    """``<repo>/../shared/data``; skip the test when it is absent (licensed data never enters the repo)."""
    path = (REPO / "../shared/data").resolve()
    if not path.is_dir():
        pytest.skip("../shared/data is absent")
    return path
