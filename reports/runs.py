"""Load run folders for the aggregates: header, records, step scores, and the questions they answered.

A run's header names its question bank; :func:`runners.bank.run_bank` reloads it as the run
worded it (a generated variant made again with the run's seed) to get stems, analyses and
difficulties. When it cannot be found the records still carry their node ids,
subject, type and stage, so the aggregates go on without stems (and say so).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar, cast

from kg.errors import InputError, SettingError
from kg.graph import KnowledgeGraph, build_graph, place_names
from kg.records import FURTHER_PLACES, Knowledge, Option, Question, QuestionType, Stage, subject_group
from reports.combiner import CombinerInfo, combiner_info
from reports.score_file import QuestionScores, load_score_header, load_scores
from runners.bank import BankStream, locate_bank, run_scope
from runners.errortypes import error_type
from runners.gaokao_score import GaokaoScores, counts_records, gaokao_scores
from runners.records import HEADER_FILE, RECORDS_FILE, RunHeader, RunRecord
from runners.store import RunStore

_CHOICE = (QuestionType.SINGLE, QuestionType.MULTIPLE)
T = TypeVar("T")


class Note(str):
    """A warning for the user (its English text) with its Chinese line ``zh`` for the Chinese page, and the
    ``setting`` that would answer it (``data``: the run's question bank), which the command line names by its
    flag; the text names no option."""

    zh: str
    setting: str | None

    def __new__(cls, text: str, zh: str, setting: str | None = None) -> Note:
        note = super().__new__(cls, text)
        note.zh = zh
        note.setting = setting
        return note


@dataclass
class Run:
    """One run folder, read."""

    id: str
    """Unique name of the run in a report (the folder name, made unique)."""
    dir: Path
    header: RunHeader
    records: list[Answered]
    """One record per question: the last written of each id (a retried question's newest answer), as much
    of it as the aggregates read (:class:`Answered`); :func:`full_records` reads the whole records back."""
    scores: dict[str, QuestionScores] = field(default_factory=dict)
    questions: dict[str, Question] = field(default_factory=dict)
    """The bank's question records by id, as this run's variant words them, without their texts
    (:func:`slim`): what the aggregates group by; :func:`full_questions` reads the texts back."""
    bank: str | None = None
    """Where the questions came from, or ``None`` when the bank was not found."""
    scope: list[Question] = field(default_factory=list)
    """The questions of the run's bank in the scope it recorded (:func:`runners.bank.run_scope`), asked or
    not, and any other question it answered: what "n in bank" counts. Without the bank, the questions
    with a record."""
    combiner: CombinerInfo | None = None
    """The learned combiner whose step probabilities ``scores`` carry (the score header names it)."""
    verdict_models: dict[str, str] = field(default_factory=dict)
    """Whose verdicts the step flags include besides the rules: ``judge`` and ``prm`` -> the model the score
    header names (each of their flags names it too)."""
    calibration: dict[str, Any] = field(default_factory=dict)
    """Language -> the scale and, per metric, the encoder, floor and separation the score header states
    (``ScoreConfig.calibration``): what the page greys a column by. Empty without scores or in older files."""

    @cached_property
    def gaokao(self) -> GaokaoScores | None:
        """GAOKAO-Bench's scoring rates of the run (:func:`runners.gaokao_score.gaokao_scores`), ``None`` without
        its questions."""
        return gaokao_scores(self.records, self.questions)  # type: ignore[arg-type]  # Answered carries the fields

    @property
    def unit(self) -> str:
        """What a count of the run's questions counts: ``records`` when every one is a GAOKAO-Bench record (which
        can hold 20 questions), else ``questions``."""
        return "records" if counts_records(self.gaokao, len(self.questions)) else "questions"

    @property
    def label(self) -> str:
        """``model · mode · variant`` as people read it."""
        return f"{self.header.model} · {self.header.mode} · {self.header.variant}"

    @cached_property
    def model_name(self) -> str:
        """The model's name as a teacher reads it (:func:`replayed_model`): a replayed file's model, not its path."""
        return replayed_model(self.header) or self.header.model


def replayed_model(header: RunHeader) -> str | None:
    """The model a replay run played back, when its header names the recorded file (or folder) as its model
    (``-b replay -m /tmp/judge2/chatglm2_zero_shot.json``): the model the replayed run folder's ``run.json``
    names, else the file's name without its suffix (``chatglm2_zero_shot``). ``None`` for another backend's run
    and for a replay given a label (``-B path=...``)."""
    if header.backend != "replay" or (header.backend_options or {}).get("path"):
        return None
    source = Path(header.model)
    folder = source if source.is_dir() else source.parent if source.name == RECORDS_FILE else None
    try:  # a k12eval run folder, or its records file: its header names the model
        recorded = json.loads((folder / HEADER_FILE).read_text(encoding="utf-8")).get("model") if folder else None
    except (OSError, ValueError, AttributeError):
        recorded = None
    if isinstance(recorded, str) and recorded.strip() and recorded != header.model:
        return recorded.strip()
    return (source.stem if source.suffix else source.name) or None


def read_run(run_dir: Path, run_id: str | None = None) -> Run:
    """Header, records (the last of each question id, read by :class:`RunStore`, kept as :class:`Answered`) and
    scores of one run folder."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise InputError(f"{run_dir}: no such run folder")
    from runners.protocol import protocol_for

    store = RunStore(run_dir)
    header = store.read_header()
    scored = load_score_header(run_dir)
    latest: dict[str, Answered] = {}
    keep_output = protocol_for(str(header.data.get("format") or "")).scorer_reads_answers  # GAOKAO-Bench's
    for number, record in store.iter_lines():  # one record at a time: only its counted part is kept
        latest[record.question_id] = Answered.of(record, number, keep_output=keep_output)
    return Run(
        id=run_id or run_dir.resolve().name,
        dir=run_dir,
        header=header,
        records=list(latest.values()),
        scores=load_scores(run_dir),
        combiner=combiner_info(scored.combiner) if scored is not None and scored.combiner else None,
        verdict_models=_verdict_models(scored.models if scored is not None else {}),
        calibration=dict(scored.calibration) if scored is not None else {},
    )


def _verdict_models(models: dict[str, dict[str, str | None]]) -> dict[str, str]:
    """The judge's and the PRM's model names in a score header (one per role, whatever the language)."""
    named = {role: next((m for m in models.get(role, {}).values() if m), None) for role in ("judge", "prm")}
    return {role: name for role, name in named.items() if name}


def load_runs(run_dirs: list[Path], data: Path | None = None) -> tuple[list[Run], list[str]]:
    """Read every run and attach its questions; returns the runs and warnings for the user.

    Banks are loaded once per ``(path, format, variant)``. ``data`` overrides every
    header's bank path (``--data``).
    """
    if data is not None and not data.exists():
        raise SettingError("data", data, "no such file or folder", quoted=False)
    runs: list[Run] = []
    names: Counter[str] = Counter()
    for run_dir in run_dirs:
        name = Path(run_dir).resolve().name
        names[name] += 1
        runs.append(read_run(run_dir, name if names[name] == 1 else f"{name}-{names[name]}"))
    warnings: list[str] = []
    banks: dict[tuple[str, str, str, int, bool], tuple[dict[str, Question], str]] = {}
    for run in runs:
        path = locate_bank(run.dir, run.header, data)
        if path is None:
            where = run.header.data.get("path") or "(none in run.json)"
            zh = f"{run.dir}：找不到题库 {where}，无法显示题干和解析；请指定这次运行的题库"
            text = (
                f"{run.dir}: question bank {where} not found; give the run's question bank to show stems and analyses"
            )
            warnings.append(Note(text, zh, setting="data"))
            run.questions = {r.question_id: question_from_record(r) for r in run.records}
            run.scope = list(run.questions.values())
            continue
        # Banks are read once per way of wording them, one question at a time and kept without their texts.
        key = (str(path.resolve()), str(run.header.data.get("format")), run.header.variant, run.header.seed, False)
        if key not in banks:
            stream = BankStream(path, run.header, skip_invalid=True)
            banks[key] = ({q.id: slim(q) for q in stream}, stream.fingerprint)
        questions, fingerprint = banks[key]
        recorded = run.header.bank or run.header.data.get("fingerprint")
        if recorded and recorded != fingerprint:
            zh = f"{run.dir}：题库 {path} 在这次运行作答之后改动过"
            warnings.append(Note(f"{run.dir}: the question bank {path} changed since the run answered it", zh))
        missing = [r.question_id for r in run.records if r.question_id not in questions]
        if missing:
            zh = f"{run.dir}：有 {len(missing)} 道作答过的题不在 {path} 中，例如 {missing[0]!r}"
            warnings.append(
                Note(f"{run.dir}: {len(missing)} answered question(s) not in {path}, e.g. {missing[0]!r}", zh)
            )
        # Keyed by the bank's id string, which the record keeps too: one string for the three, not two.
        run.questions = {
            q.id: q for q in (questions.get(r.question_id) or question_from_record(r) for r in run.records)
        }
        for record in run.records:
            question = run.questions[record.question_id]
            record.question_id = question.id
            if not question.extra.get("stand_in"):
                record.nodes = ()  # what a stand-in is built from: a question found in the bank needs none
        run.bank = str(path)
        scope = run_scope(list(questions.values()), run.header, lambda q, name: name in q.extra[SELECTED])
        inside = {q.id for q in scope}
        run.scope = scope + [q for qid, q in run.questions.items() if qid not in inside]
    _NODES.clear()  # the records that still need theirs keep them
    warnings += _shared_ids(runs)
    return runs, warnings


def _shared_ids(runs: list[Run]) -> list[str]:
    """A warning per pair of runs that hold different questions under one id (two banks that both number their
    questions 1, 2, 3): the report joins runs on question ids, so the second run's answer is counted and shown
    under the first run's question. Told apart by where they sit and their type (the texts are not kept); variants
    of one question (shuffled options, added distractors) sit at one place."""
    clashes: dict[tuple[str, str], list[str]] = {}
    for k, run in enumerate(runs):  # each question is looked up in the runs before it: nothing more is held
        for qid, question in run.questions.items():
            owner = next((r for r in runs[:k] if qid in r.questions), None)
            if owner is not None and _place(owner.questions[qid]) != _place(question):
                clashes.setdefault((owner.id, run.id), []).append(qid)
    notes: list[str] = []
    for (a, b), ids in clashes.items():
        places = [" / ".join(_place(r.questions[ids[0]])[:3]) for name in (a, b) for r in runs if r.id == name]
        example = f"{ids[0]!r}: {places[0]} in {a}, {places[1]} in {b}"
        text = (
            f"runs {a} and {b} hold different questions under {len(ids)} shared id(s), e.g. {example}; "
            f"the report counts and shows {b}'s answers to them under {a}'s questions; report them apart"
        )
        zh = f"运行 {a} 和 {b} 有 {len(ids)} 个题号相同但题目不同（例如 {ids[0]!r}：{a} 中是 {places[0]}，{b} 中是 {places[1]}）：本报告把 {b} 对这些题的作答算在 {a} 的题目下；请分开生成报告"
        notes.append(Note(text, zh))
    return notes


def _place(question: Question) -> tuple[str, ...]:
    """Where a question sits (subject, level-1 and level-2 point) and its type."""
    return (*place_names(question)[0], question.type.value)


SELECTED = "_selections"
"""Key of a slim question's ``extra`` naming the selections (:data:`runners.selection.SELECTIONS`) it is in."""
_KEPT_EXTRA = (
    *("categories", "labels", "split", "xiezhi_set", FURTHER_PLACES, "stand_in", "release_type", "score", "task"),
    *("subject_key", "subject_en"),
)
"""What the aggregates read of a question's ``extra`` (its categories, Xiezhi's labels, split, set and further
places, a GAOKAO-Bench question's type, score and file as its released scorer reads them), and the subject's other
names, by which the run's ``--subjects`` may have named it (:func:`runners.subjects.subject_names`)."""


def slim(question: Question) -> Question:
    """``question`` without its texts (stem, options, analysis): its coordinates, answer and what the report
    reads of its text (selections, features) computed first, as a :class:`SlimQuestion` (read as the
    :class:`Question` it stands for). Not validated again: built from a valid one.

    A bank of a million questions is held this way; the page's texts are read back for the questions it
    shows (:func:`full_questions`)."""
    from reports.analyses import FEATURED, FEATURES
    from runners.selection import SELECTIONS

    extra = {k: v for k, v in question.extra.items() if k in _KEPT_EXTRA}
    extra[SELECTED] = _shared(tuple(name for name, chosen in SELECTIONS.items() if chosen(question)))
    extra[FEATURED] = _shared(tuple(name for name, has in FEATURES.items() if has(question)))
    knowledge = SlimKnowledge(question.knowledge)
    fields = {
        **{name: getattr(question, name) for name in SlimQuestion.__slots__},
        "stem": "",
        "options": _NO_OPTIONS,
        "analysis": "",
        "knowledge": _KNOWLEDGE.setdefault(knowledge, knowledge),
        "subject": sys.intern(question.subject),
        "difficulty": sys.intern(question.difficulty) if question.difficulty else question.difficulty,
        "semester": sys.intern(question.semester) if question.semester else question.semester,
        "answer": shared_list(question.answer),
        "extra": extra,
    }
    try:  # most questions' extras are alike (their features, their subject's categories): one dict for them all
        extra_key = tuple(extra.items())
        hash(extra_key)
        fields["extra"] = _EXTRAS.setdefault(extra_key, extra)
    except TypeError:  # a list inside (Xiezhi's labels): this question's own
        pass
    return cast(Question, SlimQuestion(fields))


class SlimQuestion:
    """A question as the report holds it: a :class:`Question`'s fields in slots, with its properties. A pydantic
    object keeps a dict of its fields (0.5 KB a question: 52 MB at 100,000 questions); this one does not. It is
    read, never validated or dumped: :func:`slim` makes it from a valid question."""

    __slots__ = tuple(Question.model_fields)
    split = Question.__dict__["split"]
    option_labels = Question.__dict__["option_labels"]
    is_choice = Question.__dict__["is_choice"]
    blanks = Question.__dict__["blanks"]

    def __init__(self, fields: dict[str, Any]) -> None:
        for name, value in fields.items():
            setattr(self, name, value)

    def __repr__(self) -> str:
        return f"SlimQuestion(id={self.id!r}, subject={self.subject!r}, type={self.type.value!r})"  # type: ignore[attr-defined]


class SlimKnowledge:
    """A :class:`Knowledge` in slots without its path (the report reads none; CK12's paths cost 13 MB at
    100,000 questions), equal to another of the same value: one is kept per knowledge point (:data:`_KNOWLEDGE`,
    the key of itself; a pydantic object and its key cost 0.3 KB more a point)."""

    __slots__ = ("category", "level1", "level2")
    path: list[str] = []  # noqa: RUF012  (read-only, shared)

    def __init__(self, knowledge: Knowledge) -> None:
        self.category, self.level1, self.level2 = knowledge.category, knowledge.level1, knowledge.level2

    def _key(self) -> tuple[Any, str, str]:
        return self.category, self.level1, self.level2

    def __hash__(self) -> int:
        return hash(self._key())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SlimKnowledge) and self._key() == other._key()


