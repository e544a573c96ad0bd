"""GAOKAO-Bench's fourteen objective files: what each holds, and the option letters written inside its questions.

The release (OpenLMLab/GAOKAO-Bench, ``Data/Objective_Questions/<years>_<name>.json``) keeps each question's
options inside its ``question`` text (``A．… B．… C．… D．…``), and a record may hold several questions
sharing one passage, with one answer letter each. ``Bench/Obj_Prompt.json`` gives each file (its
``keyword``) a type: ``single_choice``, ``multi_choice`` (physics: one or more letters),
``multi_question_choice`` (several questions, one letter each) and ``five_out_of_seven`` (七选五: five
blanks sharing seven options A–G). Its scorer (``Bench/OBJ_score_evaluation.py``) counts every answer
letter of a record as one question worth the record's ``score``.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from kg.records import QuestionType

RELEASE_TYPES: dict[str, QuestionType] = {
    "single_choice": QuestionType.SINGLE,
    "multi_choice": QuestionType.MULTIPLE,
    "multi_question_choice": QuestionType.CLOZE,
    "five_out_of_seven": QuestionType.CLOZE,
}
"""The release's question type -> k12eval's: several questions of one record, each answered by one letter
among its own options, are a cloze (one blank per question)."""


@dataclass(frozen=True)
class Task:
    """One objective file of the release."""

    subject: str
    paper: str
    """What the file holds, in the words of a Chinese exam (the knowledge tree's level 1)."""
    release_type: str
    """The type ``Bench/Obj_Prompt.json`` gives the file."""

    @property
    def options(self) -> int:
        """Options per question: seven for 七选五, else four."""
        return 7 if self.release_type == "five_out_of_seven" else 4


TASKS: dict[str, Task] = {
    "2010-2022_Math_I_MCQs": Task("数学", "理科数学选择题", "single_choice"),
    "2010-2022_Math_II_MCQs": Task("数学", "文科数学选择题", "single_choice"),
    "2010-2022_Physics_MCQs": Task("物理", "物理选择题（不定项）", "multi_choice"),
    "2010-2022_Chemistry_MCQs": Task("化学", "化学选择题", "single_choice"),
    "2010-2022_Biology_MCQs": Task("生物", "生物选择题", "single_choice"),
    "2010-2022_History_MCQs": Task("历史", "历史选择题", "single_choice"),
    "2010-2022_Political_Science_MCQs": Task("政治", "政治选择题", "single_choice"),
    "2010-2022_Geography_MCQs": Task("地理", "地理选择题（题组）", "multi_question_choice"),
    "2010-2022_Chinese_Lang_and_Usage_MCQs": Task("语文", "语言文字运用选择题", "multi_question_choice"),
    "2010-2022_Chinese_Modern_Lit": Task("语文", "现代文阅读选择题", "multi_question_choice"),
    "2010-2013_English_MCQs": Task("英语", "英语单项选择", "single_choice"),
    "2010-2022_English_Fill_in_Blanks": Task("英语", "完形填空", "multi_question_choice"),
    "2010-2022_English_Reading_Comp": Task("英语", "阅读理解", "multi_question_choice"),
    "2012-2022_English_Cloze_Test": Task("英语", "七选五", "five_out_of_seven"),
}
"""Keyword (the file's name) -> what it holds; the scorer's grouping (Math I is its 'Sci. Math', Math II
'Hum. Math')."""

SUBJECT_WORDS: dict[str, str] = {
    "Math": "数学",
    "Physics": "物理",
    "Chemistry": "化学",
    "Biology": "生物",
    "History": "历史",
    "Political": "政治",
    "Geography": "地理",
    "Chinese": "语文",
    "English": "英语",
}
"""The subject word of a file name (``2010-2022_<Word>_...``), for a file the release does not have."""

_MARK = re.compile(r"(?<![A-Za-z])([A-G])\s*[.．、]")
"""An option label as the release writes it: ``A.``, ``A．`` or ``A、``; a digit before it is allowed (page
numbers run into the text: ``…升高4C.在高浓度…``), a letter is not (``Mr. A.``)."""


@dataclass(frozen=True)
class Group:
    """The options of one question, as found in the text: labels and texts, in order."""

    labels: tuple[str, ...]
    texts: tuple[str, ...]


def option_groups(text: str, size: int) -> list[Group]:
    """Every run of labels ``A``, ``B``, ... of exactly ``size`` options in ``text``, in order, with the
    text after each label (the last option's up to its line's end)."""
    marks = list(_MARK.finditer(text))
    runs: list[list[re.Match[str]]] = []
    current: list[re.Match[str]] = []
    for mark in marks:
        letter = mark.group(1)
        if letter == "A":
            if current:
                runs.append(current)
            current = [mark]
        elif current and ord(letter) == ord(current[-1].group(1)) + 1:
            current.append(mark)
        else:
            if current:
                runs.append(current)
            current = []
    if current:
        runs.append(current)
    groups = []
    for run in runs:
        if len(run) != size:
            continue
        texts = [text[a.end() : b.start()] for a, b in itertools.pairwise(run)]
        tail = text[run[-1].end() :]
        texts.append(tail.split("\n", 1)[0])
        groups.append(Group(tuple(m.group(1) for m in run), tuple(t.strip() for t in texts)))
    return groups
