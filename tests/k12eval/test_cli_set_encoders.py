"""``calibrate`` and ``meta-eval --lodo`` score each labelled set's ROSCOE features with the encoder its
language needs, by the rule plain ``meta-eval`` follows; ``--min-correct`` is one option (#15 items 2 and 4)."""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

import k12eval.models
import reasoning_metrics.models
from k12eval.cli import app
from k12eval.cli import calibrate as calibrate_cli
from k12eval.cli import metaeval as metaeval_cli
from k12eval.models.loading import encoder_specs
from reasoning_metrics.metaeval import load_solutions
from reasoning_metrics.metaeval.ck12_labels import CK12_ENV
from reasoning_metrics.models.languages import CHINESE_ENCODER, english_only_encoder
from reasoning_metrics.verify.rules.baseline import DEFAULT_ENCODER, solution_languages
from tests.importer_helpers import ck12_record, write_jsonl
from tests.reasoning_metrics.fakes import HashEncoder
from tests.reasoning_metrics.verify.combiner_samples import chains, write_chains

runner = CliRunner()
HAN = re.compile(r"[\u4e00-\u9fff]")


class NamedEncoder(HashEncoder):
    """A fake standing in for the model ``spec`` names; records what it embedded."""

    def __init__(self, spec: str) -> None:
        super().__init__()
        self.name = spec

    def saw_chinese(self) -> bool:
        return any(HAN.search(text) for call in self.calls for text in call)


@pytest.fixture
def loaded(monkeypatch: pytest.MonkeyPatch) -> dict[str, NamedEncoder]:
    """Every encoder the command loads, by the spec it asked for (no weights are read)."""
    made: dict[str, NamedEncoder] = {}

    def load_model(role: str, spec: str) -> NamedEncoder:
        assert role == "encoder"
        return made.setdefault(spec, NamedEncoder(spec))

    monkeypatch.setattr(k12eval.models, "metric_model", lambda ref: ref)
    monkeypatch.setattr(reasoning_metrics.models, "load_model", load_model)
    return made


def zh_labels(root: Path, n: int, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``ck12-labels`` set over ``n`` invented Chinese questions (a release in ``root``), half of them wrong."""
    questions, labels = [], []
    for k in range(n):
        a, b, c = 3 + k, 5 + 2 * k, 2 + k % 3
        right = (a + b) * c
        questions.append(
            ck12_record(
                id=f"q{k}",
                prompt=f"甲有{a}个苹果，乙有{b}个，合起来再乘以{c}，共有几个？（　　）",
                answer_option=[f"A.{right}", f"B.{right + 1}"],
                answer="A",
            )
        )
        wrong = k % 2 == 1
        total = a + b + int(wrong)
        steps = [
            f"甲有{a}个，乙有{b}个。",
            f"合起来 {a} + {b} = {total}。",
            f"再乘以{c}：{total} * {c} = {total * c}。",
        ]
        labels.append(
            {
                "id": f"q{k}/m",
                "ck12_id": f"q{k}",
                "model": "m",
                "steps": [*steps, f"答案是 {'B' if wrong else 'A'}"],
                "graded_correct": not wrong,
                "first_error": 1 if wrong else -1,
                "kind": "calculation" if wrong else None,
            }
        )
    write_jsonl(root / "ck12" / "original_data" / "初中" / "数学" / "单选.jsonl", questions)
    monkeypatch.setenv(CK12_ENV, str(root / "ck12"))
    return write_jsonl(root / "zh.jsonl", labels)


def test_a_chinese_ck12_labels_set_gets_the_multilingual_encoder_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    solutions = load_solutions(zh_labels(tmp_path, 2, monkeypatch), "ck12-labels")
    specs = encoder_specs("default", solution_languages(solutions))
    assert specs == {"zh": CHINESE_ENCODER} and english_only_encoder(specs["zh"]) is None
    assert encoder_specs("default", ["en"]) == {"en": DEFAULT_ENCODER}
    assert english_only_encoder(DEFAULT_ENCODER) == "all-MiniLM-L6-v2"
    assert encoder_specs("my-encoder", ["en", "zh"]) == {"en": "my-encoder", "zh": "my-encoder"}
    assert encoder_specs("none", ["zh"]) == {}


@pytest.mark.slow
def test_calibrate_scores_each_set_with_its_languages_encoder_and_records_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loaded: dict[str, NamedEncoder]
) -> None:
    en = write_chains(tmp_path / "en.jsonl", chains("en", 24, 0))
    zh = zh_labels(tmp_path, 12, monkeypatch)
    out = tmp_path / "combiner.json"
    args = ["calibrate", f"chains:{en}", f"ck12-labels:{zh}", "--half", "all", "--folds", "2", "--out", str(out)]
    result = runner.invoke(app, [*args, "--encoder", "default"])
    assert result.exit_code == 0, result.output
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert {t["name"]: t["encoder"] for t in saved["training"]} == {
        "en": {"en": DEFAULT_ENCODER},
        "zh": {"zh": CHINESE_ENCODER},
    }
    assert "roscoe.alignment" in saved["features"]
    assert loaded[CHINESE_ENCODER].saw_chinese() and not loaded[DEFAULT_ENCODER].saw_chinese()

    loaded.clear()
    result = runner.invoke(app, [*args, "--encoder", "my-encoder"])
    assert result.exit_code == 0, result.output
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert [t["encoder"] for t in saved["training"]] == [{"en": "my-encoder"}, {"zh": "my-encoder"}]
    assert list(loaded) == ["my-encoder"]  # one model for both sets, loaded once

    result = runner.invoke(app, [*args, "--encoder", "none"])
    assert result.exit_code == 0, result.output
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert [t["encoder"] for t in saved["training"]] == [None, None]
    assert not any(f.startswith("roscoe.") for f in saved["features"])


@pytest.mark.slow
def test_lodo_scores_each_set_with_its_languages_encoder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loaded: dict[str, NamedEncoder]
) -> None:
    a = write_chains(tmp_path / "a.jsonl", chains("a", 24, 0))
    b = write_chains(tmp_path / "b.jsonl", chains("b", 24, 1))
    zh = zh_labels(tmp_path, 12, monkeypatch)
    specs = ["--lodo", f"chains:{a}", "--lodo", f"chains:{b}", "--lodo", f"ck12-labels:{zh}"]
    result = runner.invoke(app, ["meta-eval", *specs, "--encoder", "default", "--folds", "2"])
    assert result.exit_code == 0, result.output
    assert set(loaded) == {DEFAULT_ENCODER, CHINESE_ENCODER}
    assert loaded[CHINESE_ENCODER].saw_chinese() and not loaded[DEFAULT_ENCODER].saw_chinese()
    assert re.search(rf"zh dev \(\d+, encoder zh: {re.escape(CHINESE_ENCODER)}\)", result.output)
    assert re.search(rf"a dev \(\d+, encoder en: {re.escape(DEFAULT_ENCODER)}\)", result.output)


def test_min_correct_is_declared_once_with_one_help() -> None:
    commands = get_command(app).commands  # type: ignore[attr-defined]
    params = [next(p for p in commands[name].params if p.name == "min_correct") for name in ("calibrate", "meta-eval")]
    assert params[0].help == params[1].help and params[0].opts == params[1].opts == ["--min-correct"]
    hints = [
        typing.get_type_hints(fn, include_extras=True)["min_correct"]
        for fn in (calibrate_cli.calibrate, metaeval_cli.meta_eval)
    ]
    assert hints[0] is hints[1]