_EXTRAS: dict[tuple[tuple[str, Any], ...], dict[str, Any]] = {}
_KNOWLEDGE: dict[SlimKnowledge, SlimKnowledge] = {}
"""One :class:`SlimKnowledge` per distinct value, shared by the slim questions that have it."""
_TUPLES: dict[tuple[str, ...], tuple[str, ...]] = {}
_NO_OPTIONS: list[Option] = []
"""The options of every slim question (read-only)."""
_LISTS: dict[tuple[Any, ...], list[Any]] = {}


def shared_list(values: list[Any]) -> Any:
    """One list object per distinct value (answers, gold and extracted answers: a few dozen among a million
    records), shared by the slim questions and records that have it (read-only); ``values`` itself when an
    item is unhashable."""
    try:
        return _LISTS.setdefault((*map(type, values), *values), values)
    except TypeError:
        return values


def _shared(names: tuple[str, ...]) -> tuple[str, ...]:
    return _TUPLES.setdefault(names, names)


@dataclass(slots=True)
class Answered:
    """What the aggregates read of one run record, kept for every answered question of a run (a million of
    them fit); the record's prompt and output stay on disk, read back for the page (:func:`full_records`).

    The fields are the :class:`~runners.records.RunRecord` fields of the same names; ``output`` is kept for
    judgment questions only (the released scorer counts a judgment from its text) and ``harness`` without the
    replayed prompt."""

    question_id: str
    nodes: tuple[tuple[str, str], ...]
    """The record's ``(kind, node id)`` pairs but the question's, until :func:`load_runs` finds its question in the
    bank (then none: only a stand-in question is built from them, :func:`question_from_record`)."""
    subject: str
    type: str
    stage: str | None
    variant: str
    parse_status: str
    correct: bool | None
    partial: float | None
    error_type: str | None
    gold: list[str] | list[bool]
    extracted: list[str] | list[bool] | None
    option_scores: dict[str, float] | None
    gold_rank: int | None
    output: str | None
    harness: dict[str, Any] | None
    line: int
    """The record's line in ``records.jsonl``."""

    @classmethod
    def of(cls, record: RunRecord, line: int, *, keep_output: bool = False) -> Answered:
        """The counted part of ``record`` (read at ``line``); CK12's error type computed now when the record
        predates the field, while its output is at hand. The output is kept for a judgment question, or for
        every question with ``keep_output`` (a scorer that reads the text, GAOKAO-Bench's)."""
        nodes = tuple((k, v) for k, v in record.nodes.items() if k != "question")
        harness = {k: v for k, v in record.harness.items() if k != "prompt"} if record.harness else None
        error = record.error_type or error_type(
            record.output, record.parse_status, record.correct, record.finish_reason
        )
        return cls(
            question_id=record.question_id,
            nodes=_NODES.setdefault(nodes, nodes),
            subject=sys.intern(record.subject),
            type=sys.intern(record.type),
            stage=sys.intern(record.stage) if record.stage else record.stage,
            variant=sys.intern(record.variant),
            parse_status=sys.intern(record.parse_status),
            correct=record.correct,
            partial=record.partial,
            error_type=sys.intern(error) if error else error,
            gold=shared_list(record.gold),
            extracted=shared_list(record.extracted) if record.extracted is not None else None,
            option_scores=record.option_scores,
            gold_rank=record.gold_rank,
            output=record.output if keep_output or record.type == QuestionType.JUDGMENT.value else None,
            harness=harness,
            line=line,
        )


