"""What ``k12eval demo`` will do: its settings, the questions it answers, and the plan file that makes it resumable.

The demo answers a stratified subset of the bundled sample (``per_subject`` questions of each
subject, spread over school stages, then question types) so that it finishes in minutes on a CPU. The subset is
written once as a CK12 folder (the sample's own JSONL lines, copied) next to the runs, so that
``k12eval run``, ``score`` and ``report`` read it like any question bank, and the settings are
recorded in ``plan.json``: a second ``k12eval demo`` with the same settings resumes, one with
other settings is refused instead of mixing two demos in one folder.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from kg.errors import InputError, SettingError
from kg.records import Question

PLAN_FILE = "plan.json"
QUESTIONS_DIR = "questions"


@dataclass(frozen=True)
class DemoSettings:
    """Everything that decides what the demo's runs and scores contain."""

    data: str
    """The question bank (absolute path)."""
    dev: str
    """The few-shot exemplar bank (absolute path)."""
    per_subject: int
    """Questions per subject; 0 takes every question."""
    chat_model: str
    embedder: str
    """Encoder of English chains."""
    embedder_zh: str
    """Encoder of Chinese chains."""
    nli: str
    backend: str
    cot_tokens: int
    answer_tokens: int
    shots: int
    token_budget: int


@dataclass(frozen=True)
class DemoPlan:
    """The settings and the chosen questions, as stored in ``plan.json``."""

    settings: DemoSettings
    question_ids: tuple[str, ...]
    bank: Path
    """The question bank the runs read: the subset folder, or ``settings.data`` itself."""


def stratified(questions: Sequence[Question], per_subject: int) -> list[Question]:
    """Up to ``per_subject`` questions of each subject, spread over school stages first, then types.

    Each pick of a subject goes to the stage this subject has had least, among those the whole
    selection has had least so far (the sample's primary-school questions are in three subjects
    only: they are taken there), and takes there the first question of a type this subject has not
    had yet, the type the selection has had least first. The choice is stable and the result keeps the bank's order. ``per_subject`` 0
    means every question.
    """
    if per_subject <= 0:
        return list(questions)
    by_subject: dict[str, dict[str, list[Question]]] = defaultdict(lambda: defaultdict(list))
    for q in questions:
        by_subject[q.subject][q.stage.value if q.stage else ""].append(q)
    scarce = Counter(q.stage.value if q.stage else "" for q in questions)
    overall: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    chosen: set[str] = set()
    for by_stage in by_subject.values():
        mine: Counter[str] = Counter()
        types: set[str] = set()
        for _ in range(per_subject):
            left = [s for s, qs in by_stage.items() if qs]
            if not left:
                break
            stage = min(left, key=lambda s: (mine[s], overall[s], scarce[s]))
            queue = by_stage[stage]
            q = min(queue, key=lambda x: (x.type.value in types, kinds[x.type.value]))  # first of the least used
            queue.remove(q)
            types.add(q.type.value)
            kinds[q.type.value] += 1
            mine[stage] += 1
            overall[stage] += 1
            chosen.add(q.id)
    return [q for q in questions if q.id in chosen]


def write_subset(source: Path, ids: set[str], target: Path) -> int:
    """Copy the JSONL lines of the questions ``ids`` from the CK12 folder ``source`` into ``target``.

    Relative paths are kept (they carry stage, subject and type), so ``target`` imports exactly
    like ``source`` restricted to ``ids``. Written to a temporary folder first and renamed, so an
    interrupted demo never leaves half a subset. Returns the number of lines copied.
    """
    staging = target.with_name(target.name + ".partial")
    _remove_tree(staging)
    copied = 0
    staging.mkdir(parents=True)  # even with no line to copy, the subset is an (empty) folder
    for path in sorted(source.rglob("*.jsonl")):
        # Split by "\n" only: str.splitlines also breaks at U+2028, U+0085..., which JSON strings may hold.
        text = path.read_text(encoding="utf-8")
        lines = [line.removesuffix("\r") for line in text.split("\n") if _record_id(line) in ids]
        if not lines:
            continue
        out = staging / path.relative_to(source)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("\n".join(lines) + "\n", encoding="utf-8")
        copied += len(lines)
    _remove_tree(target)
    staging.rename(target)
    return copied


