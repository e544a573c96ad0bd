"""A run sent to W&B and MLflow through their own libraries (#34 item 3), in their offline modes.

W&B runs with ``WANDB_MODE=offline`` (the run stays on disk, as ``wandb sync`` would send it); MLflow
with a file store (``file://``, which MLflow 3 keeps behind ``MLFLOW_ALLOW_FILE_STORE``). Both read back
with their own tools: MLflow's client, W&B's offline run folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from tests._runs import question, write_bank
from tests.importer_helpers import write_jsonl


def _replayed(tmp_path: Path) -> list[str]:
    """A bank of three questions and a replay file answering two right: the run's arguments."""
    questions = [question(f"q{i}", subject, "力学", "浮力", stem=f"第 {i} 题：浮力的方向是")
                 for i, subject in enumerate(["物理", "物理", "数学"])]  # fmt: skip
    bank = write_bank(tmp_path / "bank", questions)
    answers = write_jsonl(tmp_path / "answers.jsonl", [{"id": f"q{i}", "response": f"正确答案是：{x}"}
                                                      for i, x in enumerate("ABA")])  # fmt: skip
    return ["run", str(bank), "-b", "replay", "-m", str(answers), "-o", str(tmp_path / "run")]


@pytest.mark.slow
def test_a_run_reaches_wandb_offline_and_an_mlflow_file_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("wandb")
    mlflow = pytest.importorskip("mlflow")
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_DIR", str(tmp_path / "wandb"))
    monkeypatch.setenv("WANDB_SILENT", "true")
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    (tmp_path / "wandb").mkdir()
    store = (tmp_path / "mlruns").as_uri()
    args = [*_replayed(tmp_path), "--wandb-args", "project=k12eval-test,name=replay-run,tags=a|b",
            "--mlflow-args", f"tracking_uri={store},experiment=k12eval-test,run_name=replay-run,team=教研组"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    assert summary["all"]["correct"] == 2

    client = mlflow.tracking.MlflowClient(tracking_uri=store)
    (run,) = client.search_runs([client.get_experiment_by_name("k12eval-test").experiment_id])
    assert run.data.metrics["accuracy"] == summary["all"]["accuracy"]
    assert run.data.metrics["by_subject/物理/accuracy"] == 0.5
    assert run.data.metrics["results/ck12_数学/exact_match/k12eval"] == 1.0
    assert json.loads(run.data.params["model"]) == str(tmp_path / "answers.jsonl")
    assert run.data.tags["team"] == "教研组" and run.info.run_name == "replay-run"
    assert {a.path for a in client.list_artifacts(run.info.run_id)} == {"run.json", "summary.json", "results.json"}

    (offline,) = (tmp_path / "wandb" / "wandb").glob("offline-run-*")
    saved = json.loads((offline / "files" / "summary.json").read_text(encoding="utf-8"))
    assert saved == summary
    (log,) = offline.glob("*.wandb")
    data = log.read_bytes()
    for text in ("k12eval-test", "replay-run", "by_subject/物理/accuracy", "accuracy_high"):
        assert text.encode("utf-8") in data, text


@pytest.mark.parametrize(("option", "module"), [("--wandb-args", "wandb"), ("--mlflow-args", "mlflow")])
def test_a_tracker_not_installed_is_refused_before_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, option: str, module: str
) -> None:
    import importlib.util

    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        return None if name == module else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    result = CliRunner().invoke(app, [*_replayed(tmp_path), option, "project=x"])
    assert result.exit_code == 2, result.output
    assert f"{module} is not installed; pip install 'k12eval[tracking]'" in result.output
    assert not (tmp_path / "run").exists()


def test_tracker_arguments_are_key_value_pairs(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, [*_replayed(tmp_path), "--wandb-args", "project"])
    assert result.exit_code == 2 and "expected key=value,key=value" in result.output
