"""What the learned combiner reads besides the detectors (what a step says that the question did not), and
how it places the first suspect of a graded-wrong answer. Steps written here in the style of a small
Chinese chat model's answers (no CK12 text)."""

from __future__ import annotations

import math

import pytest

from reasoning_metrics.combine.lexical import bigrams, lexical_features
from reasoning_metrics.combine.model import first_suspect

PROBLEM = "下列做法符合绿色化学核心的是（ ）\nA. 生产和使用剧毒农药\nB. 利用双氧水制氧气"
STEPS = [
    "为了确定哪个做法符合绿色化学的核心，我们需要分析每个选项。",
    "A. 生产和使用剧毒农药",
    "剧毒农药会残留在蔬菜里，危害人体健康。",
    "B. 利用双氧水制氧气",
    "双氧水分解会产生有毒的气体，污染空气。",
]


def test_bigrams_cut_han_characters_one_by_one_and_latin_runs_whole() -> None:
    assert bigrams("双氧水") == {("双", "氧"), ("氧", "水")}
    assert bigrams("x = 3.5 km") == {("x", "3.5"), ("3.5", "km")}
    assert bigrams("水") == {("水",)} and bigrams("。") == set()


def test_a_restated_option_is_not_a_claim_and_the_first_assertion_is() -> None:
    rows = lexical_features(PROBLEM, STEPS)
    assert rows[1]["text.from_source"] == 1.0 and rows[1]["text.claim"] == 0.0
    assert rows[3]["text.new"] == 0.0
    assert rows[0]["text.plan"] == 1.0 and rows[2]["text.plan"] == 0.0
    claims = [i for i, r in enumerate(rows) if r["text.claim"]]
    assert claims[0] == 2 and [i for i, r in enumerate(rows) if r["text.first_claim"]] == [2]
    assert rows[4]["text.claims_before"] == pytest.approx(math.log1p(1))


def test_the_analysis_supports_what_it_also_says() -> None:
    analysis = "剧毒农药残留在蔬菜里危害人体健康，不符合；双氧水分解生成水和氧气，符合绿色化学。"
    rows = lexical_features(PROBLEM, STEPS, analysis)
    assert all(r["ref.known"] == 1.0 for r in rows)
    assert rows[2]["ref.support"] > rows[4]["ref.support"]  # 残留……健康 is in the analysis; 有毒的气体 is not
    without = lexical_features(PROBLEM, STEPS)
    assert all(r["ref.known"] == r["ref.support"] == r["ref.share"] == 0.0 for r in without)


def test_empty_and_hostile_steps_give_finite_features() -> None:
    rows = lexical_features("", ["", "。。。", "\x00" * 50, "我们需要" * 10_000])
    assert all(math.isfinite(v) for r in rows for v in r.values())


@pytest.mark.parametrize(
    ("p", "wrong", "expected"),
    [
        ([0.1, 0.2, 0.1], False, -1),  # nothing reaches the threshold: called correct
        ([0.1, 0.6, 0.9], False, 1),  # earliest at or above the threshold
        ([0.1, 0.2, 0.1], True, 1),  # graded wrong: always placed, at the likeliest first error
        ([0.45, 0.9, 0.1], True, 1),  # 0.55 * 0.9 > 0.45
        ([0.6, 0.9, 0.1], True, 0),  # 0.4 * 0.9 < 0.6
        ([], True, -1),
    ],
)
def test_first_suspect(p: list[float], wrong: bool, expected: int) -> None:
    assert first_suspect(p, 0.5, wrong) == expected


def test_the_threshold_is_chosen_on_the_first_suspects_the_combiner_will_give() -> None:
    from reasoning_metrics.combine.fit import choose_threshold

    probabilities = [[0.1, 0.3, 0.2], [0.2, 0.1], [0.9, 0.1]]
    targets = [1, -1, 0]
    # Read as ungraded, the first solution needs a threshold at 0.3 or below to be placed at all, and
    # then the second is called correct only above 0.2: the best is 0.3 (all three right).
    _, free = choose_threshold(probabilities, targets)
    assert free["acc_error"] == 1.0 and free["acc_correct"] == 1.0
    # Graded wrong, the first is placed at step 1 whatever the threshold; the third likewise at step 0.
    threshold, graded = choose_threshold(probabilities, targets, wrong=[True, False, True])
    assert graded["acc_error"] == 1.0 and graded["acc_correct"] == 1.0 and threshold > 0.2