def _record_id(line: str) -> str | None:
    if not line.strip():
        return None
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        return None
    value = record.get("id") if isinstance(record, dict) else None
    return value.strip() if isinstance(value, str) else None


def _remove_tree(folder: Path) -> None:
    import shutil

    shutil.rmtree(folder, ignore_errors=True)


def read_plan(work: Path) -> dict[str, Any] | None:
    """The plan stored in ``work``, or ``None`` when there is none."""
    path = work / PLAN_FILE
    if not path.is_file():
        return None
    try:
        plan: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno}); delete it to start over") from None
    return plan


def check_same_settings(work: Path, stored: dict[str, Any], settings: DemoSettings) -> None:
    """Refuse to resume a demo folder made with other settings, naming the first that differs."""
    old = stored.get("settings", {})
    for key, value in asdict(settings).items():
        if old.get(key) != value:
            raise InputError(
                f"{work / PLAN_FILE}, field 'settings.{key}': this folder holds a demo made with {old.get(key)!r}, "
                f"not {value!r}; pass --work DIR for a new demo folder, or delete {work} to start over"
            )


def check_demo_folders(work: Path, out: Path, banks: list[Path]) -> None:
    """Before any model loads: ``--work`` is new, empty or a demo's (its ``plan.json``), never the current folder, a
    bank or a folder holding one; ``--out`` (replaced whole by the report) is none of those and does not hold
    ``--work``. Before, ``--work`` was written into whatever it named (a run folder got the demo's files), and
    ``--out`` equal to ``--work`` was refused only at the report, after the model's runs."""
    from runners.out_folder import check_out

    check_out(work, banks, "work")
    check_out(out, [*banks, work])
    if work.is_dir() and not (work / PLAN_FILE).is_file():
        left = {QUESTIONS_DIR, PLAN_FILE + ".partial"}  # a demo stopped before its plan was written
        others = sorted(p.name for p in work.iterdir() if p.name not in left)
        if others:
            shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
            raise SettingError(
                "work",
                work,
                f"holds other files ({shown}) and no demo ({PLAN_FILE}); choose a new or empty folder",
                quoted=False,
            )


def make_plan(work: Path, settings: DemoSettings) -> tuple[DemoPlan, bool]:
    """Choose the questions and write the subset and ``plan.json``, or load them from an earlier demo.

    Returns the plan and whether it was already there.
    """
    from kg.importers import detect_format, load_questions

    stored = read_plan(work)
    subset = work / QUESTIONS_DIR
    if stored is not None:
        check_same_settings(work, stored, settings)
        bank = subset if settings.per_subject > 0 else Path(settings.data)
        if bank.exists():
            return DemoPlan(settings, tuple(stored["question_ids"]), bank), True
    data = Path(settings.data)
    fmt = detect_format(data)
    questions = stratified(load_questions(data, fmt).questions, settings.per_subject)
    if not questions:
        raise InputError(f"{data}: no questions to answer")
    bank = data
    if settings.per_subject > 0:
        if fmt != "ck12":
            raise InputError(
                f"{data}: a per-subject subset is written in the CK12 layout, but this bank is {fmt}; "
                "pass --per-subject 0 to answer every question"
            )
        write_subset(data, {q.id for q in questions}, subset)
        bank = subset
    plan = DemoPlan(settings, tuple(q.id for q in questions), bank)
    work.mkdir(parents=True, exist_ok=True)
    body = {"settings": asdict(settings), "question_ids": list(plan.question_ids)}
    temporary = work / (PLAN_FILE + ".partial")
    temporary.write_text(json.dumps(body, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    temporary.replace(work / PLAN_FILE)
    return plan, False
