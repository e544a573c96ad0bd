"""The typed question record every importer produces, whatever the source.

One record per question. Gold answers are normalised per question type so that
scoring never re-parses source-specific strings:

=================  =====================================  ==================
type               ``answer``                             example
=================  =====================================  ==================
single_choice      one letter                             ``["C"]``
multiple_choice    letters, sorted (a set)                ``["B", "D"]``
judgment           one bool per statement                 ``[False, True]``
fill_in_blank      one string per blank                   ``["50", "0.8"]``
sorting            letters in the right order             ``["B", "E", "A"]``
cloze              one letter per blank                   ``["B", "A", "D"]``
=================  =====================================  ==================
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

RECORD_VERSION: Literal[1] = 1

ARTS_SUBJECTS = frozenset({"语文", "英语", "历史", "政治", "地理"})
SCIENCE_SUBJECTS = frozenset({"数学", "物理", "化学", "生物"})


class QuestionType(StrEnum):
    """The six CK12 question types (the Chinese name is the CK12 ``task_type``)."""

    SINGLE = "single_choice"
    MULTIPLE = "multiple_choice"
    JUDGMENT = "judgment"
    FILL = "fill_in_blank"
    SORTING = "sorting"
    CLOZE = "cloze"

    @property
    def zh(self) -> str:
        """The CK12 name of the type."""
        return _TYPE_ZH[self]

    @classmethod
    def parse(cls, value: str) -> QuestionType:
        """Accept the English value, the enum name or the CK12 Chinese name."""
        text = value.strip()
        for member in cls:
            if text in (member.value, member.name.lower(), member.zh):
                return member
        raise ValueError(f"unknown question type {value!r}; expected one of {[m.value for m in cls]}")

    @property
    def has_options(self) -> bool:
        """Whether the answer is expressed with option letters."""
        return self in (QuestionType.SINGLE, QuestionType.MULTIPLE, QuestionType.SORTING, QuestionType.CLOZE)


_TYPE_ZH = {
    QuestionType.SINGLE: "单选",
    QuestionType.MULTIPLE: "多选",
    QuestionType.JUDGMENT: "判断",
    QuestionType.FILL: "填空",
    QuestionType.SORTING: "排序",
    QuestionType.CLOZE: "完形填空",
}


class Stage(StrEnum):
    """School stage (CK12 ``task_grade``)."""

    PRIMARY = "primary"
    MIDDLE = "middle"
    HIGH = "high"

    @property
    def zh(self) -> str:
        """The CK12 name of the stage."""
        return _STAGE_ZH[self]

    @classmethod
    def parse(cls, value: str) -> Stage:
        """Accept the English value or the CK12 Chinese name (小学 / 初中 / 高中)."""
        text = value.strip()
        for member in cls:
            if text in (member.value, member.zh):
                return member
        raise ValueError(f"unknown school stage {value!r}; expected 小学, 初中 or 高中")


_STAGE_ZH = {Stage.PRIMARY: "小学", Stage.MIDDLE: "初中", Stage.HIGH: "高中"}

VARIANT_PATTERN = r"^(original|shuffled|distractors|circular|options-\d+)$"
Variant = str
"""``original``, ``shuffled``, ``distractors`` (CK12's released variants), ``circular`` (one rotation of the
options, OpenCompass's CircularEval) or ``options-N`` (Xiezhi)."""


class Option(BaseModel):
    """One option, or one numbered statement of a judgment question."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    label: str
    """The letter (``A``) or, for judgment statements, the number (``1``)."""
    text: str
    """The option text without its label."""
    blank: int | None = None
    """For cloze: the 1-based blank this option belongs to."""


class Knowledge(BaseModel):
    """Where the question sits in the knowledge graph."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    category: str | None = None
    """CK12's category (知识点, 题型, 能力, 拓展思维) or the source's subject category."""
    level1: str
    """Level-1 knowledge point."""
    level2: str
    """Level-2 knowledge point."""
    path: list[str] = Field(default_factory=list)
    """The full knowledge path, most general first (CK12 ``knowledge_tree`` split on ``-``)."""


FURTHER_PLACES = "further_places"
"""``Question.extra`` key of a question that sits at more than one place: ``[[subject, level-1, level-2], ...]``
beside its own coordinates (a Xiezhi question labelled in two 门类, :mod:`kg.importers.xiezhi`); see
:func:`kg.graph.placements`."""


class Question(BaseModel):
    """A question from any question bank, normalised.

    Records carry their coordinates (source, subject, knowledge points) so every
    later stage can join on ids, never on display names.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    version: Literal[1] = RECORD_VERSION
    """Version of this record's schema."""
    id: str = Field(min_length=1)
    """Identifier, unique within the source."""
    source: str = Field(min_length=1)
    """Dataset it came from: ``ck12``, ``cmmlu``, ``ceval``, ``xiezhi`` or a user's name."""
    stage: Stage | None = None
    """School stage, where the source has one."""
    subject: str = Field(min_length=1)
    """Subject (CK12: 语文 数学 ...; CMMLU / C-Eval: the subject's Chinese name; Xiezhi: 门类)."""
    group: str | None = None
    """Subject group: ``arts`` / ``science`` for CK12, the category for CMMLU and C-Eval."""
    type: QuestionType
    """Question type."""
    stem: str
    """The question text (LaTeX kept as the source writes it)."""
    options: list[Option] = Field(default_factory=list)
    """Options, or the statements of a judgment question."""
    answer: list[str] | list[bool]
    """Gold answer normalised per type (see the module docstring)."""
    analysis: str = ""
    """The teacher's worked solution (reference reasoning); may be empty."""
    knowledge: Knowledge
    """Knowledge coordinates."""
    difficulty: str | None = None
    """Difficulty as the source labels it (CK12: 易 较易 中档 较难 难)."""
    semester: str | None = None
    """Semester (CK12: 上学期 / 下学期), if any."""
    variant: str = Field(default="original", pattern=VARIANT_PATTERN)
    """Data variant: original, shuffled, distractors, circular or options-N."""
    language: Literal["zh", "en"] = "zh"
    """Main language of the stem."""
    extra: dict[str, Any] = Field(default_factory=dict)
    """Source-specific fields kept for reference (e.g. all Xiezhi labels)."""

    @model_validator(mode="after")
    def _answer_fits_type(self) -> Question:
        check_answer(self.type, self.options, self.answer)
        return self

    @property
    def split(self) -> str | None:
        """The release split the question was published in (``dev``, ``val``, ``test``, ``train``), kept in
        ``extra["split"]``; ``None`` when the source has no splits (CK12, a bank of your own)."""
        split = self.extra.get("split")
        return split if isinstance(split, str) and split else None

    @property
    def option_labels(self) -> list[str]:
        """Labels of the options in order."""
        return [o.label for o in self.options]

    @property
    def is_choice(self) -> bool:
        """Single or multiple choice."""
        return self.type in (QuestionType.SINGLE, QuestionType.MULTIPLE)

    def blanks(self) -> list[list[Option]]:
        """Cloze options grouped by blank, in blank order."""
        groups: dict[int, list[Option]] = {}
        for option in self.options:
            groups.setdefault(option.blank or 0, []).append(option)
        return [groups[k] for k in sorted(groups)]


class AnswerError(ValueError):
    """The gold answer does not fit the question type or its options; ``field`` names the culprit."""

    def __init__(self, message: str, field: str = "answer") -> None:
        super().__init__(message)
        self.field = field


def check_answer(qtype: QuestionType, options: list[Option], answer: list[str] | list[bool]) -> None:
    """Raise :class:`AnswerError` if ``answer`` is not a valid gold answer for ``qtype`` and ``options``."""
    if not answer:
        raise AnswerError("the gold answer is empty")
    if qtype is QuestionType.JUDGMENT:
        if not all(isinstance(a, bool) for a in answer):
            raise AnswerError("a judgment answer must be one true/false per statement")
        if options and len(answer) != len(options):
            raise AnswerError(f"{len(answer)} true/false answers for {len(options)} statements")
        return
    if not all(isinstance(a, str) for a in answer):
        raise AnswerError(f"a {qtype.value} answer must be a list of strings")
    if qtype is QuestionType.FILL:
        return
    labels = [o.label for o in options]
    if not labels and qtype is QuestionType.SORTING:
        # The source gave no options (the CK12 release has one such record): the
        # letters cannot be checked, but the letter order can still be scored.
        return
    if not labels:
        raise AnswerError(f"a {qtype.value} question needs options", field="options")
    if qtype is QuestionType.CLOZE:
        blanks: dict[int, set[str]] = {}
        for option in options:
            if option.blank is None:
                raise AnswerError("every cloze option needs its blank number", field="options")
            blanks.setdefault(option.blank, set()).add(option.label)
        if len(answer) != len(blanks):
            raise AnswerError(f"{len(answer)} answers for {len(blanks)} cloze blanks")
        for i, (blank, letter) in enumerate(zip(sorted(blanks), answer, strict=True)):
            if letter not in blanks[blank]:
                raise AnswerError(f"answer {letter!r} for blank {i + 1} is not among its options")
        return
    unknown = [a for a in answer if a not in labels]
    if unknown:
        raise AnswerError(f"answer letter(s) {''.join(map(str, unknown))!r} not among the options {''.join(labels)}")
    if qtype is QuestionType.SINGLE and len(answer) != 1:
        raise AnswerError(f"a single-choice answer must be one letter, got {''.join(map(str, answer))!r}")
    if qtype is QuestionType.MULTIPLE and list(answer) != sorted(set(answer)):  # type: ignore[type-var]
        raise AnswerError("a multiple-choice answer must be sorted letters without repeats")
    # Sorting answers may repeat a letter: the CK12 release has one (AFCDGFB) and
    # scores sorting by exact letter order, which such an answer still supports.


def clean_id(value: str) -> str:
    """A question id as every importer keeps it, and as a replayed file's id is matched: without the
    whitespace around it (a leading tab, CR or space)."""
    return value.strip()


def subject_group(subject: str) -> str | None:
    """The CK12 paper's arts / science group of a subject, or ``None`` if it has none."""
    if subject in ARTS_SUBJECTS:
        return "arts"
    if subject in SCIENCE_SUBJECTS:
        return "science"
    return None


_HAN = re.compile(r"[\u4e00-\u9fff]")

# What is not prose, removed before counting words: LaTeX ($$x+1$$, $x$, \frac), the CK12 release's
# table markup ($#table{...}, its ``centerlineendflag`` cells), code (#include, <iostream.h>, main(), option labels (A. B．(C)), chemical
# formulas (KMnO4, NaCl, H2O) and bare one-letter variables. Their letters are not English words,
# and counting them sent formula-heavy Chinese stems English prompts (#16 item 1).
_LATEX = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|\\[A-Za-z]+", re.S)
_MARKUP = re.compile(r"\$#table\{|centerlineendflag|endflag", re.I)
_LABEL = re.compile(r"(?<![A-Za-z])[(（]?[A-Za-z][)）]?\s*[.．、:：)）](?![A-Za-z])")
_FORMULA = re.compile(r"(?<![A-Za-z])(?:[A-Z][a-z]?\d*){1,6}(?![A-Za-z])")
_CODE = re.compile(r"#[A-Za-z]+|<[^<>\n]*>|(?<!\w)[A-Za-z_]\w*(?=\()")
_WORD = re.compile(r"[A-Za-z]{2,}")


def prose(text: str) -> str:
    """``text`` without LaTeX, table markup, option labels and formulas: the words a reader reads."""
    text = _LATEX.sub(" ", text)
    text = _MARKUP.sub(" ", text)
    text = _CODE.sub(" ", text)
    text = _LABEL.sub(" ", text)
    return _FORMULA.sub(lambda m: " " if _is_formula(m.group()) else m.group(), text)


def _is_formula(token: str) -> bool:
    # "NaCl", "H2O", "CO" are formulas; "I", "He", "No" read as English words only in English prose,
    # where plenty of other words decide anyway.
    return any(c.isdigit() for c in token) or sum(c.isupper() for c in token) >= 2


def detect_language(text: str) -> Literal["zh", "en"]:
    """``zh`` when the prose of ``text`` has Chinese characters in a fair share of its words, else ``en``.

    Only prose counts (:func:`prose`): formulas, labels and markup are not English words. Importers
    pass the stem alone: options (pinyin, formulas, English answer choices) say nothing of the
    language the question is asked in.
    """
    if _WORD.search(text) is None:  # prose only removes text: no Latin word in it, none in its prose
        return "zh"
    text = prose(text)
    han = len(_HAN.findall(text))
    latin_words = len(_WORD.findall(text))
    if han == 0 and latin_words > 0:
        return "en"
    # A Chinese word is about two characters long: compare words with words.
    return "zh" if han / 2 >= latin_words else "en"
