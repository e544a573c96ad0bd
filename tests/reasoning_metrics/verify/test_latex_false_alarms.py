"""MATH-style LaTeX steps do not set the verifier off: no false alarm on true steps, every false twin caught."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reasoning_metrics.metaeval import load_solutions
from reasoning_metrics.verify.aggregate_rule import assess_solutions
from reasoning_metrics.verify.rules.arithmetic import Verdict, check_steps

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "metaeval"
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


def test_notation_of_math_and_physics_solutions_is_read_as_meant() -> None:
    """Function values, subscripted unknowns, binomials, cases, alternatives, definitions and new
    definitions (``processbench_notation.json``): no suspect in the correct solutions, the exact
    step in their wrong twins."""
    solutions = load_solutions(FIXTURES / "processbench_notation.json", "processbench")
    found = {s.id: (s.target, a.first_suspect) for s, a in zip(solutions, assess_solutions(solutions), strict=True)}
    assert len(found) == 13 and sum(target == -1 for target, _ in found.values()) == 9
    assert {k: v for k, v in found.items() if v[0] != v[1]} == {}
