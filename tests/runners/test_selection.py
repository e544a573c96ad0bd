"""Named selections: CK12's reasoning subset (math, more than two analysis steps) (#16 item 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.errors import SettingError
from kg.importers import load_questions
from runners.selection import analysis_steps, select
from tests.qfactory import fill, single

THREE_STEPS = "先求出$$x$$。\n\n再代入。\n\n故选B。"


@pytest.mark.parametrize(
    ("analysis", "steps"),
    [("", 0), ("一步。", 1), ("第一步。\n\n第二步。", 2), (THREE_STEPS, 3), ("a\n\n\n\n  \n\nb\nc\n\nd", 3)],
)
def test_analysis_steps_are_paragraphs(analysis: str, steps: int) -> None:
    assert analysis_steps(analysis) == steps


def test_the_reasoning_subset_is_math_with_more_than_two_steps() -> None:
    questions = [
        single(id="math3", analysis=THREE_STEPS),
        fill(["2"], id="fill3", analysis=THREE_STEPS),
        single(id="math2", analysis="第一步。\n\n第二步。"),
        single(id="physics3", subject="物理", analysis=THREE_STEPS),
        single(id="one-line", analysis="先求出x。再代入。故选B。"),  # sentences on one line are one step
    ]
    assert [q.id for q in select(questions, "reasoning-subset")] == ["math3", "fill3"]
    assert len(select(questions, "all")) == len(questions)


def test_an_unknown_selection_names_the_option_and_the_choices() -> None:
    with pytest.raises(SettingError, match=r"^select 'reasoning'.*reasoning-subset"):
        select([], "reasoning")


@pytest.mark.shared_data
@pytest.mark.slow
def test_reasoning_subset_of_the_shared_middle_school_release(shared_data: Path) -> None:
    # shared/ holds the 初中 release only (the paper's 7,334 are over every stage): measured 1,312 of
    # 2,130 math questions; counted here independently by blank-line-separated paragraphs.
    questions = load_questions(shared_data / "ck12" / "original_data").questions
    math = [q for q in questions if q.subject == "数学"]
    expected = [q.id for q in math if len([p for p in q.analysis.split("\n\n") if p.strip()]) > 2]
    assert [q.id for q in select(questions, "reasoning-subset")] == expected
    # The figures runners.selection quotes (#31 item 6): the paper's "more than two" steps, and "at least two".
    at_least_two = [q for q in math if len([p for p in q.analysis.split("\n\n") if p.strip()]) >= 2]
    assert (len(expected), len(at_least_two), len(math)) == (1312, 1660, 2130)