_NODES: dict[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]] = {}
"""One node tuple per level-2 point, shared by the records under it while they are read."""


def full_records(run: Run, ids: set[str]) -> Iterator[RunRecord]:
    """The whole records (prompt and output too) of ``run``'s questions ``ids``, read back from its folder one
    at a time: the same line :attr:`Run.records` kept for each."""
    lines = {r.line for r in run.records if r.question_id in ids}
    return (record for number, record in RunStore(run.dir).iter_lines() if number in lines)


def full_questions(runs: list[Run], ids: set[str], data: Path | None = None) -> dict[str, dict[str, Question]]:
    """Per run id, the whole questions (stems, options, analyses) ``ids`` of its bank as it worded them,
    read back from the bank (once per way of wording it); a question the bank lacks keeps its stand-in."""
    return read_questions(runs, ids, lambda question: question, data)


def read_questions(
    runs: list[Run], ids: set[str], keep: Callable[[Question], T], data: Path | None = None
) -> dict[str, dict[str, T]]:
    """:func:`full_questions`, each question kept as ``keep`` makes it as it is read (what a caller shows of
    20,000 questions, not their whole records)."""
    read: dict[tuple[str, str, str, int], dict[str, T]] = {}
    out: dict[str, dict[str, T]] = {}
    for run in runs:
        path = locate_bank(run.dir, run.header, data) if run.bank is not None else None
        found: dict[str, T] = {}
        if path is not None:
            key = (str(path.resolve()), str(run.header.data.get("format")), run.header.variant, run.header.seed)
            if key not in read:
                read[key] = {q.id: keep(q) for q in BankStream(path, run.header, skip_invalid=True) if q.id in ids}
            found = read[key]
        out[run.id] = {qid: found[qid] if qid in found else keep(q) for qid, q in run.questions.items() if qid in ids}
    return out


