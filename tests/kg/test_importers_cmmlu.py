"""CMMLU importer: layout, subject table, ids, splits, and bad rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.importers import load_questions
from kg.importers._cmmlu_subjects import SUBJECTS, categories_of
from kg.records import QuestionType, Stage
from tests.importer_helpers import FIXTURES, assert_names, single_problem, write_text

ROOT = FIXTURES / "cmmlu"
HEADER = ",Question,A,B,C,D,Answer\n"


def test_release_root_reads_dev_and_test() -> None:
    questions = {q.id: q for q in load_questions(ROOT, "cmmlu").questions}
    assert len(questions) == 7
    assert {q.extra["split"] for q in questions.values()} == {"dev", "test"}
    physics = questions["cmmlu/dev/high_school_physics/1"]
    assert physics.type is QuestionType.SINGLE and physics.answer == ["C"]
    assert [o.label for o in physics.options] == ["A", "B", "C", "D"] and physics.options[2].text == "速度"
    assert physics.subject == "高中物理学" and physics.group == "STEM" and physics.stage is Stage.HIGH
    assert (physics.knowledge.level1, physics.knowledge.level2) == ("高中物理学", "高中物理学")
    assert physics.knowledge.category == "STEM" and physics.knowledge.path == ["STEM", "高中物理学"]
    assert physics.extra["subject_key"] == "high_school_physics" and physics.extra["subcategories"] == ["physics"]
    assert questions["cmmlu/test/high_school_physics/1"].language == "en"


def test_subject_in_two_categories_keeps_both() -> None:
    question = load_questions(ROOT / "dev" / "ancient_chinese.csv", "cmmlu").questions[0]
    assert question.group == "Social Science"
    assert question.extra["categories"] == ["Social Science", "China specific"]
    assert question.id == "cmmlu/dev/ancient_chinese/0" and question.stage is None


def test_multiline_cell_keeps_the_row_and_its_line() -> None:
    questions = load_questions(ROOT / "dev", "cmmlu").questions
    falling = next(q for q in questions if q.id == "cmmlu/dev/high_school_physics/2")
    assert "\n" in falling.stem and falling.answer == ["C"]


def test_subject_table_matches_the_paper_counts() -> None:
    counts: dict[str, int] = {}
    for _, subcategories in SUBJECTS.values():
        for category in categories_of(subcategories):
            counts[category] = counts.get(category, 0) + 1
    # CMMLU paper, Table 6: 17 STEM, 13 Humanities, 22 Social Science, 15 Other, 15 China specific.
    assert len(SUBJECTS) == 67
    assert counts == {"STEM": 17, "Humanities": 13, "Social Science": 22, "Other": 15, "China specific": 15}


def test_file_outside_a_split_folder_and_unknown_subject(tmp_path: Path) -> None:
    file = write_text(tmp_path / "robotics.csv", HEADER + "0,机器人三定律的提出者是,阿西莫夫,图灵,冯·诺依曼,香农,A\n")
    question = load_questions(file, "cmmlu").questions[0]
    assert question.id == "cmmlu/robotics/0" and question.subject == "robotics" and question.group is None
    assert "not one of CMMLU's subjects" in question.extra["warnings"][0] and "split" not in question.extra


@pytest.mark.parametrize(
    ("row", "field", "words"),
    [
        ("1,题目,甲,乙,丙,丁,E", "Answer", ["'E'", "A, B, C or D"]),
        ("1,题目,甲,乙,丙,丁,", "Answer", ["empty answer"]),
        ("1,题目,甲,乙,丙,丁,AB", "Answer", ["one option letter", "'AB'"]),
        ("1,  ,甲,乙,丙,丁,A", "Question", ["empty question text"]),
        (",题目,甲,乙,丙,丁,A", "(index column)", ["empty id"]),
        ("1,题目,甲,乙,丙,A", None, ["expected 7 columns, found 6"]),
    ],
)
def test_bad_row_names_file_line_and_column(tmp_path: Path, row: str, field: str | None, words: list[str]) -> None:
    file = write_text(
        tmp_path / "dev" / "virology.csv", HEADER + "0,病毒有细胞结构吗,有,没有,不一定,不知道,B\n" + row + "\n"
    )
    problem = single_problem(file, "cmmlu")
    assert_names(problem, file, 3, field, *words)


def test_line_numbers_count_multiline_cells(tmp_path: Path) -> None:
    file = write_text(
        tmp_path / "dev" / "virology.csv", HEADER + '0,"第一行\n第二行",甲,乙,丙,丁,A\n1,题目,甲,乙,丙,丁,X\n'
    )
    assert_names(single_problem(file, "cmmlu"), file, 4, "Answer", "record cmmlu/dev/virology/1")


def test_missing_column_is_named_once(tmp_path: Path) -> None:
    file = write_text(tmp_path / "dev" / "virology.csv", ",Question,A,B,C,D\n0,题目,甲,乙,丙,丁\n1,题目,甲,乙,丙,丁\n")
    assert_names(single_problem(file, "cmmlu"), file, 1, "Answer", "missing column")


def test_a_column_named_twice_is_refused(tmp_path: Path) -> None:
    """A copy with a second Answer column (a corrected key pasted beside the old) was graded on the last one, silently."""
    file = write_text(tmp_path / "dev" / "virology.csv", ",Question,A,B,C,D,Answer,Answer\n0,题目,甲,乙,丙,丁,A,B\n")
    assert_names(single_problem(file, "cmmlu"), file, 1, "Answer", "twice", "columns 7 and 8")


def test_not_utf8(tmp_path: Path) -> None:
    file = tmp_path / "dev" / "virology.csv"
    file.parent.mkdir()
    file.write_bytes((HEADER + "0,病毒,甲,乙,丙,丁,A\n").encode("gbk"))
    problem = single_problem(file, "cmmlu")
    assert problem.path == file and "not UTF-8" in str(problem)


def test_empty_folder(tmp_path: Path) -> None:
    problem = single_problem(tmp_path, "cmmlu")
    assert problem.path == tmp_path and "no CMMLU CSV or Parquet files" in str(problem)


def test_empty_file(tmp_path: Path) -> None:
    file = write_text(tmp_path / "dev" / "virology.csv", "")
    assert_names(single_problem(file, "cmmlu"), file, 1, None, "empty file")
