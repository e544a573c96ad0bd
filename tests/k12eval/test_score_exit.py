"""`k12eval score-chains` exits non-zero when a scoring model failed to load (#17 item 1).

The models the chosen metrics need are loaded up front, and one that fails there is an error
(status 2). This covers the other way in: a model whose loading is deferred to scoring (here a
loader that hands the specs on unloaded) fails there, its scores are reported unavailable, and
the command must not exit 0 as if the job were complete.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app

CHAIN = {"id": "c1", "source": "What is 1+1?", "hypothesis": "1+1=2. So the answer is 2.", "lang": "en"}


@pytest.fixture
def chains(tmp_path: Path) -> Path:
    path = tmp_path / "chains.jsonl"
    path.write_text(json.dumps(CHAIN) + "\n", encoding="utf-8")
    return path


def test_an_encoder_that_fails_to_load_while_scoring_exits_1(
    chains: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = str(tmp_path / "no-encoder")

    def deferred(*args: Any, **kwargs: Any) -> dict[str, Any]:
        return {}  # nothing loaded up front: the job's slots load the encoder on first use, while scoring

    monkeypatch.setattr("reasoning_metrics.scoring.load_models", deferred)
    options = ["-m", "faithfulness_step", "--embedder", missing, "--nli", "none", "--json"]
    result = CliRunner().invoke(app, ["score-chains", str(chains), *options])
    assert result.exit_code == 1, result.output
    last = result.output.strip().splitlines()[-1]
    assert last.startswith(f"error: could not load encoder model '{missing}'")
    assert last.endswith("1 chain(s) lack the scores that need it")


def test_scores_missing_for_want_of_a_model_named_none_are_not_a_failure(chains: Path) -> None:
    result = CliRunner().invoke(app, ["score-chains", str(chains), "--embedder", "none", "--nli", "none"])
    assert result.exit_code == 0, result.output
    assert "unavailable: faithfulness_step for 1 chain(s): no encoder model" in result.output
