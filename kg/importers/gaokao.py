"""GAOKAO-Bench (OpenLMLab, Apache-2.0): the objective questions of China's college entrance exam, 2010-2022.

Point it at the release's ``Data/`` folder (or the repository root), at ``Objective_Questions/`` or at one
of its files. Each file is one JSON object, ``{"keywords": "<file name>", "example": [...]}``, each example
``{year, category, question, answer, analysis, index, score}`` with ``answer`` a list of option letters.
Question ids are ``gaokao/<file name>/<index>``.

How the release's types become k12eval's (:mod:`kg.importers._gaokao_tasks`): ``single_choice`` is a
single choice, ``multi_choice`` (physics) a multiple choice, and a record holding several questions with one
letter each (``multi_question_choice``; 七选五 ``five_out_of_seven``, five blanks sharing options A–G) a
cloze with one blank per question. The options stay inside the question text, as published and as the
release's prompt shows them; they are also read out of it (their letters and texts) so that every gold
letter is checked against the options of its own question. ``extra.options_in_stem`` says so: a variant
that moves options (``shuffled``, ``distractors``, CircularEval) cannot be made of these questions.

The subjective questions (``Data/Subjective_Questions/``: open answers that the release has a teacher model
grade) are not imported: a folder's are counted in one warning, and a subjective file given alone is an
error saying so.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kg.errors import InputError, Problem, whole_file
from kg.importers._found import Found, ImportOptions, located
from kg.importers._gaokao_tasks import RELEASE_TYPES, SUBJECT_WORDS, TASKS, Group, Task, option_groups
from kg.jsonl import describe, not_regular, printable, value_fault
from kg.records import Knowledge, Option, Question, QuestionType, Stage, detect_language, subject_group

log = logging.getLogger(__name__)

OBJECTIVE = "Objective_Questions"
SUBJECTIVE = "Subjective_Questions"
_HEAD = re.compile(r'^\ufeff?\s*\{\s*"(?:keywords?|example)"\s*:')
_NAME = re.compile(r"^\d{4}-\d{4}_([A-Za-z]+)_")
_LETTERS = re.compile(r"^[A-G]+$")


def _is_release_file(file: Path) -> bool:
    """A ``.json`` file that opens as a GAOKAO-Bench file does: ``{"keywords": ...`` (or ``"example"``)."""
    if file.suffix.lower() != ".json" or not file.is_file() or not_regular(file) is not None:
        return False
    try:
        with file.open("r", encoding="utf-8", errors="replace") as handle:
            head = handle.read(512)
    except OSError:
        return False
    return _HEAD.match(head) is not None


def _objective_folder(path: Path) -> Path:
    """The folder whose files are read: ``Objective_Questions/`` below ``path`` (or below its ``Data/``)."""
    for candidate in (path / OBJECTIVE, path / "Data" / OBJECTIVE):
        if candidate.is_dir():
            return candidate
    return path


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path] if _is_release_file(path) else []
    folder = _objective_folder(path)
    return sorted(p for p in folder.glob("*.json") if _is_release_file(p))


def detect(path: Path) -> bool:
    """A GAOKAO-Bench JSON file, or a folder holding them (the release's ``Data/`` or its objective folder)."""
    return bool(_files(path))


def read(path: Path, options: ImportOptions) -> Iterator[Found | Problem]:
    """Yield the objective questions (and problems) of every GAOKAO-Bench file under ``path``."""
    files = _files(path)
    if not files:
        raise InputError.from_problem(
            Problem(path, None, None, "no GAOKAO-Bench JSON files here (Data/Objective_Questions/*.json)")
        )
    if path.is_dir():
        _note_subjective(_objective_folder(path).parent / SUBJECTIVE)
    for file in files:
        yield from _read_file(file)


def _note_subjective(folder: Path) -> None:
    skipped = sorted(folder.glob("*.json")) if folder.is_dir() else []
    if skipped:
        log.warning(
            "gaokao: %d subjective-question file(s) in %s not imported: their answers are open text, which the "
            "release has a teacher model grade; k12eval imports the objective files",
            len(skipped),
            folder,
        )


def _read_file(file: Path) -> Iterator[Found | Problem]:
    try:
        data = json.loads(file.read_text(encoding="utf-8-sig"))
    except UnicodeDecodeError:
        yield whole_file(Problem(file, None, None, "not UTF-8 text"), None)
        return
    except json.JSONDecodeError as exc:
        yield whole_file(Problem(file, exc.lineno, None, f"not valid JSON ({exc.msg} at column {exc.colno})"), None)
        return
    except (ValueError, RecursionError):
        yield whole_file(Problem(file, None, None, "not usable JSON (too deep, or a number too long)"), None)
        return
    examples = data.get("example") if isinstance(data, dict) else None
    if not isinstance(examples, list):
        yield whole_file(
            Problem(file, None, "example", f"expected a list of questions, got {describe(examples)}"), None
        )
        return
    keyword = data.get("keywords") or data.get("keyword") or file.stem
    keyword = keyword if isinstance(keyword, str) else file.stem
    if examples and all(isinstance(e, dict) and isinstance(e.get("answer"), str) for e in examples[:5]):
        yield whole_file(Problem(
            file, None, "answer", "a subjective-question file (open-text answers, which the release has a teacher "
            "model grade): not imported; k12eval imports GAOKAO-Bench's Objective_Questions files"
        ), len(examples))  # fmt: skip
        return
    task = TASKS.get(keyword)
    if task is None:
        word = _NAME.match(keyword)
        subject = SUBJECT_WORDS.get(word.group(1)) if word else None
        if subject is None:
            names = f"{keyword!r} names no GAOKAO-Bench subject ({', '.join(SUBJECT_WORDS)})"
            yield whole_file(Problem(file, None, "keywords", names), len(examples))
            return
        task = Task(subject, keyword, "")
    for position, item in enumerate(examples, start=1):
        yield located(_question(item, file, position, keyword, task), file, position)


def _question(item: Any, file: Path, position: int, keyword: str, task: Task) -> Question | Problem:
    if not isinstance(item, dict):
        return Problem(file, position, None, f"expected a question object, got {describe(item)}", unit="example")
    index = item.get("index", position - 1)
    qid = f"gaokao/{keyword}/{printable(str(index))}"

    def problem(field: str, message: str) -> Problem:
        return Problem(file, position, field, message, record=qid, unit="example")

    for key, value in item.items():
        fault = value_fault(value)
        if fault is not None:
            return problem(printable(str(key)), fault)

    text = item.get("question")
    if not isinstance(text, str) or not text.strip():
        return problem("question", f"expected the question's text, got {describe(text)}")
    answer = item.get("answer")
    if not isinstance(answer, list) or not answer or not all(isinstance(a, str) for a in answer):
        return problem("answer", f"expected a list of option letters, got {describe(answer)}")
    letters = [a.strip().upper() for a in answer]
    if not all(_LETTERS.match(a) for a in letters):
        return problem("answer", f"expected option letters A to G, got {answer!r}")
    warnings: list[str] = []
    release_type = task.release_type or _inferred_type(letters, warnings)
    qtype = RELEASE_TYPES[release_type]
    if qtype is not QuestionType.MULTIPLE and any(len(a) != 1 for a in letters):
        return problem("answer", f"a {release_type} question takes one letter per question, got {answer!r}")
    if qtype is not QuestionType.CLOZE and len(letters) != 1:
        return problem("answer", f"a {release_type} question has one answer, got {len(letters)}: {answer!r}")
    size = 7 if release_type == "five_out_of_seven" else 4
    questions = 1 if release_type != "multi_question_choice" else len(letters)
    groups = _groups(text, size, questions, warnings)
    if release_type == "five_out_of_seven":
        groups = groups * len(letters)
    for number, (group, gold) in enumerate(zip(groups, letters, strict=True), start=1):
        missing = [c for c in gold if c not in group.labels]
        if missing:
            where = f" of question {number}" if len(groups) > 1 else ""
            return problem(
                "answer", f"letter {''.join(missing)} is not among the options{where} ({''.join(group.labels)})"
            )
    return _build(item, qid, text, qtype, groups, letters, task, keyword, release_type, warnings, problem)


def _inferred_type(letters: list[str], warnings: list[str]) -> str:
    warnings.append("a file GAOKAO-Bench does not have: its type is read from the answer")
    if len(letters) > 1:
        return "multi_question_choice"
    return "multi_choice" if len(letters[0]) > 1 else "single_choice"


def _groups(text: str, size: int, questions: int, warnings: list[str]) -> list[Group]:
    """The option groups of the record's ``questions`` questions (the last ones found: options follow their
    question, while a table or a passage above may hold a stray ``A.``). When the text has fewer, which
    group is whose cannot be told: every question gets the labels alone, with a warning."""
    found = option_groups(text, size)
    if len(found) >= questions:
        return found[len(found) - questions :]
    labels = tuple("ABCDEFG"[:size])
    warnings.append(
        f"only {len(found)} of its {questions} question(s) write their options as {', '.join(labels)} in the text "
        "(a label lost in the release's conversion): the letters are assumed, the option texts left empty"
    )
    return [Group(labels, ("",) * size)] * questions


def _build(
    item: dict[str, Any],
    qid: str,
    text: str,
    qtype: QuestionType,
    groups: list[Group],
    letters: list[str],
    task: Task,
    keyword: str,
    release_type: str,
    warnings: list[str],
    problem: Any,
) -> Question | Problem:
    if qtype is QuestionType.CLOZE:
        options = [
            Option(label=label, text=body, blank=number)
            for number, group in enumerate(groups, start=1)
            for label, body in zip(group.labels, group.texts, strict=True)
        ]
        answer = letters
    else:
        options = [
            Option(label=label, text=body) for label, body in zip(groups[0].labels, groups[0].texts, strict=True)
        ]
        answer = sorted(set(letters[0])) if qtype is QuestionType.MULTIPLE else letters
    score = item.get("score")
    extra: dict[str, Any] = {
        "task": keyword,
        "release_type": release_type,
        "year": str(item.get("year", "")),
        "paper": str(item.get("category", "")),
        "score": score if isinstance(score, int | float) and not isinstance(score, bool) else None,
        "options_in_stem": True,
    }
    if warnings:
        extra["warnings"] = warnings
    analysis = item.get("analysis")
    try:
        return Question(
            id=qid,
            source="gaokao",
            stage=Stage.HIGH,
            subject=task.subject,
            group=subject_group(task.subject),
            type=qtype,
            stem=text.strip(),
            options=options,
            answer=answer,
            analysis=analysis.strip() if isinstance(analysis, str) else "",
            knowledge=Knowledge(
                category=release_type, level1=task.paper, level2=task.paper, path=[task.subject, task.paper]
            ),
            language=detect_language(text),
            extra=extra,
        )
    except ValidationError as exc:
        error = exc.errors()[0]
        result: Problem = problem(".".join(map(str, error["loc"])) or "question", error["msg"])
        return result
