"""The CK12 release (chinese-k12-evaluation): ``<variant>/<stage>/<subject>/<type>.jsonl``.

Point it at the release root, at a variant folder, at any folder below, or at
one file. At a folder that holds variant folders, ``original_data`` is read
unless another variant is asked for. Records have exactly 12 keys; see
``../shared/data/README.md`` for their meaning.

Graph coordinates: level 1 is ``knowledge_domain[3]``, level 2 is
``knowledge_domain[4]``; ``knowledge_domain[2]`` is the category and
``knowledge_tree`` (joined by ``-``) the full path.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kg.errors import InputError, Problem
from kg.importers._answers import parse_answer as parse_answer
from kg.importers._answers import parse_judgments as parse_judgments
from kg.importers._found import Found, ImportOptions, located
from kg.importers._lines import first_record, split_option
from kg.jsonl import blank_file, describe, iter_jsonl
from kg.records import (
    AnswerError,
    Knowledge,
    Option,
    Question,
    QuestionType,
    Stage,
    check_answer,
    clean_id,
    detect_language,
    subject_group,
)

VARIANT_DIRS = {
    "original": "original_data",
    "shuffled": "shuffle_options",
    "distractors": "adding_10_distractor_options",
}
_DIR_VARIANTS = {folder: variant for variant, folder in VARIANT_DIRS.items()}
KEYS = (
    "id",
    "prompt",
    "answer_option",
    "answer",
    "analysis",
    "task_type",
    "task_subject",
    "task_grade",
    "task_semester",
    "difficulty",
    "knowledge_tree",
    "knowledge_domain",
)


def detect(path: Path) -> bool:
    """A folder with CK12 variant folders, JSONL whose records have CK12's keys, or an empty ``.jsonl``.

    An empty ``.jsonl`` is read as CK12's (the JSONL bank format): it holds no question, which the
    command then says, instead of "cannot tell the format".
    """
    if path.is_dir() and any((path / d).is_dir() for d in VARIANT_DIRS.values()):
        return True
    if path.is_file() and path.suffix.lower() == ".jsonl" and blank_file(path):
        return True
    record = first_record(path)
    return record is not None and {"task_type", "knowledge_domain", "answer_option"} <= record.keys()


def files_to_read(path: Path, variant: str) -> tuple[list[Path], str]:
    """The JSONL files under ``path`` for ``variant``, and the variant they hold."""
    if path.is_file():
        return [path], _variant_of(path, variant)
    if any((path / d).is_dir() for d in VARIANT_DIRS.values()):
        path = path / VARIANT_DIRS[variant]
        if not path.is_dir():
            return [], variant
    return sorted(path.rglob("*.jsonl")), _variant_of(path, variant)


def variant_folder(path: Path) -> tuple[Path, str] | None:
    """The released variant's folder that ``path`` is or lies in, with its variant (``shuffle_options``:
    ``shuffled``), else ``None``."""
    resolved = path.resolve()
    folder = next((p for p in (resolved, *resolved.parents) if p.name in _DIR_VARIANTS), None)
    return None if folder is None else (folder, _DIR_VARIANTS[folder.name])


def folder_variant(path: Path) -> str | None:
    """The released variant whose folder ``path`` is or lies in (``shuffle_options``: ``shuffled``), else ``None``."""
    found = variant_folder(path)
    return None if found is None else found[1]


def _variant_of(path: Path, default: str) -> str:
    return folder_variant(path) or default


def read(path: Path, options: ImportOptions) -> Iterator[Found | Problem]:
    """Yield the questions (and problems) of every CK12 JSONL file under ``path``."""
    files, variant = files_to_read(path, options.variant)
    if not files:
        raise InputError.from_problem(
            Problem(path, None, None, f"no CK12 JSONL files for variant {options.variant!r} here")
        )
    for file in files:
        for number, obj in iter_jsonl(file):
            if isinstance(obj, Problem):
                yield obj
            else:
                yield located(parse_record(obj, file, number, variant), file, number)


def parse_record(obj: dict[str, Any], file: Path, line: int, variant: str = "original") -> Question | Problem:
    """One CK12 record as a :class:`Question`, or the :class:`Problem` that stops it."""
    rid = obj["id"] if isinstance(obj.get("id"), str) and obj["id"] else None

    def problem(field: str | None, message: str) -> Problem:
        return Problem(file, line, field, message, record=rid)

    for key in KEYS:
        if key not in obj:
            return problem(key, "missing field")
    for key in ("id", "prompt", "answer", "task_type", "task_subject", "task_grade"):
        if not isinstance(obj[key], str):
            return problem(key, f"expected a non-empty string, got {describe(obj[key])}")
        if not obj[key].strip() and not (key == "prompt" and _statements_are_the_question(obj)):
            return problem(key, "empty; expected a non-empty string")
    for key in ("analysis", "task_semester", "difficulty", "knowledge_tree"):
        # Empty is fine for these; another type is a broken record, not text to str() into the bank.
        if obj[key] is not None and not isinstance(obj[key], str):
            return problem(key, f"expected a string, got {describe(obj[key])}")
    for key in ("answer_option", "knowledge_domain"):
        if not isinstance(obj[key], list) or not all(isinstance(x, str) for x in obj[key]):
            return problem(key, "expected a list of strings")
    try:
        qtype = QuestionType.parse(obj["task_type"])
    except ValueError as exc:
        return problem("task_type", str(exc))
    try:
        stage = Stage.parse(obj["task_grade"])
    except ValueError as exc:
        return problem("task_grade", str(exc))
    domain = obj["knowledge_domain"]
    if len(domain) < 5:
        return problem("knowledge_domain", f"expected [grade, subject, category, level-1, level-2], got {domain}")

    try:
        options = parse_options(obj["answer_option"], qtype)
    except ValueError as exc:
        return problem("answer_option", str(exc))
    try:
        answer = parse_answer(obj["answer"], qtype)
    except ValueError as exc:
        return problem("answer", str(exc))

    warnings: list[str] = []
    if qtype is QuestionType.SINGLE and len(set(answer)) > 1:
        # The release labels a few "choose the two correct ones" questions 单选.
        warnings.append(f"labelled 单选 but the answer has {len(answer)} letters: imported as multiple choice")
        qtype, answer = QuestionType.MULTIPLE, sorted({str(a) for a in answer})
    if qtype.has_options and not options:
        warnings.append("the source gives no options; the answer letters cannot be checked")
    try:
        check_answer(qtype, options, answer)
    except AnswerError as exc:
        return problem("answer_option" if exc.field == "options" else exc.field, str(exc))
    subject = obj["task_subject"].strip()
    tree = obj.get("knowledge_tree") or ""
    try:
        return Question(
            id=clean_id(obj["id"]),
            source="ck12",
            stage=stage,
            subject=subject,
            group=subject_group(subject),
            type=qtype,
            stem=obj["prompt"].strip(),
            options=options,
            answer=answer,
            analysis=(obj.get("analysis") or "").strip(),
            knowledge=Knowledge(
                category=domain[2] or None,
                level1=domain[3],
                level2=domain[4],
                path=[p for p in tree.split("-") if p],
            ),
            difficulty=obj.get("difficulty") or None,
            semester=obj.get("task_semester") or None,
            variant=variant,
            # A judgment whose stem is empty is asked in its statements' language.
            language=detect_language(obj["prompt"] if obj["prompt"].strip() else "\n".join(o.text for o in options)),
            extra={"warnings": warnings} if warnings else {},
        )
    except ValidationError as exc:
        error = exc.errors()[0]
        return problem(".".join(map(str, error["loc"])) or None, error["msg"])


def _statements_are_the_question(obj: dict[str, Any]) -> bool:
    """A judgment record whose statements are the question: its stem may be empty.

    The release has such records (小学/数学/判断.jsonl lines 633 and 713: stem "\\n", five
    numbered statements, answer "FFFFT"); its own scorer asks them and counts them (#26 item 2).
    Any other type with an empty stem asks nothing and stays refused.
    """
    statements, kind = obj.get("answer_option"), obj.get("task_type")
    try:
        judgment = isinstance(kind, str) and QuestionType.parse(kind) is QuestionType.JUDGMENT
    except ValueError:
        return False
    return judgment and isinstance(statements, list) and any(isinstance(s, str) and s.strip() for s in statements)


def parse_options(raw: list[str], qtype: QuestionType) -> list[Option]:
    """``["A.text", ...]`` as options; cloze options restart at ``A`` for every blank."""
    options: list[Option] = []
    blank = 0
    for i, text in enumerate(raw):
        split = split_option(text)
        if split is None:
            if qtype is QuestionType.JUDGMENT:
                split = (str(i + 1), text.strip())
            else:
                raise ValueError(f"option {i + 1} {text[:40]!r} does not start with a label like 'A.'")
        label, body = split
        if qtype is QuestionType.CLOZE:
            if label == "A":
                blank += 1
            options.append(Option(label=label, text=body, blank=max(blank, 1)))
        else:
            options.append(Option(label=label, text=body))
    return options
