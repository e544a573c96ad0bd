"""GAOKAO-Bench's scoring rate of a run, as its release prints it, by two graders: ``summary.json``'s ``gaokao``.

The release scores its objective questions by points (:mod:`runners.gaokao_release`): each question of a
record is worth the record's ``score``, physics gets partial credit, and the *scoring rate* is points earned
over points possible, per file, per subject (its README's columns: Chinese, Eng., Sci. Math = Math I,
Hum. Math = Math II, Phys., Chem., Biol., Poli., Hist., Geog.) and over all. Two graders read the answers:

* ``gaokao-release``: the release's own extraction (``extract_choice_answer``: for a single choice the last
  capital A-D anywhere in the text): the README's figures come from it.
* ``k12eval``: k12eval's extraction (:mod:`runners.extract`, the answer each record holds), given the same
  points: stricter (it reads a marked answer, and an answer it cannot read is wrong, not the last letter).

Only questions asked count (a failed request or a question not answered yet counts nowhere, as in the rest
of the summary). Each rate comes with its counts: points (earned/possible, with a 95 % interval of the ratio
over records, whose questions share a passage and move together) and questions answered exactly right (with
a 95 % Wilson interval). ``same_answer`` counts the records the two graders read alike; ``recorded``, for a
replay of GAOKAO-Bench's own result files, the records where the port reads the ``model_answer`` the release
recorded.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from kg.intervals import Z95, wilson_interval
from kg.records import Question, QuestionType
from runners.gaokao_release import MULTI_CHOICE, Points, release_extract, release_points
from runners.records import RunRecord

GRADERS = ("gaokao-release", "k12eval")
GRADER_NAMES: dict[str, tuple[str, str]] = {
    "gaokao-release": (
        "GAOKAO-Bench 发布的评分脚本（其答案抽取：单选取全文最后一个 A-D 字母）",
        "GAOKAO-Bench's released scorer (its extraction: for a single choice the last A-D letter anywhere)",
    ),
    "k12eval": ("k12eval 的答案抽取，按发布脚本的分值计分", "k12eval's extraction, scored with the release's points"),
}
"""How the tables and the run's last lines name each grader, in Chinese and in English."""
OVERALL = "Overall"
COLUMNS: dict[str, str] = {
    "2010-2022_Chinese_Modern_Lit": "Chinese",
    "2010-2022_Chinese_Lang_and_Usage_MCQs": "Chinese",
    "2010-2013_English_MCQs": "Eng.",
    "2010-2022_English_Fill_in_Blanks": "Eng.",
    "2012-2022_English_Cloze_Test": "Eng.",
    "2010-2022_English_Reading_Comp": "Eng.",
    "2010-2022_Math_I_MCQs": "Sci. Math",
    "2010-2022_Math_II_MCQs": "Hum. Math",
    "2010-2022_Physics_MCQs": "Phys.",
    "2010-2022_Chemistry_MCQs": "Chem.",
    "2010-2022_Biology_MCQs": "Biol.",
    "2010-2022_Political_Science_MCQs": "Poli.",
    "2010-2022_History_MCQs": "Hist.",
    "2010-2022_Geography_MCQs": "Geog.",
}
"""Each release file's column in the README's table of objective scoring rates (``Bench/OBJ_score_evaluation.py``
groups the same files by subject, Math I and II together)."""
SUBJECT_COLUMNS = {"语文": "Chinese", "英语": "Eng.", "数学": "Math", "物理": "Phys.", "化学": "Chem.", "生物": "Biol.",
                   "政治": "Poli.", "历史": "Hist.", "地理": "Geog."}  # fmt: skip
"""The column of a file the release does not have, by its subject."""
COLUMN_ORDER = (OVERALL, "Chinese", "Eng.", "Sci. Math", "Hum. Math", "Math", "Phys.", "Chem.", "Biol.", "Poli.",
                "Hist.", "Geog.")  # fmt: skip


class ScoreRate(BaseModel):
    """Points and questions of a group of records, each with its share and 95 % interval."""

    model_config = ConfigDict(extra="forbid")

    records: int
    earned: float
    possible: float
    rate: float | None
    """``earned / possible``: the release's scoring rate."""
    low: float | None
    high: float | None
    """The rate's 95 % interval: normal, of a ratio over records (``None`` for fewer than two)."""
    questions: int
    right: int
    """Questions answered exactly right (a physics record with some of its letters is not)."""
    share: float | None
    share_low: float | None
    share_high: float | None
    """``right / questions`` with its 95 % Wilson interval."""


class GraderScores(BaseModel):
    """One grader's scoring rates: over all, per README column and per release file."""

    model_config = ConfigDict(extra="forbid")

    overall: ScoreRate
    columns: dict[str, ScoreRate]
    files: dict[str, ScoreRate]


class Agreement(BaseModel):
    """Records on which two readings of the answers agree."""

    model_config = ConfigDict(extra="forbid")

    records: int
    same: int


class GaokaoScores(BaseModel):
    """``summary.json``'s ``gaokao``: the release's scoring rate by both graders."""

    model_config = ConfigDict(extra="forbid")

    records: int
    """GAOKAO-Bench records among the questions given: the run's in ``summary.json``, its bank's in a report."""
    asked: int
    """Those answered (a failed request or one not asked yet counts nowhere)."""
    graders: dict[str, GraderScores]
    """``gaokao-release`` and ``k12eval`` (:data:`GRADERS`)."""
    same_answer: Agreement
    """Records the two graders read the same answer from."""
    recorded: Agreement | None = None
    """For a replay of the release's result files: records where the ported extraction reads the ``model_answer``
    the release recorded (the port checked on its own files); ``None`` otherwise."""


