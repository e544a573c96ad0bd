"""Load run folders for the aggregates: header, records, step scores, and the questions they answered.

A run's header names its question bank; :func:`runners.bank.run_bank` reloads it as the run
worded it (a generated variant made again with the run's seed) to get stems, analyses and
difficulties. When it cannot be found the records still carry their node ids,
subject, type and stage, so the aggregates go on without stems (and say so).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from kg.errors import InputError
from kg.graph import KnowledgeGraph, build_graph
from kg.records import Knowledge, Option, Question, QuestionType, Stage, subject_group
from reports.combiner import CombinerInfo, combiner_info
from reports.score_file import QuestionScores, load_score_header, load_scores
from runners.bank import RunBank, locate_bank, run_bank, run_scope
from runners.records import RunHeader, RunRecord
from runners.store import RunStore

_CHOICE = (QuestionType.SINGLE, QuestionType.MULTIPLE)


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
    records: list[RunRecord]
    """One record per question: the last written of each id (a retried question's newest answer)."""
    scores: dict[str, QuestionScores] = field(default_factory=dict)
    questions: dict[str, Question] = field(default_factory=dict)
    """The bank's question records by id, as this run's variant words them."""
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

    @property
    def label(self) -> str:
        """``model · mode · variant`` as people read it."""
        return f"{self.header.model} · {self.header.mode} · {self.header.variant}"


def read_run(run_dir: Path, run_id: str | None = None) -> Run:
    """Header, records (the last of each question id, read by :class:`RunStore`) and scores of one run folder."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise InputError(f"{run_dir}: no such run folder")
    store = RunStore(run_dir)
    header = store.read_header()
    scored = load_score_header(run_dir)
    return Run(
        id=run_id or run_dir.resolve().name,
        dir=run_dir,
        header=header,
        records=store.records(),
        scores=load_scores(run_dir),
        combiner=combiner_info(scored.combiner) if scored is not None and scored.combiner else None,
        verdict_models=_verdict_models(scored.models if scored is not None else {}),
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
        raise InputError(f"--data {data}: no such file or folder")
    runs: list[Run] = []
    names: Counter[str] = Counter()
    for run_dir in run_dirs:
        name = Path(run_dir).resolve().name
        names[name] += 1
        runs.append(read_run(run_dir, name if names[name] == 1 else f"{name}-{names[name]}"))
    warnings: list[str] = []
    banks: dict[tuple[str, str, str, int, bool], RunBank] = {}
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
        # Banks are loaded once per way of wording them; the fingerprint check is per run.
        key = (str(path.resolve()), str(run.header.data.get("format")), run.header.variant, run.header.seed, False)
        if key not in banks:
            banks[key] = run_bank(run.dir, run.header, path, skip_invalid=True)
        bank = banks[key]
        recorded = run.header.bank or run.header.data.get("fingerprint")
        if recorded and recorded != bank.fingerprint:
            zh = f"{run.dir}：题库 {path} 在这次运行作答之后改动过"
            warnings.append(Note(f"{run.dir}: the question bank {path} changed since the run answered it", zh))
        missing = [r.question_id for r in run.records if r.question_id not in bank.questions]
        if missing:
            zh = f"{run.dir}：有 {len(missing)} 道作答过的题不在 {path} 中，例如 {missing[0]!r}"
            warnings.append(
                Note(f"{run.dir}: {len(missing)} answered question(s) not in {path}, e.g. {missing[0]!r}", zh)
            )
        run.questions = {
            r.question_id: bank.questions.get(r.question_id) or question_from_record(r) for r in run.records
        }
        run.bank = str(path)
        scope = run_scope(list(bank.questions.values()), run.header)
        inside = {q.id for q in scope}
        run.scope = scope + [q for qid, q in run.questions.items() if qid not in inside]
    return runs, warnings


def question_from_record(record: RunRecord) -> Question:
    """A stand-in question built from what a run record carries (no stem, options or analysis)."""
    names = {kind: unescape(node.split(":", 1)[1].split("/")[-1]) for kind, node in record.nodes.items()}
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
    return build_graph(seen.values())
