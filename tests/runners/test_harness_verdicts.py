"""lm-eval's verdicts read from its sample lines, ``--grader`` parsed and refused, and ``results.json`` (#34 item 2).

The real files' end-to-end checks are in tests/conformance/test_lm_eval_verdicts.py; these are the rules
on lines written here.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from k12eval import api
from k12eval.cli import app
from kg.errors import InputError, SettingError
from runners.backends.harness_verdicts import Grader, lm_eval_verdict, results_filters
from runners.backends.replay import ReplayBackend
from runners.results_file import mean_stderr
from tests._runs import question, write_bank
from tests.importer_helpers import write_jsonl, write_text
from tests.scripted import ScriptedBackend

DATE = "2024-05-01T10-00-00.123456"
STEMS = ["一个数加上五等于十二，这个数是多少？", "一个数减去三等于九，这个数是多少？"]


@pytest.mark.parametrize(
    ("text", "grader"),
    [
        ("k12eval", Grader()),
        ("harness", Grader("harness")),
        ("harness:acc_norm", Grader("harness", "acc_norm")),
        ("harness:exact_match,flexible-extract", Grader("harness", "exact_match", "flexible-extract")),
    ],
)
def test_grader_choices(text: str, grader: Grader) -> None:
    assert Grader.parse(text) == grader and str(grader) == text


@pytest.mark.parametrize("text", ["lm-eval", "k12eval:acc", "harnes"])
def test_a_grader_of_another_name_is_refused_naming_the_option(text: str) -> None:
    with pytest.raises(SettingError, match=f"^grader {text!r}: choose k12eval") as refused:
        Grader.parse(text)
    assert refused.value.setting == "grader"


def test_a_verdict_holds_the_named_metrics_the_filter_and_the_filtered_answer() -> None:
    line = {"doc_id": 0, "filter": "strict-match", "metrics": ["exact_match"], "exact_match": 1,
            "acc": 0.0, "filtered_resps": ["12"], "resps": [["... #### 12"]]}  # fmt: skip
    assert lm_eval_verdict(line) == {"filter": "strict-match", "filtered": "12", "metrics": {"exact_match": 1.0}}


def test_without_a_metrics_list_every_finite_number_beside_the_standard_fields_is_a_metric() -> None:
    line = {"doc_id": 3, "target": 1, "resps": [[[-1.0, True]]], "filtered_resps": [[-1.0, True]],
            "acc": True, "acc_norm": 0.0, "bleu": math.nan, "doc_hash": "x"}  # fmt: skip
    verdict = lm_eval_verdict(line, default_filter="get-answer")
    assert verdict == {"filter": "get-answer", "filtered": None, "metrics": {"acc": 1.0, "acc_norm": 0.0}}
    assert lm_eval_verdict({"doc_id": 3, "resps": [["x"]]}) is None


def test_the_filters_of_an_old_file_come_from_the_results_file_beside_it(tmp_path: Path) -> None:
    samples = write_jsonl(tmp_path / f"samples_gsm8k_{DATE}.jsonl", [{"doc_id": 0}])
    assert results_filters(samples, "gsm8k") == []  # no results file: lm-eval's one filter, "none"
    config = {"filter_list": [{"name": "strict-match"}, {"name": "flexible-extract"}]}
    write_text(tmp_path / f"results_{DATE}.json", json.dumps({"configs": {"gsm8k": config}}))
    assert results_filters(samples, "gsm8k") == ["strict-match", "flexible-extract"]
    write_text(tmp_path / f"results_{DATE}.json", "{not json")
    assert results_filters(samples, "gsm8k") == []


def _lines() -> list[dict[str, object]]:
    """Two documents, each with two lines (two filters, as lm-eval writes gsm8k): strict wrong, flexible right."""
    lines = []
    for doc_id, (stem, answer) in enumerate(zip(STEMS, ["7", "12"], strict=True)):
        for name, value in (("strict-match", 0.0), ("flexible-extract", 1.0)):
            lines.append({"doc_id": doc_id, "doc": {"question": stem}, "target": answer, "filter": name,
                          "resps": [[f"答案是 {answer}"]], "filtered_resps": [answer], "metrics": ["exact_match"],
                          "exact_match": value})  # fmt: skip
    return lines


def _bank(root: Path) -> Path:
    questions = [
        question(f"g{i}", "数学", "代数", "方程", "fill_in_blank", stem=stem, answer=[answer])
        for i, (stem, answer) in enumerate(zip(STEMS, ["7", "12"], strict=True))
    ]
    return write_bank(root, questions)


def test_every_filter_line_of_a_document_is_one_verdict_and_the_grader_picks_one(tmp_path: Path) -> None:
    samples = write_jsonl(tmp_path / "lm" / f"samples_gsm8k_{DATE}.jsonl", _lines())
    backend = ReplayBackend(str(samples))
    assert backend.harness is not None
    assert backend.harness["verdicts"] == {"metrics": ["exact_match"], "filters": ["strict-match", "flexible-extract"]}
    bank = _bank(tmp_path / "bank")
    runs = {}
    for grader in ("k12eval", "harness", "harness:exact_match,flexible-extract"):
        out = tmp_path / grader.replace(":", "_").replace(",", "_")
        summary = api.run(bank, "m", out, backend="replay", backend_options={"path": str(samples)}, grader=grader)
        runs[grader] = summary
    assert [r.correct for r in runs["k12eval"].records] == [True, True]  # k12eval's own reading
    assert [r.correct for r in runs["harness"].records] == [False, False]  # the first filter: strict-match
    flexible = runs["harness:exact_match,flexible-extract"].records
    assert [r.correct for r in flexible] == [True, True]
    assert all(r.harness and r.harness["k12eval_correct"] is True for r in flexible)
    strict = json.loads((tmp_path / "harness" / "results.json").read_text(encoding="utf-8"))
    assert strict["results"]["gsm8k"]["exact_match,strict-match"] == 0.0
    own = json.loads((tmp_path / "k12eval" / "results.json").read_text(encoding="utf-8"))
    assert own["results"]["gsm8k"]["exact_match,k12eval"] == 1.0


def test_the_harness_grader_asks_for_harness_verdicts(tmp_path: Path) -> None:
    bank = _bank(tmp_path / "bank")
    samples = write_jsonl(tmp_path / "lm" / f"samples_gsm8k_{DATE}.jsonl", _lines())
    runner = CliRunner()
    for args, said in (
        (
            ["-m", "m", "--grader", "harness"],
            "--grader 'harness': reads the verdicts lm-eval recorded beside its answers: replay its samples_*.jsonl with --backend replay",
        ),
        (["-b", "replay", "-m", str(samples), "--grader", "harness:acc"], "no metric 'acc'"),
        (["-b", "replay", "-m", str(samples), "--grader", "harness:exact_match,none"], "no filter 'none'"),
    ):
        result = runner.invoke(app, ["run", str(bank), "-o", str(tmp_path / "run"), *args])
        assert result.exit_code == 2 and said in result.output, result.output


def test_a_run_graded_one_way_is_not_resumed_another(tmp_path: Path) -> None:
    bank = _bank(tmp_path / "bank")
    samples = write_jsonl(tmp_path / "lm" / f"samples_gsm8k_{DATE}.jsonl", _lines())
    out = tmp_path / "run"
    api.run(bank, "m", out, backend="replay", backend_options={"path": str(samples)})
    with pytest.raises(InputError, match="grader"):
        api.run(bank, "m", out, backend="replay", backend_options={"path": str(samples)}, grader="harness")


def test_results_json_of_a_scored_run_says_acc_and_lm_evals_standard_error(tmp_path: Path) -> None:
    questions = [question(f"q{i}", "物理", "力学", "浮力", stem=f"第 {i} 题：浮力的方向是") for i in range(4)]
    bank = write_bank(tmp_path / "bank", questions)
    right = {"q0", "q1", "q2"}
    backend = ScriptedBackend(score=lambda r: [0.0, -1.0, -2.0, -3.0] if r.id in right else [-3.0, 0.0, -1.0, -2.0])
    api.run(bank, "m", tmp_path / "run", backend=backend, strategy="rank-options")
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    assert results["results"]["ck12_物理"]["acc,none"] == 0.75
    # lm-eval's stderr of a mean: sqrt(p (1 - p) / (n - 1)) for 0/1 values
    assert results["results"]["ck12_物理"]["acc_stderr,none"] == pytest.approx(math.sqrt(0.75 * 0.25 / 3))
    assert results["n-samples"]["ck12_物理"] == {"original": 4, "effective": 3 + 1}
    summary = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    assert summary["all"]["accuracy_interval"] == pytest.approx([0.3006, 0.9544], abs=1e-4)  # Wilson, 3/4


def test_the_standard_error_needs_two_answers() -> None:
    assert mean_stderr([1.0]) == "N/A" and mean_stderr([1.0, 0.0]) == pytest.approx(0.5)
