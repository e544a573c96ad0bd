"""GAOKAO-Bench's released scorer, ported (#31 item 7): each rule of Bench/bench_function.py's extract_choice_answer
and Bench/OBJ_score_evaluation.py's points, on outputs worked by hand against the release's code."""

from __future__ import annotations

import pytest

from runners.gaokao_release import Points, release_extract, release_points


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("【解析】……<eoe>\n【答案】C <eoa>", ["C"]),
        # the last capital A-D anywhere: a word after the answer wins ("DNA" read backwards gives A first)
        ("【答案】C <eoa>\n（与 DNA 有关）", ["A"]),
        ("答案是B，不是C", ["C"]),
        ("无法判断。", []),
        ("答案：E", []),  # only A-D
    ],
)
def test_a_single_choice_is_the_last_letter_a_to_d_anywhere(output: str, expected: list[str]) -> None:
    assert release_extract(output, "single_choice", 1) == expected


def test_questions_sharing_a_passage_are_read_after_each_answer_mark_when_their_count_fits() -> None:
    marked = "（1）【答案】 A <eoa>\n（2）【答案】：B <eoa>"
    assert release_extract(marked, "multi_question_choice", 2) == ["A", "B"]
    # three marks for two questions: the first capitals A-Z of the whole text, one per question
    assert release_extract("Look: 【答案】A 【答案】B 【答案】C", "multi_question_choice", 2) == ["L", "A"]
    assert release_extract("only one: B", "multi_question_choice", 3) == ["B"]


def test_physics_joins_the_letters_after_the_answer_mark_or_in_the_last_ten_characters() -> None:
    assert release_extract("【解析】A错，B对 <eoe>\n【答案】 B D <eoa>", "multi_choice", 1) == ["BD"]
    # the mark at the very start (index 0) is not taken (the release tests answer_index > 0): the last ten characters
    assert release_extract("【答案】AB，理由很长很长很长很长：选项C与D", "multi_choice", 1) == ["CD"]
    assert release_extract("都不对", "multi_choice", 1) == []


def test_seven_choose_five_is_the_first_five_letters_a_to_g() -> None:
    assert release_extract("【答案】 C F A E D <eoa>", "five_out_of_seven", 5) == ["C", "F", "A", "E", "D"]
    assert release_extract("G A", "five_out_of_seven", 5) == ["G", "A"]


def test_each_question_is_worth_the_records_score_and_a_wrong_length_is_all_wrong() -> None:
    assert release_points(["A", "B", "C"], ["A", "D", "C"], 1.5, False) == Points(3.0, 4.5, 3, 2)
    assert release_points(["A", "D"], ["A", "D", "C"], 1.5, False) == Points(0.0, 4.5, 3, 0)
    assert release_points([], ["C"], 5, False) == Points(0.0, 5, 1, 0)


@pytest.mark.parametrize(
    ("answer", "earned", "right"),
    [(["BD"], 6.0, 1), (["B"], 3.0, 0), (["AB"], 0.0, 0), (["DB"], 3.0, 0), ([], 0.0, 0)],
)
def test_physics_gives_six_for_the_letters_three_for_some_right_and_none_wrong(
    answer: list[str], earned: float, right: int
) -> None:
    # "DB" is not "BD" to the release (strings compared), but every letter is right: 3
    assert release_points(answer, ["BD"], 6, True) == Points(earned, 6, 1, right)
