"""One chain never stops the detectors: huge exact values, a detector's bug, a chain over its time budget (#14).

Finding 1: a step whose exact value has thousands of digits crashed the verifier for every run that
held it; whatever a detector raises on one chain is now recorded on that chain. Finding 7: a chain
the detectors cannot finish within its budget is recorded as not checked (too long). The budget is
tested with a budget of zero, never with timings.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

import reasoning_metrics.verify.rules.arithmetic as arithmetic
from k12eval.cli import app
from reasoning_metrics.guard import checking, tick
from reasoning_metrics.metaeval import DetectionContext, load_solutions, meta_evaluate, run_detectors, to_markdown
from reasoning_metrics.verify import FlagKind, Verdict, assess_one, check_steps
from tests.reasoning_metrics.verify import samples

POISON = "(1+0.001)^5000 = 148"


@dataclass(frozen=True)
class Sol:
    id: str
    problem: str
    steps: list[str]


@pytest.fixture
def buggy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A detector bug planted on every step that says ``POISON``: the boundary must hold whatever raises."""
    real = arithmetic.says_directed  # read once for every step checked, through check_steps or inspect_step

    def says_directed(step: str) -> bool:
        if "POISON" in step:
            raise RuntimeError("planted bug\nsecond line")
        return real(step)

    monkeypatch.setattr(arithmetic, "says_directed", says_directed)


@pytest.mark.parametrize(
    "step",
    [POISON, "(1.001)^4000 = 54", "1.0001^9999 = 2.7", "(1/3)^3000 = 0", "(7/3)^2000 = 1"],
)
def test_a_power_with_a_huge_exact_value_is_left_unchecked(step: str) -> None:
    (check,) = check_steps([step])
    assert [c.verdict for c in check.claims] == [Verdict.UNCHECKED]
    assert "to check" in check.claims[0].note


def test_powers_of_checkable_size_are_still_checked() -> None:
    checks = check_steps(["(1+0.05)^10 = 1.63", "1.5^600 = 1", "2^900 = 3", "(1+0.001)^50 = 1.05"])
    assert [c.claims[0].verdict for c in checks] == [Verdict.TRUE, Verdict.FALSE, Verdict.FALSE, Verdict.TRUE]


def test_an_error_on_one_chain_is_recorded_on_it(buggy: None) -> None:
    assessment = assess_one(Sol("s", "Tom has 12 apples.", ["12 + 5 = 17", "POISON", "The answer is 17."]))
    assert assessment.status == "error"
    assert assessment.score == 0.0 and assessment.first_suspect == -1
    assert len(assessment.steps) == 3 and all(not s.flags for s in assessment.steps)
    (flag,) = assessment.flags
    assert flag.kind is FlagKind.NOT_CHECKED and flag.severity == 0
    assert flag.message == "not checked (error: RuntimeError: planted bug)"


def test_a_chain_over_its_budget_is_recorded_too_long() -> None:
    solution = Sol("s", "Tom has 12 apples.", ["12 + 5 = 18", "The answer is 18."])
    assessment = assess_one(solution, budget_s=0.0)
    assert assessment.status == "too_long"
    assert assessment.flags[0].kind is FlagKind.NOT_CHECKED and "too long" in assessment.flags[0].message
    assert assess_one(solution, budget_s=None).status == "checked"


def test_the_budget_is_checked_between_steps_and_only_inside_a_check() -> None:
    seen: list[int] = []

    def steps() -> None:
        for i in range(3):
            tick()
            seen.append(i)

    assert checking(steps, budget_s=0.0).status == "too_long" and seen == []
    tick()  # outside a check: no deadline
    assert checking(steps, budget_s=60.0).status is None and seen == [0, 1, 2]


def _solutions(tmp_path: Path, poison: str) -> Path:
    records = [dict(r) for r in samples.PROCESSBENCH]
    records[1] = {**records[1], "steps": ["Tom starts with 12 apples.", poison, "The answer is 17."]}
    path = tmp_path / "pb.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def test_meta_eval_counts_a_chain_it_could_not_check_and_scores_the_rest(tmp_path: Path, buggy: None) -> None:
    solutions = load_solutions(_solutions(tmp_path, "POISON 12 + 5 = 17"), "processbench")
    names = ["arithmetic", "equations", "unsupported_numbers", "doubt", "aggregate", "aggregate_flags"]
    results = run_detectors(DetectionContext(solutions), names)
    for result in results:
        assert list(result.not_checked) == [1], result.name
        assert result.solution_scores[1] is None
        assert all(s is not None for k, s in enumerate(result.solution_scores) if k != 1), result.name
    report = meta_evaluate(solutions, results, n_boot=10)
    assert {d.name: d.not_checked for d in report.detectors} == dict.fromkeys(names, 1)
    assert "arithmetic: 1 solution(s) not checked" in to_markdown(report)


def test_meta_eval_records_chains_over_budget(tmp_path: Path) -> None:
    solutions = load_solutions(samples.write_processbench(tmp_path / "pb.json"), "processbench")
    results = run_detectors(DetectionContext(solutions, budget_s=0.0), ["doubt", "aggregate"])
    assert [len(r.not_checked) for r in results] == [len(solutions)] * 2
    assert all("too long" in reason for r in results for reason in r.not_checked.values())


def test_meta_eval_cli_finishes_on_a_file_with_a_huge_power(tmp_path: Path) -> None:
    data = _solutions(tmp_path, POISON)
    args = ["meta-eval", str(data), "-f", "processbench", "--encoder", "none", "--boot", "10", "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["solutions"] == len(samples.PROCESSBENCH)
    assert all(d["not_checked"] == 0 for d in report["detectors"])
