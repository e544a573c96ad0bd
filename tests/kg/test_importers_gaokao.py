"""GAOKAO-Bench read as published (#31 item 7): Data/Objective_Questions/<years>_<name>.json, one JSON object each.

The files below are written here in the release's format with invented questions (the release is Apache-2.0,
but nothing of it is copied); ``test_the_real_release_*`` reads the release itself when
``K12EVAL_GAOKAO_DATA`` names its ``Data/`` folder (``k12eval data pull gaokao``, then ``k12eval data path gaokao``).
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

import pytest

from kg.errors import InputError
from kg.importers import detect_format, load_questions
from kg.records import QuestionType

MATH = "1.（5分）已知集合 $A=\\{1,2\\}$，则 $A$ 的元素个数为（ ）\nA. 0\nB. 1\nC. 2\nD. 3\n"
GLUED = "4.下列叙述正确的是（）\nA.甲正确\nB.乙正确4C.丙正确\nD.丁正确\n"  # a page number run into the text
TABLE = "7.下表中能达到目的的是（）\n\\hline A. & 实验一 \\\\\n\\hline B. & 实验二 \\\\\nA. $A$\nB. $B$\nC. C\nD. D\n"
READING = (
    "阅读下面的文字，完成各题。\n春天来了，河边的柳树发了芽。\n"
    "（1）下列理解正确的一项是\nA．柳树 B．河流 C．春天 D．夏天\n"
    "（2）下列分析不正确的一项是\nA．甲 B．乙 C．丙 D．丁\n"
)
SEVEN = (
    "根据短文内容，从短文后的选项中选出能填入空白处的最佳选项。\nStress is normal. 36 Talk to someone. 37 "
    "Be calm. 38 Try again. 39 Stay positive. 40\nA. One.\nB. Two.\nC. Three.\nD. Four.\nE. Five.\nF. Six.\nG. Seven.\n"
)
PHYSICS = "1.（6分）关于力，下列说法正确的是（ ）\nA. 甲\nB. 乙\nC. 丙\nD. 丁\n"


def example(question: str, answer: list[str], index: int = 0, **changes: Any) -> dict[str, Any]:
    record = {"year": "2020", "category": "（新课标Ⅰ）", "question": question, "answer": answer,
              "analysis": "解：略。\n故选：" + "".join(answer), "index": index, "score": 5}  # fmt: skip
    record.update(changes)
    return record


def write(folder: Path, keyword: str, examples: list[Any]) -> Path:
    path = folder / f"{keyword}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"keywords": keyword, "example": examples}, indent=4), "utf-8")
    return path


def release(root: Path) -> Path:
    """A Data/ folder as the release lays it out, one file per kind of question, and a subjective file."""
    objective = root / "Data" / "Objective_Questions"
    write(
        objective, "2010-2022_Math_I_MCQs", [example(MATH, ["C"]), example(GLUED, ["C"], 1), example(TABLE, ["D"], 2)]
    )
    write(objective, "2010-2022_Chinese_Modern_Lit", [example(READING, ["A", "D"], score=3)])
    write(objective, "2012-2022_English_Cloze_Test", [example(SEVEN, ["C", "F", "A", "E", "D"], score=2)])
    write(objective, "2010-2022_Physics_MCQs", [example(PHYSICS, ["BD"], score=6)])
    write(root / "Data" / "Subjective_Questions", "2010-2022_Math_I_Open-ended_Questions",
          [example("求 $x$。", [], answer_text="x=1") | {"answer": "x=1"}])  # fmt: skip
    return root / "Data"


def by_id(path: Path) -> dict[str, Any]:
    return {q.id: q for q in load_questions(path).questions}


def test_the_release_layout_is_detected_from_its_root_its_data_and_one_file(tmp_path: Path) -> None:
    data = release(tmp_path)
    for path in (
        tmp_path,
        data,
        data / "Objective_Questions",
        data / "Objective_Questions" / "2010-2022_Physics_MCQs.json",
    ):
        assert detect_format(path) == "gaokao", path


def test_each_release_type_becomes_a_k12eval_type_with_subject_paper_and_score(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="kg.importers"):
        questions = by_id(release(tmp_path))
    assert "1 subjective-question file(s)" in caplog.text
    assert sorted(questions) == [
        "gaokao/2010-2022_Chinese_Modern_Lit/0",
        "gaokao/2010-2022_Math_I_MCQs/0", "gaokao/2010-2022_Math_I_MCQs/1", "gaokao/2010-2022_Math_I_MCQs/2",
        "gaokao/2010-2022_Physics_MCQs/0",
        "gaokao/2012-2022_English_Cloze_Test/0",
    ]  # fmt: skip
    math = questions["gaokao/2010-2022_Math_I_MCQs/0"]
    assert (math.type, math.answer, math.subject, math.stage, math.group) == (
        QuestionType.SINGLE,
        ["C"],
        "数学",
        "high",
        "science",
    )
    assert math.knowledge.level1 == "理科数学选择题" and math.stem == MATH.strip()  # the options stay in the text
    assert [(o.label, o.text) for o in math.options] == [("A", "0"), ("B", "1"), ("C", "2"), ("D", "3")]
    assert math.extra.items() >= {"task": "2010-2022_Math_I_MCQs", "year": "2020", "paper": "（新课标Ⅰ）", "score": 5,
                                "release_type": "single_choice", "options_in_stem": True}.items()  # fmt: skip
    physics = questions["gaokao/2010-2022_Physics_MCQs/0"]
    assert (physics.type, physics.answer) == (QuestionType.MULTIPLE, ["B", "D"])


def test_options_are_found_after_a_page_number_and_below_a_table(tmp_path: Path) -> None:
    questions = by_id(release(tmp_path))
    glued = questions["gaokao/2010-2022_Math_I_MCQs/1"]
    assert [o.text for o in glued.options] == ["甲正确", "乙正确4", "丙正确", "丁正确"]
    table = questions["gaokao/2010-2022_Math_I_MCQs/2"]
    assert [o.text for o in table.options] == ["$A$", "$B$", "C", "D"] and not table.extra.get("warnings")


def test_questions_sharing_a_passage_are_a_cloze_with_one_blank_each(tmp_path: Path) -> None:
    reading = by_id(release(tmp_path))["gaokao/2010-2022_Chinese_Modern_Lit/0"]
    assert reading.type is QuestionType.CLOZE and reading.answer == ["A", "D"]
    assert [[o.text for o in blank] for blank in reading.blanks()] == [
        ["柳树", "河流", "春天", "夏天"],
        ["甲", "乙", "丙", "丁"],
    ]


def test_seven_choose_five_gives_each_blank_the_seven_options(tmp_path: Path) -> None:
    seven = by_id(release(tmp_path))["gaokao/2012-2022_English_Cloze_Test/0"]
    assert seven.type is QuestionType.CLOZE and seven.answer == ["C", "F", "A", "E", "D"]
    assert len(seven.blanks()) == 5 and all([o.label for o in b] == list("ABCDEFG") for b in seven.blanks())
    assert seven.language == "en"


def test_a_gold_letter_outside_its_own_question_is_refused_naming_it(tmp_path: Path) -> None:
    file = write(tmp_path, "2010-2022_Chinese_Modern_Lit", [example(READING, ["A", "E"])])
    with pytest.raises(InputError) as caught:
        load_questions(file)
    assert str(caught.value) == (
        f"{file}, example 1 (record gaokao/2010-2022_Chinese_Modern_Lit/0), field 'answer': "
        "letter E is not among the options of question 2 (ABCD)"
    )


def test_a_question_whose_labels_were_lost_is_kept_with_its_letters_assumed(tmp_path: Path) -> None:
    damaged = READING.replace("A．甲 B．乙", "甲 乙")  # the second question's labels A and B lost
    question = load_questions(
        write(tmp_path, "2010-2022_Chinese_Modern_Lit", [example(damaged, ["A", "D"])])
    ).questions[0]
    assert question.answer == ["A", "D"] and all(o.text == "" for o in question.options)
    assert "only 1 of its 2 question(s)" in question.extra["warnings"][0]


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"answer": "C"}, "answer", "expected a list of option letters, got 'C'"),
        ({"answer": []}, "answer", "expected a list of option letters, got a list"),
        ({"answer": ["甲"]}, "answer", "expected option letters A to G"),
        ({"answer": ["A", "B"]}, "answer", "a single_choice question has one answer, got 2"),
        ({"answer": ["AB"]}, "answer", "takes one letter per question"),
        ({"question": ""}, "question", "expected the question's text"),
        ({"question": ["A"]}, "question", "expected the question's text, got a list"),
        ({"analysis": "\ud83d"}, "analysis", "lone surrogate"),
    ],
)
def test_a_bad_record_is_one_located_error(tmp_path: Path, changes: dict[str, Any], field: str, message: str) -> None:
    file = write(tmp_path, "2010-2022_Math_I_MCQs", [example(MATH, ["C"]), example(MATH, ["C"], 1) | changes])
    with pytest.raises(InputError) as caught:
        load_questions(file)
    text = str(caught.value)
    assert text.startswith(f"{file}, example 2 (record gaokao/2010-2022_Math_I_MCQs/1), field '{field}'")
    assert message in text
    skipped = load_questions(file, skip_invalid=True)
    assert [q.id for q in skipped.questions] == ["gaokao/2010-2022_Math_I_MCQs/0"] and len(skipped.problems) == 1


def test_a_subjective_file_given_alone_says_it_is_not_imported(tmp_path: Path) -> None:
    subjective = release(tmp_path) / "Subjective_Questions" / "2010-2022_Math_I_Open-ended_Questions.json"
    with pytest.raises(InputError, match=r"field 'answer': a subjective-question file .* not imported"):
        load_questions(subjective)


@pytest.mark.parametrize(
    ("text", "message"),
    [('{"keywords": "x", "example": [', "not valid JSON"), ('{"keywords": "x", "example": 3}', "field 'example'"),
     ('{"keywords": "2010-2022_Music_MCQs", "example": []}', "names no GAOKAO-Bench subject")],
)  # fmt: skip
def test_a_bad_file_is_one_error_naming_it(tmp_path: Path, text: str, message: str) -> None:
    file = tmp_path / "2010-2022_Math_I_MCQs.json"
    file.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message) as caught:
        load_questions(file, "gaokao")
    assert str(caught.value).startswith(str(file))


def test_a_file_the_release_does_not_have_takes_its_subject_from_its_name(tmp_path: Path) -> None:
    file = write(tmp_path, "2023-2023_Biology_MCQs", [example(MATH, ["A"]), example(READING, ["A", "B"], 1)])
    questions = load_questions(file).questions
    assert [(q.subject, q.type) for q in questions] == [("生物", QuestionType.SINGLE), ("生物", QuestionType.CLOZE)]
    assert "its type is read from the answer" in questions[0].extra["warnings"][0]


RELEASE = os.environ.get("K12EVAL_GAOKAO_DATA")


@pytest.mark.skipif(not RELEASE, reason="K12EVAL_GAOKAO_DATA (the release's Data/ folder) is not set")
def test_the_real_release_imports_every_objective_question() -> None:
    # The release's README: 1,781 objective questions; its scorer counts 2,944 (one per answer letter, physics one
    # per record). Measured on OpenLMLab/GAOKAO-Bench@6dbb24f: 9 records have a question whose labels were lost.
    assert RELEASE is not None
    questions = load_questions(Path(RELEASE)).questions
    scored = sum(len(q.answer) if q.type is QuestionType.CLOZE else 1 for q in questions)
    assert (len(questions), scored) == (1781, 2944)
    assert sum(1 for q in questions if q.extra.get("warnings")) == 9