def question_from_record(record: Answered) -> Question:
    """A stand-in question built from what a run record carries (no stem, options or analysis)."""
    names = {kind: unescape(node.split(":", 1)[1].split("/")[-1]) for kind, node in record.nodes}
    qtype = QuestionType.parse(record.type)
    labels = sorted({str(g) for g in record.gold} | set(record.option_scores or {}))
    options = [Option(label=label, text="") for label in labels] if qtype in _CHOICE else []
    # Not validated: a stand-in only needs the coordinates the aggregates group by.
    return Question.model_construct(
        id=record.question_id,
        source="run",
        stage=Stage.parse(record.stage) if record.stage else None,
        subject=record.subject,
        group=subject_group(record.subject),
        type=qtype,
        stem="",
        options=options,
        answer=record.gold,
        analysis="",
        knowledge=Knowledge(level1=names.get("level1", "?"), level2=names.get("level2", "?")),
        difficulty=None,
        semester=None,
        variant=record.variant,
        language="zh",
        extra={"stand_in": True},
    )


def unescape(name: str) -> str:
    """Undo the graph's percent-escaping of ``/`` and ``%`` in a node-id part."""
    return name.replace("%2F", "/").replace("%25", "%")


def graph_of(runs: list[Run]) -> KnowledgeGraph:
    """The knowledge graph over every question answered by at least one run.

    Coordinates come from the first run that answered a question; variants of one
    question share its id and knowledge points.
    """
    seen: dict[str, Question] = {}
    for run in runs:
        for qid, question in run.questions.items():
            seen.setdefault(qid, question)
    return build_graph(seen.values(), question_nodes=False)
