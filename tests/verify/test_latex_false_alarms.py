"""MATH-style LaTeX steps do not set the verifier off: no false alarm on true steps, every false twin caught."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reasoning_metrics.metaeval import load_solutions
from reasoning_metrics.verify.aggregate import assess_solutions
from reasoning_metrics.verify.arithmetic import Verdict, check_steps

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "metaeval"
STEPS = json.loads((FIXTURES / "latex_steps.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("step", STEPS["correct"])
def test_true_latex_step_raises_no_alarm(step: str) -> None:
    (check,) = check_steps([step])
    assert check.false_claims == []


@pytest.mark.parametrize("step", STEPS["wrong"])
def test_false_latex_step_is_caught(step: str) -> None:
    (check,) = check_steps([step])
    assert check.false_claims, step


def test_the_verifier_reads_the_latex_it_does_not_flag() -> None:
    checked = sum(c.verdict is Verdict.TRUE for check in check_steps(STEPS["correct"]) for c in check.claims)
    assert checked >= 30  # silence would pass the false-alarm test too


def test_no_first_suspect_in_correct_math_style_solutions() -> None:
    correct = [s for s in load_solutions(FIXTURES / "processbench_math.json", "processbench") if s.target == -1]
    assert len(correct) == 4
    assert [a.first_suspect for a in assess_solutions(correct)] == [-1, -1, -1, -1]
