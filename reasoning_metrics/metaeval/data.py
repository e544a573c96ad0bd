"""Step-labelled solutions from ProcessBench, MR-MATH / MR-GSM8K, our own chains JSONL, CK12 and GAOKAO-Bench labels.

All three become :class:`LabelledSolution`. Step indices are 0-based everywhere
here (MR-MATH's 1-based "first error step" is converted on reading).

``chains`` JSONL, one solution per line (what ``k12eval diagnostics make`` writes)::

    {"id": "...", "problem": "...", "steps": ["...", "..."],
     "step_labels": [0, 1, null],   # 1 = wrong, 0 = correct, null = not labelled (optional)
     "first_error": 1,              # 0-based, -1 = no error (optional if step_labels given)
     "lang": "en", "meta": {...}}   # optional
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

from kg.errors import InputError
from kg.jsonl import describe
from reasoning_metrics.metaeval._located import iter_records
from reasoning_metrics.metaeval.solution import LabelledSolution, from_first_error

__all__ = ["FORMATS", "LabelledSolution", "from_first_error", "load_solutions", "split_numbered"]

FORMATS = ("processbench", "mr-math", "chains", "ck12-labels", "gaokao-labels")


def load_solutions(path: Path | str, fmt: str) -> list[LabelledSolution]:
    """Read every labelled solution of ``path`` in format ``fmt`` (see :data:`FORMATS`)."""
    path = Path(path)
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    if fmt == "ck12-labels":
        # Joined from the CK12 release, which the file does not hold (see ck12_labels).
        from reasoning_metrics.metaeval.ck12_labels import read_ck12_labels

        pairs = read_ck12_labels(path)
    elif fmt == "gaokao-labels":
        # Questions and answers joined from the GAOKAO-Bench release (see gaokao_labels).
        from reasoning_metrics.metaeval.gaokao_labels import read_gaokao_labels

        pairs = read_gaokao_labels(path)
    else:
        reader = {"processbench": _processbench, "mr-math": _mr_math, "chains": _chains}[fmt]
        pairs = [(where, reader(where, path, record)) for where, record in iter_records(path)]
    solutions = []
    seen: dict[str, str] = {}
    for where, solution in pairs:
        if solution.id in seen:
            raise InputError(f"{where}: duplicate solution id {solution.id!r} (first at {seen[solution.id]})")
        seen[solution.id] = where.removeprefix(f"{path}, ")
        solutions.append(solution)
    if not solutions:
        raise InputError(f"{path}: no solutions found")
    return solutions


def _field(where: str, record: dict[str, Any], *names: str) -> Any:
    for name in names:
        if name in record and record[name] is not None:
            return record[name]
    raise InputError(f"{where}: missing field '{names[0]}'")


def _text(where: str, record: dict[str, Any], *names: str) -> str:
    value = _field(where, record, *names)
    if not isinstance(value, str):
        raise InputError(f"{where}, field '{names[0]}': expected a string")
    return value


def _steps(where: str, value: Any, name: str) -> list[str]:
    if not isinstance(value, list):
        raise InputError(f"{where}, field '{name}': expected a list of step texts, got {describe(value)}")
    if not value:
        raise InputError(f"{where}, field '{name}': the solution has no steps")
    for i, step in enumerate(value):
        if not isinstance(step, str):
            raise InputError(f"{where}, field '{name}': step {i} is {describe(step)}, not text")
    return list(value)


def _index(where: str, value: Any, name: str) -> int:
    """An integer label (also written as text, ``"3"``, or a whole float, ``3.0``)."""
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise InputError(f"{where}, field '{name}': expected a step index, got {value!r}")


def _processbench(where: str, _: Path, record: dict[str, Any]) -> LabelledSolution:
    steps = _steps(where, _field(where, record, "steps"), "steps")
    label = _index(where, _field(where, record, "label"), "label")
    if not -1 <= label < len(steps):
        raise InputError(f"{where}, field 'label': expected -1 or a step index below {len(steps)}, got {label!r}")
    meta = {k: record[k] for k in ("generator", "final_answer_correct") if k in record}
    problem = _text(where, record, "problem", "question")
    return from_first_error(str(_field(where, record, "id")), problem, steps, label, None, meta)


_STEP_START = re.compile(r"(?m)^\s*(?:step\s*\d+\s*[:.：]|\d+\s*[.)、])", re.IGNORECASE)


def split_numbered(text: str) -> list[str]:
    """Steps of a solution written as one text: at "Step N:" or "N." line starts, else at line breaks."""
    starts = [m.start() for m in _STEP_START.finditer(text)]
    if len(starts) >= 2:
        bounds = [*starts, len(text)]
        head = text[: starts[0]].strip()
        parts = [text[a:b].strip() for a, b in itertools.pairwise(bounds)]
        return [head, *parts] if head else parts
    return [line.strip() for line in text.split("\n") if line.strip()]  # "\n" only, as the pattern above


def _mr_math(where: str, _: Path, record: dict[str, Any]) -> LabelledSolution:
    name = "model_output_steps" if record.get("model_output_steps") is not None else "model_output_step_format"
    raw = _field(where, record, "model_output_steps", "model_output_step_format")
    if isinstance(raw, str):
        steps = split_numbered(raw)
    elif isinstance(raw, list):
        steps = [_joined(where, name, i, s) for i, s in enumerate(raw)]
    else:
        raise InputError(f"{where}, field '{name}': expected a list of steps or one text, got {describe(raw)}")
    steps = _steps(where, steps, name)
    has_error = _has_error(where, _field(where, record, "model_output_solution_correctness"))
    raw_first = record.get("model_output_solution_first_error_step")
    first: int | None = None
    if has_error and _given(raw_first):
        first = _step_number(where, raw_first) - 1  # 1-based in the source
        if not 0 <= first < len(steps):
            raise InputError(
                f"{where}, field 'model_output_solution_first_error_step': {raw_first!r} is not one of the "
                f"{len(steps)} steps (numbered from 1)"
            )
    problem = _text(where, record, "question")
    sid = str(record.get("uuid", record.get("id", where)))
    meta = _mr_meta(record)
    gold = record.get("ground_truth_answer")  # MR-GSM8K's; what rollouts grade continuations against
    if isinstance(gold, int | float | str) and str(gold).strip():
        meta["gold"] = [str(gold)]
    if first is not None:
        return from_first_error(sid, problem, steps, first, None, meta)
    labels = (None,) * len(steps) if has_error else (False,) * len(steps)
    return LabelledSolution(sid, problem, tuple(steps), has_error, None, labels, None, meta)


def _mr_meta(record: dict[str, Any]) -> dict[str, Any]:
    """What MR-MATH / MR-GSM8K say beside the labels: the question's type, and whether the final answer
    was graded right (``model_output_answer_correctness``, kept as ``final_answer_correct`` as ProcessBench names it)."""
    meta: dict[str, Any] = {}
    if isinstance(record.get("question_type"), str):
        meta["question_type"] = record["question_type"]
    graded = record.get("model_output_answer_correctness")
    if isinstance(graded, str) and graded.strip().lower() in _CORRECT:
        meta["final_answer_correct"] = not _CORRECT[graded.strip().lower()]
    return meta


_CORRECT = {"correct": False, "true": False, "yes": False, "wrong": True, "incorrect": True, "false": True, "no": True}
_FIRST_STEP = re.compile(r"\s*(?:step\s*)?(\d+)\s*[.:]?\s*", re.IGNORECASE)


def _joined(where: str, name: str, i: int, step: Any) -> str:
    """A step given as text or as a list of lines (MR-MATH's ``model_output_step_format``)."""
    if isinstance(step, list) and all(isinstance(line, str) for line in step):
        return "\n".join(step)
    if isinstance(step, str):
        return step
    raise InputError(f"{where}, field '{name}': step {i} is {describe(step)}, not text or a list of lines")


def _has_error(where: str, value: Any) -> bool:
    """MR-MATH's solution correctness: ``correct``/``wrong`` (or ``true``/``false``, a boolean, 1/0)."""
    if isinstance(value, str) and value.strip().lower() in _CORRECT:
        return _CORRECT[value.strip().lower()]
    if isinstance(value, bool | int) and value in (0, 1):
        return not value
    raise InputError(f"{where}, field 'model_output_solution_correctness': expected correct or wrong, got {value!r}")


def _given(value: Any) -> bool:
    return value is not None and not (isinstance(value, str) and value.strip().upper() in ("", "N/A", "NA", "NONE"))


def _step_number(where: str, value: Any) -> int:
    """A 1-based step number: ``3``, ``"3"``, ``"Step 3"``, ``"3."``."""
    match = _FIRST_STEP.fullmatch(value) if isinstance(value, str) else None
    if match:
        return int(match.group(1))
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise InputError(f"{where}, field 'model_output_solution_first_error_step': expected a step number, got {value!r}")


def _chains(where: str, _: Path, record: dict[str, Any]) -> LabelledSolution:
    steps = _steps(where, _field(where, record, "steps"), "steps")
    problem = _text(where, record, "problem", "question", "source")
    sid = str(_field(where, record, "id"))
    meta = record.get("meta") or {}
    lang = record.get("lang")
    raw_labels = record.get("step_labels")
    if record.get("source") == REPORT_EXPORT:
        raw_labels, meta = _from_report(where, record, raw_labels, meta)
    first = record.get("first_error")
    if first is not None and (not isinstance(first, int) or isinstance(first, bool) or not -1 <= first < len(steps)):
        raise InputError(f"{where}, field 'first_error': expected -1 or a step index below {len(steps)}")
    if raw_labels is None:
        if first is None:
            raise InputError(f"{where}: needs 'step_labels' or 'first_error'")
        return from_first_error(sid, problem, steps, first, lang, meta)
    if not isinstance(raw_labels, list) or len(raw_labels) != len(steps):
        raise InputError(f"{where}, field 'step_labels': expected one label per step ({len(steps)})")
    labels: list[bool | None] = []
    for value in raw_labels:
        if value not in (0, 1, None) and not isinstance(value, bool):
            raise InputError(f"{where}, field 'step_labels': labels are 1 (wrong), 0 (correct) or null")
        labels.append(None if value is None else bool(value))
    wrong = [i for i, v in enumerate(labels) if v]
    derived = wrong[0] if wrong and all(v is False for v in labels[: wrong[0]]) else None
    if first is not None and first >= 0 and wrong and first != wrong[0]:
        raise InputError(f"{where}: 'first_error' {first} disagrees with 'step_labels' (first wrong step {wrong[0]})")
    if first == -1 and wrong:
        raise InputError(f"{where}: 'first_error' is -1 but 'step_labels' marks a wrong step")
    has_error = bool(wrong) or (first is not None and first >= 0)
    if not has_error and first is None and None in labels:
        raise InputError(f"{where}: no step is marked wrong but some are unlabelled; give 'first_error' (-1 = none)")
    located = first if first is not None and first >= 0 else derived
    return LabelledSolution(sid, problem, tuple(steps), has_error, located, tuple(labels), lang, meta)


REPORT_EXPORT = "k12eval-report"
"""``source`` of the teacher verdicts the HTML report exports (``reports/assets/report.js``, ``exportLine``)."""


def _from_report(where: str, record: dict[str, Any], labels: Any, meta: Any) -> tuple[Any, dict[str, Any]]:
    """A teacher verdict exported by the report: its ``step_labels`` say ``true`` for a right step and
    ``false`` for a wrong one (the page's buttons), the opposite of this format's 1 = wrong; its question,
    model and graded final answer are top-level fields, kept in ``meta`` (the split key, the grade)."""
    if isinstance(labels, list):
        if not all(v is None or isinstance(v, bool) for v in labels):
            raise InputError(
                f"{where}, field 'step_labels': a report export labels steps true (right), false (wrong) or null"
            )
        labels = [None if v is None else not v for v in labels]
    kept = {
        k: record[k]
        for k in ("question_id", "model", "mode", "run", "final_answer_correct")
        if record.get(k) is not None
    }
    return labels, {**kept, **(meta if isinstance(meta, dict) else {})}
