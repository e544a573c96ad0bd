"""The harness on files shaped like data it has not seen: ProcessBench's MATH-style splits, MR-MATH, MR-GSM8K.

The fixtures in ``tests/fixtures/metaeval`` are written for these tests (LaTeX-heavy and
Chinese steps, a blank step, a one-step solution, a label on the last step); the awkward
cases are built from them here, so that each error can be checked to name file, line and field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from kg.errors import InputError
from reasoning_metrics.metaeval import DetectionContext, load_solutions, meta_evaluate, run_detectors
from reasoning_metrics.verify.rules.arithmetic import check_steps
from tests.reasoning_metrics.verify.fakes import TableEncoder

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "metaeval"
PROCESSBENCH = FIXTURES / "processbench_math.json"
MR_MATH = FIXTURES / "mr_math.json"
MR_GSM8K = FIXTURES / "mr_gsm8k.jsonl"
runner = CliRunner()


def test_fixtures_load_with_their_labels() -> None:
    pb = {s.id: s for s in load_solutions(PROCESSBENCH, "processbench")}
    assert [pb[k].target for k in ("math-0", "math-1", "math-3", "math-5", "math-6", "math-7")] == [-1, 1, 2, 0, -1, 0]
    assert pb["math-3"].step_labels == (False, False, True)  # the label may be the last step
    assert pb["math-7"].steps[1] == ""  # a blank step keeps its place
    assert "\\frac{1}{2} + \\frac{1}{3}" in pb["math-1"].steps[1] and "移项" in pb["math-4"].steps[0]
    mr = {s.id: s for s in load_solutions(MR_MATH, "mr-math")}
    assert mr["1"].first_error == 1 and mr["1"].steps[1].endswith("\nWe simplify the fraction.")
    assert mr["3"].first_error == 1  # "2", given as text, is the second step
    assert mr["4"].has_error and mr["4"].target is None  # wrong, first error "N/A": place unknown
    gsm = load_solutions(MR_GSM8K, "mr-math")
    assert [len(s.steps) for s in gsm] == [3, 2, 2] and gsm[1].target == 0


def test_the_verifier_flags_the_labelled_latex_steps_and_nothing_in_correct_solutions() -> None:
    for path, fmt in ((PROCESSBENCH, "processbench"), (MR_MATH, "mr-math"), (MR_GSM8K, "mr-math")):
        for solution in load_solutions(path, fmt):
            flagged = [i for i, check in enumerate(check_steps(solution.steps)) if check.false_claims]
            if solution.target == -1:
                assert flagged == [], (solution.id, flagged)
            elif solution.target is not None and flagged:
                assert flagged[0] == solution.target, (solution.id, flagged)
    caught = [
        s.id
        for s in load_solutions(PROCESSBENCH, "processbench")
        if s.has_error and any(c.false_claims for c in check_steps(s.steps))
    ]
    assert caught == ["math-1", "math-3", "math-5", "math-7"]


@pytest.mark.parametrize(("path", "fmt"), [(PROCESSBENCH, "processbench"), (MR_MATH, "mr-math"), (MR_GSM8K, "mr-math")])
def test_every_detector_runs_on_each_shape(path: Path, fmt: str) -> None:
    solutions = load_solutions(path, fmt)
    context = DetectionContext(solutions, encoder=TableEncoder({}, default=[1.0, 0.5]))
    results = run_detectors(context)
    unavailable = {r.name for r in results if r.unavailable}
    assert unavailable == {
        "roscoe.source_consistency",
        "roscoe.self_consistency",
        "contradiction",
        "judge",
        "prm",
        "rollouts",
    }
    assert all(
        len(r.step_scores[k]) == len(s.steps) for r in results if not r.unavailable for k, s in enumerate(solutions)
    )
    report = meta_evaluate(solutions, results, n_boot=20)
    aggregate = next(d for d in report.detectors if d.name == "aggregate")
    assert aggregate.auroc is not None and aggregate.f1 is not None
    # the same scores under the baselines' rule: same AUROC, a threshold fitted out of fold
    fitted = next(d for d in report.detectors if d.name == "aggregate_cv")
    assert (fitted.auroc, fitted.rule, aggregate.rule) == (aggregate.auroc, "cv-threshold", "native")
    # and without the fallback: same scores, a first suspect only where a step is flagged
    strict = next(r for r in results if r.name == "aggregate_flags")
    full = next(r for r in results if r.name == "aggregate")
    assert strict.solution_scores == full.solution_scores and strict.native is not None and full.native is not None
    assert all(p in (-1, q) for p, q in zip(strict.native, full.native, strict=True))


@pytest.mark.parametrize(("path", "fmt"), [(PROCESSBENCH, "processbench"), (MR_MATH, "mr-math"), (MR_GSM8K, "mr-math")])
def test_cli_reports_each_shape(path: Path, fmt: str) -> None:
    result = runner.invoke(app, ["meta-eval", str(path), "-f", fmt, "--encoder", "none", "--boot", "20"])
    assert result.exit_code == 0, result.output
    assert "| aggregate | k12eval |" in result.output and "| arithmetic | k12eval | " in result.output


def _rewrite(tmp_path: Path, source: Path, index: int, change: dict[str, Any], drop: str | None = None) -> Path:
    """``source`` (a JSON list) with record ``index`` changed, written pretty-printed like the real files."""
    records = json.loads(source.read_text(encoding="utf-8"))
    records[index] = {k: v for k, v in {**records[index], **change}.items() if k != drop}
    path = tmp_path / source.name
    path.write_text(json.dumps(records, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


def _line_of_record(path: Path, index: int) -> int:
    """Line on which record ``index`` of a pretty-printed list opens (its ``{``)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    opening = [n for n, line in enumerate(lines, start=1) if line == "  {"]
    return opening[index]


@pytest.mark.parametrize(
    ("source", "fmt", "change", "drop", "message"),
    [
        (PROCESSBENCH, "processbench", {"steps": []}, None, "field 'steps': the solution has no steps"),
        (PROCESSBENCH, "processbench", {"label": 3}, None, "field 'label': expected -1 or a step index below 3"),
        (PROCESSBENCH, "processbench", {}, "label", "missing field 'label'"),
        (PROCESSBENCH, "processbench", {}, "problem", "missing field 'problem'"),
        (PROCESSBENCH, "processbench", {"steps": ["$x = 1$", None]}, None, "field 'steps': step 1 is null"),
        (PROCESSBENCH, "processbench", {"label": "two"}, None, "field 'label': expected a step index"),
        (
            MR_MATH,
            "mr-math",
            {"model_output_solution_correctness": "wrong", "model_output_solution_first_error_step": 9},
            None,
            "9 is not one of the 2 steps",
        ),
        (MR_MATH, "mr-math", {"model_output_step_format": [["1. a"], [2]]}, None, "step 1 is a list"),
        (MR_MATH, "mr-math", {"model_output_solution_correctness": "maybe"}, None, "expected correct or wrong"),
        (MR_MATH, "mr-math", {}, "model_output_step_format", "missing field 'model_output_steps'"),
    ],
)
def test_awkward_records_name_file_line_and_field(
    tmp_path: Path, source: Path, fmt: str, change: dict[str, Any], drop: str | None, message: str
) -> None:
    path = _rewrite(tmp_path, source, 2, change, drop)
    with pytest.raises(InputError) as caught:
        load_solutions(path, fmt)
    text = str(caught.value)
    assert text.startswith(f"{path}, record 2 (line {_line_of_record(path, 2)})") and message in text


def test_awkward_files_are_clear_errors_on_the_command_line(tmp_path: Path) -> None:
    single = tmp_path / "single.json"
    single.write_text(json.dumps({"data": json.loads(PROCESSBENCH.read_text(encoding="utf-8"))}, indent=2))
    latin = tmp_path / "latin1.jsonl"
    latin.write_bytes('{"id": "é"}\n'.encode("latin-1"))
    bad_line = tmp_path / "bad.jsonl"
    bad_line.write_text(MR_GSM8K.read_text(encoding="utf-8") + '{"uuid": "g-4", "question": \n', encoding="utf-8")
    cases = [
        (single, "processbench", "one JSON object (keys: data)"),
        (latin, "mr-math", "not UTF-8 text"),
        (bad_line, "mr-math", f"{bad_line}, line 4: not valid JSON"),
    ]
    for path, fmt, message in cases:
        result = runner.invoke(app, ["meta-eval", str(path), "-f", fmt, "--encoder", "none"])
        assert result.exit_code == 2, result.output
        assert result.output.startswith("error: ") and message in result.output and "Traceback" not in result.output
