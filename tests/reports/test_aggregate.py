"""Per-node aggregates on a small graph whose every number is worked out by hand.

The bank (tests/_runs.py: small_bank) and run A (SMALL_ANSWERS):

    数学 (science)
      函数 / 一次函数   q1 right, q2 wrong, q3 right          2/3
      函数 / 二次函数   q4 right                              1/1
      几何 / 三角形     q5 unparsed (counts as wrong)         0/1
    语文 (arts)
      阅读 / 古诗       q6 right, q7 wrong                    1/2
      阅读 / 文言文     q8 cloze, skipped                     empty (n = 0)

Wilson 95% bounds used below are the textbook values:
0/1 -> [0, .7935], 1/1 -> [.2065, 1], 1/2 -> [.0945, .9055],
2/3 -> [.2077, .9385], 3/5 -> [.2307, .8824], 4/7 -> [.2505, .8418].
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from reports.aggregate import node_table, question_frame, scope_frame, weakest_points
from reports.runs import full_questions, graph_of, load_runs
from reports.stats import mcnemar_exact, rank_of_gold, wilson_interval
from tests._runs import SMALL_ANSWERS, Answer, small_bank, write_bank, write_run, write_scores


@pytest.mark.parametrize(
    ("k", "n", "lo", "hi"),
    [(0, 1, 0.0, 0.7935), (1, 1, 0.2065, 1.0), (1, 2, 0.0945, 0.9055), (2, 3, 0.2077, 0.9385), (4, 7, 0.2505, 0.8418)],
)
def test_wilson_interval_textbook_values(k: int, n: int, lo: float, hi: float) -> None:
    got = wilson_interval(k, n)
    assert got[0] == pytest.approx(lo, abs=5e-5)
    assert got[1] == pytest.approx(hi, abs=5e-5)


def test_wilson_interval_empty_and_invalid() -> None:
    assert all(math.isnan(x) for x in wilson_interval(0, 0))
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_wilson_interval_contains_the_point_for_every_count() -> None:
    # Rounding once put 10/10's upper bound at 0.99999... and 0/7's lower bound above 0, so the
    # plots got a negative error bar and matplotlib refused to draw (issue #14, finding 3).
    for n in range(1, 201):
        for k in range(n + 1):
            lo, hi = wilson_interval(k, n)
            assert 0.0 <= lo <= k / n <= hi <= 1.0, (k, n, lo, hi)
            assert k / n - lo >= 0 and hi - k / n >= 0
        assert wilson_interval(n, n)[1] == 1.0 and wilson_interval(0, n)[0] == 0.0


def test_rank_of_gold_ties_count_against_gold() -> None:
    assert rank_of_gold({"A": -1.0, "B": -0.5, "C": -2.0}, "A") == 2
    assert rank_of_gold({"A": -1.0, "B": -1.0}, "A") == 2
    assert rank_of_gold({"A": -1.0}, "Z") is None


def test_mcnemar_exact() -> None:
    # 0 vs 5 discordant pairs: 2 * (1/2)^5 = 0.0625
    assert mcnemar_exact(0, 5) == pytest.approx(0.0625)
    assert mcnemar_exact(3, 3) == 1.0
    assert mcnemar_exact(0, 0) == 1.0


@pytest.fixture
def run_a(tmp_path: Path) -> Path:
    bank = small_bank()
    root = write_bank(tmp_path / "bank", list(bank.values()))
    run = write_run(tmp_path / "run-a", bank, SMALL_ANSWERS, bank=root)
    write_scores(
        run,
        [
            {"question_id": "q1", "scores": {"faithfulness": 0.8}},
            {"question_id": "q2", "scores": {"faithfulness": 0.6}},
            {"question_id": "q3", "scores": {"faithfulness": None}, "unavailable": {"faithfulness": "empty chain"}},
            {"question_id": "q6", "scores": {"faithfulness": 0.5}},
        ],
    )
    return run


def _nodes(run_dirs: list[Path], with_bank: bool = True) -> pd.DataFrame:
    runs, warnings = load_runs(run_dirs)
    assert (warnings == []) is with_bank
    graph = graph_of(runs)
    return node_table(question_frame(runs, graph, "per-item"), graph)  # the docstring counts questions


def _row(nodes: pd.DataFrame, node: str, slice_: str = "all", value: str = "") -> pd.Series:
    rows = nodes[(nodes["node"] == node) & (nodes["slice"] == slice_) & (nodes["slice_value"] == value)]
    assert len(rows) == 1, f"{node} {slice_}={value}: {len(rows)} rows"
    return rows.iloc[0]


def test_micro_macro_and_intervals(run_a: Path) -> None:
    nodes = _nodes([run_a])
    linear = _row(nodes, "l2:数学/函数/一次函数")
    assert (linear["n"], linear["correct"]) == (3, 2)
    assert linear["acc_micro"] == pytest.approx(2 / 3)
    assert (linear["acc_micro_lo"], linear["acc_micro_hi"]) == pytest.approx((0.2077, 0.9385), abs=5e-5)
    assert linear["acc_macro"] == pytest.approx(2 / 3)  # a level-2 point's macro is its micro

    functions = _row(nodes, "l1:数学/函数")
    assert functions["acc_micro"] == pytest.approx(3 / 4)
    assert functions["acc_macro"] == pytest.approx((2 / 3 + 1) / 2)  # 0.8333: mean of 一次函数, 二次函数
    assert functions["macro_children"] == 2

    math_ = _row(nodes, "subject:数学")
    assert math_["acc_micro"] == pytest.approx(3 / 5)
    assert math_["acc_macro"] == pytest.approx((0.75 + 0.0) / 2)  # 函数 0.75, 几何 0
    assert (math_["acc_micro_lo"], math_["acc_micro_hi"]) == pytest.approx((0.2307, 0.8824), abs=5e-5)
    assert math_["group"] == "science"

    whole = _row(nodes, "all")
    assert (whole["n"], whole["correct"]) == (7, 4)
    assert (whole["acc_micro_lo"], whole["acc_micro_hi"]) == pytest.approx((0.2505, 0.8418), abs=5e-5)
    assert whole["acc_macro"] == pytest.approx((0.6 + 0.5) / 2)  # mean of the subjects' micro accuracies
    assert whole["unparsed_rate"] == pytest.approx(1 / 7)


def test_single_question_nodes(run_a: Path) -> None:
    nodes = _nodes([run_a])
    quadratic = _row(nodes, "l2:数学/函数/二次函数")
    assert (quadratic["n"], quadratic["acc_micro"]) == (1, 1.0)
    assert (quadratic["acc_micro_lo"], quadratic["acc_micro_hi"]) == pytest.approx((0.2065, 1.0), abs=5e-5)
    triangle = _row(nodes, "l2:数学/几何/三角形")
    assert (triangle["n"], triangle["acc_micro"], triangle["unparsed"], triangle["unparsed_rate"]) == (1, 0.0, 1, 1.0)
    assert triangle["acc_micro_hi"] == pytest.approx(0.7935, abs=5e-5)


def test_empty_node_is_listed_but_left_out_of_macro(run_a: Path) -> None:
    nodes = _nodes([run_a])
    classical = _row(nodes, "l2:语文/阅读/文言文")
    assert (classical["n"], classical["records"]) == (0, 0)
    assert math.isnan(classical["acc_micro"]) and math.isnan(classical["acc_micro_hi"])
    reading = _row(nodes, "l1:语文/阅读")
    assert reading["acc_macro"] == pytest.approx(0.5)  # 古诗 only; the empty 文言文 is not a zero
    assert reading["macro_children"] == 1


def test_step_score_mean_and_spread(run_a: Path) -> None:
    nodes = _nodes([run_a])
    linear = _row(nodes, "l2:数学/函数/一次函数")
    assert linear["faithfulness:mean"] == pytest.approx(0.7)  # (0.8 + 0.6) / 2; q3's null left out
    assert linear["faithfulness:std"] == pytest.approx(math.sqrt(0.02))  # ((0.1)^2 + (0.1)^2) / (2 - 1)
    assert linear["faithfulness:n"] == 2
    quadratic = _row(nodes, "l2:数学/函数/二次函数")
    assert quadratic["faithfulness:n"] == 0 and math.isnan(quadratic["faithfulness:mean"])


def test_slices(run_a: Path) -> None:
    nodes = _nodes([run_a])
    single = _row(nodes, "all", "type", "single_choice")  # q1 q2 q4 q6
    assert (single["n"], single["correct"]) == (4, 3)
    math_single = _row(nodes, "subject:数学", "type", "single_choice")  # q1 q2 q4
    assert math_single["acc_micro"] == pytest.approx(2 / 3)
    arts = _row(nodes, "all", "group", "arts")
    assert (arts["n"], arts["correct"]) == (2, 1)
    easy = _row(nodes, "all", "difficulty", "易")  # q1 q3 q6 q7
    assert (easy["n"], easy["correct"]) == (4, 3)
    # Slices list only nodes with answered questions in them.
    assert nodes[(nodes["slice"] == "difficulty") & (nodes["node"] == "l2:数学/几何/三角形")][
        "slice_value"
    ].tolist() == ["中档"]


def test_ranking_metrics(tmp_path: Path) -> None:
    bank = small_bank()
    scores = {"A": -0.5, "B": -1.0, "C": -2.0, "D": -3.0}
    answers = {
        "q1": Answer(True, gold_rank=1, option_scores=scores),
        "q2": Answer(False, gold_rank=3, option_scores=scores),
        # No gold_rank: the rank is read from the option scores (gold A sits second).
        "q4": Answer(False, option_scores={"A": -1.0, "B": -0.2, "C": -4.0, "D": -5.0}),
        "q6": Answer(True),  # generated, not ranked
    }
    run = write_run(tmp_path / "rank", bank, answers, strategy="rank-options")
    nodes = _nodes([run], with_bank=False)
    functions = _row(nodes, "l1:数学/函数")
    assert functions["n_ranked"] == 3
    assert functions["mrr"] == pytest.approx((1 + 1 / 3 + 1 / 2) / 3)
    assert functions["hit@1"] == pytest.approx(1 / 3)
    assert functions["hit@4"] == pytest.approx(1.0)
    assert functions["mean_rank"] == pytest.approx(2.0)
    assert functions["mean_rank_norm"] == pytest.approx(0.5)  # ranks 1, 3, 2 over 4 options
    assert math.isnan(_row(nodes, "subject:语文")["mrr"])


@pytest.mark.slow
def test_several_runs_one_tidy_table(run_a: Path, tmp_path: Path) -> None:
    bank = small_bank()
    run_b = write_run(tmp_path / "run-b", bank, {"q1": Answer(False), "q6": Answer(True)}, mode="zero-shot-cot")
    nodes = _nodes([run_a, run_b], with_bank=False)
    assert set(nodes["run"]) == {"run-a", "run-b"}
    assert not nodes.duplicated(["run", "slice", "slice_value", "node"]).any()
    b_math = nodes[(nodes["run"] == "run-b") & (nodes["node"] == "subject:数学") & (nodes["slice"] == "all")].iloc[0]
    assert (b_math["n"], b_math["acc_micro"], b_math["mode"]) == (1, 0.0, "zero-shot-cot")
    # Run B answered nothing under 几何: listed, empty.
    b_geo = nodes[(nodes["run"] == "run-b") & (nodes["node"] == "l1:数学/几何") & (nodes["slice"] == "all")].iloc[0]
    assert b_geo["n"] == 0


def test_weakest_points_rank_by_upper_bound(tmp_path: Path) -> None:
    from tests._runs import question

    qs = [question(f"a{i}", "物理", "力学", "浮力") for i in range(10)]
    qs += [question("b0", "物理", "力学", "压强")]
    qs += [question(f"c{i}", "物理", "力学", "重力") for i in range(4)]
    bank = {q.id: q for q in qs}
    answers = {f"a{i}": Answer(i == 0) for i in range(10)}  # 1/10 -> upper .4042
    answers["b0"] = Answer(False)  # 0/1 -> upper .7935
    answers |= {f"c{i}": Answer(i < 2) for i in range(4)}  # 2/4 -> upper .8500
    nodes = _nodes([write_run(tmp_path / "w", bank, answers)], with_bank=False)
    weakest = weakest_points(nodes, top=2)
    assert weakest["name"].tolist() == ["浮力", "压强"]  # not 压强 first, although its accuracy is 0


@pytest.mark.slow
def test_stand_in_questions_when_bank_is_missing(tmp_path: Path) -> None:
    bank = small_bank()
    run = write_run(tmp_path / "r", bank, SMALL_ANSWERS, bank=tmp_path / "nowhere")
    runs, warnings = load_runs([run])
    assert len(warnings) == 1 and warnings[0].setting == "data"  # the CLI words it as --data
    graph = graph_of(runs)
    nodes = node_table(question_frame(runs, graph, "per-item"), graph)
    assert _row(nodes, "l1:数学/函数")["acc_micro"] == pytest.approx(0.75)
    # --data finds it again
    root = write_bank(tmp_path / "bank", list(bank.values()))
    runs, warnings = load_runs([run], data=root)
    assert warnings == [] and not runs[0].questions["q1"].extra.get("stand_in")
    # the runs keep questions without their texts; the page reads them back from the bank found with --data
    assert full_questions(runs, {"q1"}, data=root)[runs[0].id]["q1"].stem == "题目 q1"


def test_the_scope_of_runs_that_answered_it_whole_is_the_question_frames_columns(tmp_path: Path) -> None:
    # #32 item 5: a run that answered every question of its scope counts its bank from the question frame's
    # columns (no second frame); one that left questions unasked builds the scope's rows, and both count alike.
    bank = small_bank()
    root = write_bank(tmp_path / "bank", list(bank.values()))
    whole = write_run(tmp_path / "whole", bank, SMALL_ANSWERS, bank=root)
    part = write_run(tmp_path / "part", bank, dict(list(SMALL_ANSWERS.items())[:5]), bank=root, mode="few-shot")

    def both(run_dirs: list[Path]) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
        runs, _ = load_runs(run_dirs)
        graph = graph_of(runs)
        frame = question_frame(runs, graph)
        return frame, scope_frame(runs, graph, frame), scope_frame(runs)

    def rows(scope: pd.DataFrame) -> pd.DataFrame:
        return scope.sort_values(["run", "question_id"]).reset_index(drop=True)

    frame, shared, built = both([whole])
    assert len(shared) == len(built) == 8
    assert shared["question_id"].tolist() == frame["question_id"].tolist()  # the frame's rows, in its order
    pd.testing.assert_frame_equal(rows(shared), rows(built))
    _, shared, built = both([whole, part])
    assert len(shared) == 16  # the part run's bank: 8 questions, 5 of them asked
    pd.testing.assert_frame_equal(shared, built)
