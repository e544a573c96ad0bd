"""Shared test fixtures."""

from __future__ import annotations

import gc
import importlib.util
import os
from pathlib import Path

import pytest

# The floor check (scripts/check_lower_bounds.sh) installs the core dependencies and pytest only.
if importlib.util.find_spec("hypothesis") is not None:
    from hypothesis import settings

    # No per-example deadline (hypothesis's default is 200 ms): on a busy machine an example's wall time
    # says nothing about the code, and a test that fails only there is a false alarm (#37). Tests that
    # bound a computation's cost measure this process's CPU time instead (time.process_time).
    settings.register_profile("k12eval", deadline=None)
    settings.load_profile("k12eval")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before each test, what is alive is moved out of the garbage collector's sight (``gc.freeze``).

    transformers' batching engine runs a full ``gc.collect()`` twice per ``generate`` call; in a test process
    holding torch, transformers, sympy and every test module that scanned over a million objects each time,
    1.3 s on average under load and a fifth of the suite's CPU time (#37). Frozen, a collection scans only
    what the tests made since; the garbage of the test before is collected first, so it is not kept.
    """
    gc.collect()
    gc.freeze()


REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("K12EVAL_SHARED_DATA") or REPO.parent / "shared" / "data")
"""The public data sets: ``../shared/data`` beside the checkout, or ``$K12EVAL_SHARED_DATA``."""


@pytest.fixture
def shared_data() -> Path:
    """The public data sets beside the checkout; the test is skipped when they are absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"{SHARED_DATA} is absent")
    return SHARED_DATA


@pytest.fixture(scope="session")
def tiny_qwen2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny random Qwen2 chat model (``runners.testing.tiny_model``'s default shape), built once per session."""
    from runners.testing.tiny_model import build_tiny_qwen2

    return build_tiny_qwen2(tmp_path_factory.mktemp("tiny-qwen2-default"))


@pytest.fixture
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The test's own ``K12EVAL_HOME`` and no model hub (use with ``pytest.mark.usefixtures("offline")``)."""
    monkeypatch.setenv("K12EVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
