"""The detectors and the harness on the real public data in ../shared/data (skipped when it is absent)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reasoning_metrics.diagnostics import build_diagnostic_set, load_source
from reasoning_metrics.metaeval import DetectionContext, load_solutions, meta_evaluate, run_detectors
from reasoning_metrics.metaeval.data import LabelledSolution
from reasoning_metrics.verify.rules.arithmetic import Verdict, check_steps

pytestmark = pytest.mark.shared_data


@pytest.mark.slow
def test_processbench_loads_and_the_verifier_never_flags_a_correct_solution(shared_data: Path) -> None:
    solutions = load_solutions(shared_data / "processbench" / "gsm8k.json", "processbench")
    assert len(solutions) == 400 and sum(s.has_error for s in solutions) == 207
    correct = [s for s in solutions if not s.has_error]
    false_claims = [(s.id, c.expression) for s in correct for step in check_steps(s.steps) for c in step.false_claims]
    assert false_claims == []
    checked = sum(step.checked for s in correct for step in check_steps(s.steps))
    assert checked > 500  # it does read the calculations, it is not silent


@pytest.mark.slow
def test_ck12_analyses_verify_without_false_alarms(shared_data: Path) -> None:
    items = load_source(shared_data / "ck12" / "original_data" / "初中" / "数学" / "填空.jsonl")[:300]
    assert items and all(item.lang in ("zh", "en") for item in items)
    checks = [c for item in items for step in check_steps(item.steps) for c in step.claims]
    false = [c.expression for c in checks if c.verdict is Verdict.FALSE]
    checked = [c for c in checks if c.verdict is not Verdict.UNCHECKED]
    assert len(checked) > 100
    assert len(false) <= 0.05 * len(checked), false[:10]  # teachers' analyses are (almost always) right


def test_diagnostic_set_from_gsm8k_is_caught_by_the_aggregate(shared_data: Path) -> None:
    items = load_source(shared_data / "gsm8k" / "test.sample200.jsonl")[:40]
    records = build_diagnostic_set(items, kinds=("number", "operation"), seed=0).records
    assert {r["meta"]["kind"] for r in records} == {"original", "number", "operation"}
    solutions = [load_record(r) for r in records]
    results = run_detectors(DetectionContext(solutions), ["arithmetic", "aggregate"])
    report = meta_evaluate(solutions, results, n_boot=0)
    aggregate = next(d for d in report.detectors if d.name == "aggregate")
    assert aggregate.auroc is not None and aggregate.auroc > 0.75
    assert aggregate.acc_correct is not None and aggregate.acc_correct > 0.9


def load_record(record: dict[str, Any]) -> LabelledSolution:
    labels = tuple(None if v is None else bool(v) for v in record["step_labels"])
    first = record["first_error"]
    return LabelledSolution(
        record["id"],
        record["problem"],
        tuple(record["steps"]),
        first >= 0,
        first if first >= 0 else None,
        labels,
    )


@pytest.mark.slow
def test_mr_gsm8k_halves_and_the_default_combiner_on_processbench(shared_data: Path) -> None:
    """MR-GSM8K reads as one set of two generators; the shipped combiner runs on ProcessBench's confirmation
    half (which it was not fitted on) and calls most correct solutions correct."""
    from reasoning_metrics.combine import load_combiner
    from reasoning_metrics.metaeval.halves import in_half, split_key
    from reasoning_metrics.metaeval.sets import load_set, parse_set

    mr = shared_data / "mr-gsm8k"
    both = load_set(parse_set(f"mr=mr-math:{mr / 'Claude_eval_results.json'},{mr / 'llama2_70b_eval_results.json'}"))
    assert len(both) == 649 and all(s.has_error and s.first_error is not None for s in both)
    dev = in_half(both, "dev")
    assert 0.4 < len(dev) / len(both) < 0.6
    assert {split_key(s) for s in dev}.isdisjoint({split_key(s) for s in in_half(both, "confirm")})
    solutions = in_half(load_solutions(shared_data / "processbench" / "gsm8k.json", "processbench"), "confirm")
    results = run_detectors(DetectionContext(solutions, combiner=load_combiner("default")), ["aggregate", "combiner"])
    report = meta_evaluate(solutions, results, n_boot=0)
    aggregate, combiner = report.detectors
    assert combiner.acc_correct is not None and combiner.acc_correct > 0.9
    assert combiner.acc_error is not None and aggregate.acc_error is not None
    assert combiner.acc_error >= aggregate.acc_error - 0.05


def test_the_default_combiner_was_fitted_on_the_chinese_labels_as_they_are(
    shared_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default combiner was fitted before 5 answers of the first Chinese file became non-answers
    (#26 item 9); 2 of them in development halves were trained on as correct solutions. Its recorded
    training counts must be what the labels give now (a non-answer: wrong, no step located), so that a
    relabelling without a refit (``scripts/fit_default_combiner.py``) is caught."""
    from reasoning_metrics.combine import load_combiner
    from reasoning_metrics.metaeval.ck12_labels import CK12_ENV
    from reasoning_metrics.metaeval.halves import in_half
    from tests.conftest import REPO

    monkeypatch.setenv(CK12_ENV, str(shared_data / "ck12"))
    entries = [t for t in load_combiner("default").training if t["format"] == "ck12-labels"]
    assert sorted(Path(p).name for t in entries for p in t["paths"]) == sorted(
        p.name for p in (REPO / "data" / "ck12_errors").glob("*.jsonl")
    )
    for entry in entries:
        dev = [s for p in entry["paths"] for s in in_half(load_solutions(REPO / p, "ck12-labels"), entry["half"])]
        now = {
            "solutions": len(dev),
            "with_error": sum(s.has_error for s in dev),
            "located": sum(s.target is not None and s.target >= 0 for s in dev),
        }
        assert {k: entry[k] for k in now} == now, entry["name"]