def points_text(rate: ScoreRate, *, interval: bool = True) -> str:
    """``rate``'s points as ``run`` and ``report`` print them: ``7000/9702 points = 72.2% (70.1%-74.2%)`` (the
    interval where asked for and known), ``—`` with no points possible."""
    if rate.rate is None:
        return "—"
    shown = f"{rate.earned:g}/{rate.possible:g} points = {rate.rate:.1%}"
    if interval and rate.low is not None and rate.high is not None:
        shown += f" ({rate.low:.1%}-{rate.high:.1%})"
    return shown


def counts_records(scores: GaokaoScores | None, questions: int) -> bool:
    """Whether every one of ``questions`` is a GAOKAO-Bench record: then a count of them counts records (one can hold
    20 questions) and the protocol's own unit, points (:attr:`GaokaoScores.graders`), heads what is printed."""
    return scores is not None and scores.records == questions > 0


def gold_letters(question: Question) -> list[str]:
    """The gold answer as the release writes it: one string per question (physics ``["BD"]``)."""
    if question.type is QuestionType.MULTIPLE:
        return ["".join(sorted(map(str, question.answer)))]
    return [str(a) for a in question.answer]


def k12eval_letters(question: Question, extracted: Sequence[object] | None) -> list[str]:
    """k12eval's extracted answer in the release's form (``[]`` when it read none)."""
    if not extracted:
        return []
    if question.type is QuestionType.MULTIPLE:
        return ["".join(sorted(map(str, extracted)))]
    return [str(a) for a in extracted]


def is_gaokao(question: Question | None) -> bool:
    """Whether ``question`` is a GAOKAO-Bench question the release's scorer can score (its type and score known)."""
    return (
        question is not None
        and question.source == "gaokao"
        and isinstance(question.extra.get("release_type"), str)
        and isinstance(question.extra.get("score"), int | float)
    )


def gaokao_scores(records: Sequence[RunRecord], questions: Mapping[str, Question]) -> GaokaoScores | None:
    """The run's GAOKAO-Bench scoring rates; ``None`` when it holds no GAOKAO-Bench question."""
    given = sum(is_gaokao(q) for q in questions.values())
    if not given:
        return None
    points: dict[str, list[tuple[str, Points]]] = defaultdict(list)
    same = recorded = recorded_same = 0
    for record in records:
        question = questions.get(record.question_id)
        if not is_gaokao(question) or record.parse_status not in ("ok", "unparsed"):
            continue
        assert question is not None
        release_type = str(question.extra["release_type"])
        score = float(question.extra["score"])
        gold = gold_letters(question)
        theirs = release_extract(record.output or "", release_type, len(gold))
        ours = k12eval_letters(question, record.extracted)
        partial = release_type == MULTI_CHOICE
        file = str(question.extra.get("task", ""))
        points["gaokao-release"].append((file, release_points(theirs, gold, score, partial)))
        points["k12eval"].append((file, release_points(ours, gold, score, partial)))
        same += theirs == ours
        kept = (record.harness or {}).get("recorded_answer")
        if isinstance(kept, list):
            recorded += 1
            recorded_same += kept == theirs
    asked = len(points["k12eval"])
    columns = {file: _column(file, questions) for file in {f for f, _ in points["k12eval"]}}
    return GaokaoScores(
        records=given,
        asked=asked,
        graders={name: _grader(points[name], columns) for name in GRADERS},
        same_answer=Agreement(records=asked, same=same),
        recorded=Agreement(records=recorded, same=recorded_same) if recorded else None,
    )


def _column(file: str, questions: Mapping[str, Question]) -> str:
    if file in COLUMNS:
        return COLUMNS[file]
    subject = next((q.subject for q in questions.values() if q.extra.get("task") == file), "")
    return SUBJECT_COLUMNS.get(subject, subject or "?")


def _grader(scored: list[tuple[str, Points]], columns: Mapping[str, str]) -> GraderScores:
    by_column: dict[str, list[Points]] = defaultdict(list)
    by_file: dict[str, list[Points]] = defaultdict(list)
    for file, found in scored:
        by_column[columns[file]].append(found)
        by_file[file].append(found)
    order = {name: i for i, name in enumerate(COLUMN_ORDER)}
    return GraderScores(
        overall=score_rate([p for _, p in scored]),
        columns={c: score_rate(by_column[c]) for c in sorted(by_column, key=lambda c: (order.get(c, 99), c))},
        files={f: score_rate(by_file[f]) for f in sorted(by_file)},
    )


def score_rate(points: Sequence[Points]) -> ScoreRate:
    """Points and questions of ``points`` (one per record), with their shares and intervals."""
    earned, possible = sum(p.earned for p in points), sum(p.possible for p in points)
    questions, right = sum(p.questions for p in points), sum(p.right for p in points)
    rate = earned / possible if possible else None
    low, high = _ratio_interval(points, rate)
    share_low, share_high = wilson_interval(right, questions) if questions else (None, None)
    return ScoreRate(
        records=len(points),
        earned=earned,
        possible=possible,
        rate=rate,
        low=low,
        high=high,
        questions=questions,
        right=right,
        share=right / questions if questions else None,
        share_low=share_low,
        share_high=share_high,
    )


def _ratio_interval(points: Sequence[Points], rate: float | None) -> tuple[float | None, float | None]:
    """95 % normal interval of ``sum(earned) / sum(possible)`` over records (the ratio estimator's variance)."""
    n = len(points)
    if rate is None or n < 2:
        return None, None
    mean_possible = sum(p.possible for p in points) / n
    spread = sum((p.earned - rate * p.possible) ** 2 for p in points) / (n - 1)
    half = Z95 * math.sqrt(spread / n) / mean_possible
    return max(0.0, rate - half), min(1.0, rate + half)
