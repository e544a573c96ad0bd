"""Reference solutions to perturb: GSM8K JSONL answers, or the analyses of any question bank k12eval reads.

GSM8K (``{question, answer}``, the answer's lines annotated ``<<a*b=c>>`` and
ending ``#### n``): one step per line, calculator notes removed, and a last step
"The answer is n." Question banks (CK12 and every format of
:func:`kg.importers.load_questions`): the analysis split into paragraphs, or into
sentences when it is one paragraph; questions with fewer than two steps are skipped.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.errors import InputError
from kg.jsonl import jsonl_objects
from kg.records import detect_language

_ANNOTATION = re.compile(r"<<[^<>]*>>")
_FINAL = re.compile(r"^####\s*(.+)$", re.MULTILINE)
_SENTENCE = re.compile(r"(?<=[。；;！？])")
MIN_STEPS = 2


@dataclass(frozen=True)
class SourceItem:
    """One question with its reference steps."""

    id: str
    problem: str
    steps: tuple[str, ...]
    lang: str
    meta: dict[str, Any] = field(default_factory=dict, compare=False)


def is_gsm8k(path: Path) -> bool:
    """Whether ``path`` is a JSONL file whose first record looks like GSM8K."""
    if not path.is_file() or path.suffix != ".jsonl":
        return False
    with path.open(encoding="utf-8") as handle:
        first = handle.readline()
    try:
        record = json.loads(first)
    except json.JSONDecodeError:
        return False
    return isinstance(record, dict) and "question" in record and "####" in str(record.get("answer", ""))


def gsm8k_steps(answer: str) -> list[str]:
    """Steps of a GSM8K answer: its lines without calculator notes, then "The answer is n."."""
    final = _FINAL.search(answer)
    body = answer[: final.start()] if final else answer
    steps = [re.sub(r"\s+", " ", _ANNOTATION.sub("", line)).strip() for line in body.splitlines()]
    steps = [s for s in steps if s]
    if final:
        steps.append(f"The answer is {final.group(1).strip()}.")
    return steps


def read_gsm8k(path: Path) -> list[SourceItem]:
    """Every GSM8K record of ``path`` (ids ``gsm8k-<line>`` unless the record has an ``id``)."""
    items = []
    for number, record in jsonl_objects(path):
        try:
            question, answer = record["question"], record["answer"]
        except KeyError:
            raise InputError(f"{path}, line {number}: expected a JSON object with 'question' and 'answer'") from None
        if not isinstance(question, str) or not isinstance(answer, str):
            raise InputError(f"{path}, line {number}, field 'answer': expected text")
        steps = gsm8k_steps(answer)
        if len(steps) >= MIN_STEPS:
            items.append(SourceItem(str(record.get("id", f"gsm8k-{number}")), question, tuple(steps), "en"))
    return items


def analysis_steps(analysis: str) -> list[str]:
    """Steps of a teacher's analysis: paragraphs, or sentences when there is only one paragraph."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", analysis) if p.strip()]
    if len(paragraphs) >= MIN_STEPS:
        return [re.sub(r"\s*\n\s*", " ", p) for p in paragraphs]
    lines = [line.strip() for line in analysis.splitlines() if line.strip()]
    if len(lines) >= MIN_STEPS:
        return lines
    return [s.strip() for s in _SENTENCE.split(analysis) if s.strip()]


def read_question_bank(path: Path, fmt: str | None = None, subjects: tuple[str, ...] = ()) -> list[SourceItem]:
    """Questions with at least two analysis steps from any bank :func:`kg.importers.load_questions` reads."""
    from kg.importers import load_questions

    items = []
    for question in load_questions(path, fmt, skip_invalid=True).questions:
        if subjects and question.subject not in subjects:
            continue
        steps = analysis_steps(question.analysis)
        if len(steps) < MIN_STEPS:
            continue
        options = "\n".join(f"{o.label}. {o.text}" for o in question.options)
        problem = f"{question.stem}\n{options}".strip()
        meta = {"subject": question.subject, "type": question.type.value}
        language = detect_language(f"{question.stem}\n{question.analysis}")  # formulas hide the stem's language
        items.append(SourceItem(question.id, problem, tuple(steps), language, meta))
    return items


def load_source(path: Path | str, fmt: str | None = None, subjects: tuple[str, ...] = ()) -> list[SourceItem]:
    """Reference solutions from a GSM8K JSONL file or a question bank (format detected unless given)."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: no such file or folder")
    if fmt == "gsm8k" or (fmt is None and is_gsm8k(path)):
        items = read_gsm8k(path)
    else:
        items = read_question_bank(path, fmt, subjects)
    if not items:
        raise InputError(f"{path}: no question with at least {MIN_STEPS} reference steps")
    return items
