"""Ranks from option scores, Xiezhi's ranking metrics, and the next-token letter pick."""

from __future__ import annotations

import math

import pytest

from runners.ranking import gold_rank, hit_at, letter_scores, mean_normalized_rank, mrr, pick_letter, ranks


def test_rank_one_is_the_most_probable() -> None:
    scores = {"A": -3.0, "B": -0.5, "C": -1.2, "D": -7.0}
    assert ranks(scores) == {"B": 1, "C": 2, "A": 3, "D": 4}
    assert gold_rank(scores, "C") == 2


def test_ties_take_the_worst_rank_of_their_group() -> None:
    assert ranks({"A": -1.0, "B": -1.0, "C": -2.0}) == {"A": 2, "B": 2, "C": 3}
    flat = {label: -1.386 for label in "ABCD"}
    assert gold_rank(flat, "A") == 4  # a model that cannot tell options apart gets no credit
    assert hit_at([gold_rank(flat, "A")], 1) == 0.0


def test_nan_ranks_last() -> None:
    assert ranks({"A": float("nan"), "B": -9.0}) == {"B": 1, "A": 2}
    assert gold_rank({"A": -math.inf, "B": float("nan")}, "A") == 2


def test_unknown_gold() -> None:
    with pytest.raises(KeyError, match="gold option 'E'"):
        gold_rank({"A": 0.0}, "E")


def test_metrics_worked_by_hand() -> None:
    gold_ranks = [1, 2, 4, 50]
    assert mrr(gold_ranks) == pytest.approx((1 + 0.5 + 0.25 + 0.02) / 4)
    assert hit_at(gold_ranks, 1) == 0.25
    assert hit_at(gold_ranks, 4) == 0.75
    assert mean_normalized_rank(gold_ranks, 50) == pytest.approx((1 + 2 + 4 + 50) / 4 / 50)
    assert mean_normalized_rank([1, 2], [4, 50]) == pytest.approx((1 / 4 + 2 / 50) / 2)


def test_the_released_xiezhi_direction_would_invert_ranks() -> None:
    # Sorting ascending (the released code's latest commit) ranks the least likely first: rank n + 1 - r.
    scores = {"A": -0.1, "B": -2.0, "C": -5.0}
    ascending = {label: i + 1 for i, (label, _) in enumerate(sorted(scores.items(), key=lambda kv: kv[1]))}
    assert ascending["A"] == len(scores) + 1 - ranks(scores)["A"] == 3
    assert ranks(scores)["A"] == 1


def test_metric_inputs_are_checked() -> None:
    with pytest.raises(ValueError, match="no ranks"):
        mrr([])
    with pytest.raises(ValueError, match="start at 1"):
        hit_at([0], 1)
    with pytest.raises(ValueError, match="larger than"):
        mean_normalized_rank([5], 4)
    with pytest.raises(ValueError, match="option counts"):
        mean_normalized_rank([1, 2], [4])


def test_letter_scores_pool_spellings_of_a_letter() -> None:
    top = {" A": math.log(0.2), "A": math.log(0.1), "Ｂ": math.log(0.3), "b": math.log(0.3), "The": -0.1}
    scores = letter_scores(top, ["A", "B", "C", "D"])
    assert scores.keys() == {"A", "B"}
    assert scores["A"] == pytest.approx(math.log(0.3))
    assert scores["B"] == pytest.approx(math.log(0.3))


def test_pick_letter_never_guesses() -> None:
    assert pick_letter({"A": -2.0, "B": -0.3, "C": -1.0}) == "B"
    assert pick_letter({"A": -1.0, "B": -1.0}) is None  # a tie is not broken by label order
    assert pick_letter({}) is None
    assert pick_letter({"A": -math.inf, "B": float("nan")}) is None
