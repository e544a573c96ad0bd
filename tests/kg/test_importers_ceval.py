"""C-Eval importer: splits, explanation as analysis, subject_mapping.json vs the built-in table, test split."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import pytest

from kg.importers import load_questions
from kg.importers._ceval_subjects import SUBJECTS, english_name
from kg.importers.ceval import subject_and_split
from kg.records import Stage
from tests.importer_helpers import FIXTURES, assert_names, single_problem, write_text

ROOT = FIXTURES / "ceval"
HEADER = "id,question,A,B,C,D,answer,explanation\n"


def test_release_root_reads_dev_and_val_and_skips_unanswered_test(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="kg.importers.ceval"):
        questions = {q.id: q for q in load_questions(ROOT, "ceval").questions}
    assert sorted(questions) == [
        "ceval/dev/middle_school_physics/0",
        "ceval/dev/middle_school_physics/1",
        "ceval/val/logic/0",
        "ceval/val/logic/3",
    ]
    assert "skipped 1 test-split file(s)" in caplog.text and "logic_test.csv" in caplog.text
    sound = questions["ceval/dev/middle_school_physics/0"]
    assert sound.subject == "初中物理" and sound.group == "STEM" and sound.stage is Stage.MIDDLE
    assert sound.analysis.startswith("1. 声音在固体中") and "\n2. 真空不能传声" in sound.analysis
    assert sound.answer == ["C"] and sound.extra["split"] == "dev"
    assert sound.extra["subject_en"] == "Middle School Physics"
    logic = questions["ceval/val/logic/3"]
    assert logic.analysis == "" and logic.group == "Humanities" and logic.stage is None


def test_subject_mapping_beside_the_data_wins(tmp_path: Path) -> None:
    shutil.copytree(ROOT, tmp_path / "ceval")
    mapping = {"middle_school_physics": ["Junior Physics", "初中物理（自定义）", "Science"]}
    write_text(tmp_path / "ceval" / "subject_mapping.json", json.dumps(mapping, ensure_ascii=False))
    questions = load_questions(tmp_path / "ceval" / "dev" / "middle_school_physics_dev.csv", "ceval").questions
    assert {q.subject for q in questions} == {"初中物理（自定义）"}
    assert {q.group for q in questions} == {"Science"} and questions[0].extra["subject_en"] == "Junior Physics"
    # a subject the mapping lacks falls back to the built-in table
    assert load_questions(tmp_path / "ceval" / "val", "ceval").questions[0].subject == "逻辑学"


@pytest.mark.parametrize(
    ("content", "field", "words"),
    [("[1, 2]", None, ["expected an object"]), ('{"law": ["Law", "法学"]}', "law", ["[English name"]), ("{", 1, [])],
)
def test_bad_subject_mapping(tmp_path: Path, content: str, field: str | int | None, words: list[str]) -> None:
    write_text(tmp_path / "dev" / "law_dev.csv", HEADER + "0,题,甲,乙,丙,丁,A,\n")
    mapping = write_text(tmp_path / "subject_mapping.json", content)
    problem = single_problem(tmp_path, "ceval")
    assert problem.path == mapping
    if isinstance(field, int):
        assert problem.line == field and "cannot read the subject mapping" in str(problem)
    else:
        assert_names(problem, mapping, None, field, *words)


def test_only_unanswered_test_files_is_a_problem(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "test", tmp_path / "test")
    problem = single_problem(tmp_path, "ceval")
    assert problem.field == "answer" and problem.path == tmp_path
    assert "only C-Eval test files without answers" in str(problem)


def test_test_file_with_answers_is_imported(tmp_path: Path) -> None:
    file = write_text(tmp_path / "test" / "law_test.csv", HEADER + "0,题,甲,乙,丙,丁,D,\n")
    question = load_questions(file, "ceval").questions[0]
    assert question.id == "ceval/test/law/0" and question.answer == ["D"] and question.subject == "法学"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("accountant_dev.csv", ("accountant", "dev")),
        ("mao_zedong_thought_test.csv", ("mao_zedong_thought", "test")),
        ("logic.csv", ("logic", None)),
    ],
)
def test_subject_and_split_from_the_file_name(name: str, expected: tuple[str, str | None]) -> None:
    assert subject_and_split(Path("/data") / name) == expected


def test_built_in_table_has_52_subjects_in_four_categories() -> None:
    assert len(SUBJECTS) == 52
    counts: dict[str, int] = {}
    for _, category in SUBJECTS.values():
        counts[category] = counts.get(category, 0) + 1
    assert counts == {"STEM": 20, "Social Science": 10, "Humanities": 11, "Other": 11}
    assert english_name("probability_and_statistics") == "Probability and Statistics"


@pytest.mark.parametrize(
    ("row", "field", "words"),
    [
        ("1,题,甲,乙,丙,丁,F,", "answer", ["'F'", "A, B, C or D"]),
        ("1,题,甲,乙,丙,丁, ,", "answer", ["empty answer"]),
        ("1,,甲,乙,丙,丁,A,", "question", ["empty question text"]),
        (",题,甲,乙,丙,丁,A,", "id", ["empty id"]),
        ("1,题,甲,乙,丙,丁,A", None, ["expected 8 columns, found 7"]),
    ],
)
def test_bad_row_names_file_line_and_column(tmp_path: Path, row: str, field: str | None, words: list[str]) -> None:
    file = write_text(tmp_path / "dev" / "law_dev.csv", HEADER + "0,题,甲,乙,丙,丁,A,解析\n" + row + "\n")
    assert_names(single_problem(file, "ceval"), file, 3, field, *words)


def test_missing_answer_column_outside_the_test_split(tmp_path: Path) -> None:
    file = write_text(tmp_path / "val" / "law_val.csv", "id,question,A,B,C,D\n0,题,甲,乙,丙,丁\n")
    assert_names(single_problem(file, "ceval"), file, 1, "answer", "missing column")


def test_unknown_subject_is_kept_with_a_warning(tmp_path: Path) -> None:
    file = write_text(tmp_path / "dev" / "robotics_dev.csv", HEADER + "0,题,甲,乙,丙,丁,A,\n")
    question = load_questions(file, "ceval").questions[0]
    assert question.subject == "robotics" and "not one of C-Eval's subjects" in question.extra["warnings"][0]
