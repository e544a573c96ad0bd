"""Your own question bank: any JSONL or CSV (TSV) plus a mapping file naming its columns.

Chosen by giving a mapping file (``--mapping FILE``, :class:`ImportOptions.mapping`);
never detected from the data alone. The mapping's format is described in
:mod:`kg.importers._mapping` and docs/importers.md. Ids default to
``<file stem>/<line>`` when the mapping names no id column.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kg.errors import InputError, Problem, SettingError, whole_file
from kg.importers._answers import parse_answer, parse_judgments
from kg.importers._found import Found, ImportOptions, located
from kg.importers._lines import count_rows, iter_csv, read_csv_header, split_option, twice_named
from kg.importers._mapping import Column, Constant, Mapping, OptionColumns, load_mapping, parse_stage, parse_type
from kg.importers.ck12 import parse_options
from kg.jsonl import describe, iter_jsonl
from kg.records import AnswerError, Knowledge, Option, Question, QuestionType, Stage, check_answer, detect_language

SUFFIXES = {".jsonl": "jsonl", ".csv": "csv", ".tsv": "tsv"}
NUMBERED = frozenset({"id", "difficulty", "semester"})
"""Fields a JSONL bank may give as a whole number (``"id": 17``); every other text field must be text."""
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


class RowError(ValueError):
    """A bad value in a row; ``column`` names the column (or mapping key) at fault."""

    def __init__(self, column: str, message: str) -> None:
        super().__init__(message)
        self.column = column


def detect(path: Path) -> bool:
    """Never: a bank of your own is read only with a mapping file."""
    return False


def read(path: Path, options: ImportOptions) -> Iterator[Found | Problem]:
    """Yield the questions (and problems) of ``path`` (a file, or a folder of them) read through the mapping."""
    if options.mapping is None:
        raise SettingError("mapping", None, f"the mapped format needs a mapping file naming the columns of {path}")
    mapping = load_mapping(options.mapping)
    if isinstance(mapping, Problem):  # no record's fault: --skip-invalid leaves out none, it stops
        raise InputError.from_problem(mapping)
    files = [path] if path.is_file() else sorted(f for f in path.rglob("*") if f.suffix.lower() in SUFFIXES)
    if not files:
        raise InputError.from_problem(Problem(path, None, None, f"no {', '.join(SUFFIXES)} files here"))
    jsonl = [f for f in files if SUFFIXES.get(f.suffix.lower()) == "jsonl"]
    unkeyed = _absent_keys(mapping, path, jsonl) if jsonl else None
    if unkeyed:
        yield unkeyed
    for file in files:
        kind = SUFFIXES.get(file.suffix.lower())
        if kind is None:
            named = Problem(file, None, None, f"cannot tell JSONL from CSV: name the file {' / '.join(SUFFIXES)}")
            yield whole_file(named, None)
        elif kind == "jsonl":
            if not unkeyed:
                yield from _rows(mapping, file, iter_jsonl(file))
        else:
            delimiter = "\t" if kind == "tsv" else ","
            header = read_csv_header(file, delimiter)
            if isinstance(header, Problem):
                yield whole_file(header, None)
                continue
            absent = [c for c in mapping.columns if c not in header]
            twice = twice_named(header, mapping.columns)
            if absent:
                column = absent[0]
                problem = Problem(
                    file,
                    1,
                    column,
                    f"no such column (the mapping reads it as {mapping.columns[column]!r}); "
                    f"the header has {', '.join(header)}{_other_separator(header, kind)}",
                )
            elif twice:
                problem = Problem(file, 1, *twice)
            else:
                yield from _rows(mapping, file, iter_csv(file, delimiter))
                continue
            yield whole_file(problem, count_rows(iter_csv(file, delimiter)))


def _other_separator(header: list[str], kind: str) -> str:
    """A hint when the header is one cell holding the other separator: a tab-separated ``.csv`` or a ``.tsv``
    of commas (the separator is told by the file's name)."""
    other, called, name = ("\t", "tabs", ".tsv") if kind == "csv" else (",", "commas", ".csv")
    if len(header) == 1 and other in header[0]:
        return f"; the file is separated by {called}: name it {name}"
    return ""


def _absent_keys(mapping: Mapping, path: Path, files: list[Path]) -> Problem | None:
    """The key the mapping reads that no record of the JSONL ``files`` under ``path`` has, as a CSV header lacking
    a column is refused.

    One record without a key leaves that field empty; none with it is a misspelt key (``"解释"`` for
    ``"解析"``), which would leave every question without its analysis, level 2 or stage, silently. The records
    of the whole bank are looked at, not each file's: a folder of one file per type has no options in its
    填空.jsonl, which is no misspelling when 单选.jsonl has them.
    """
    seen: set[str] = set()
    records = lines = 0
    for file in files:
        for line, record in iter_jsonl(file):
            lines += bool(line)
            if isinstance(record, dict):
                seen.update(record)
                records += 1
    absent = [c for c in mapping.columns if c not in seen]
    if not records or not absent:
        return None
    column = absent[0]
    of_files = f" of its {len(files)} JSONL files" if len(files) > 1 else ""
    problem = Problem(
        files[0] if len(files) == 1 else path,
        None,
        column,
        f"no record{of_files} has this key (the mapping reads it as {mapping.columns[column]!r}); "
        f"the records' keys are {', '.join(sorted(seen))}",
    )
    return whole_file(problem, lines, len(files))  # the folder's other files (CSV) are still read


def _rows(
    mapping: Mapping, file: Path, rows: Iterator[tuple[int, dict[str, Any] | Problem]]
) -> Iterator[Found | Problem]:
    for line, row in rows:
        yield row if isinstance(row, Problem) else located(parse_row(mapping, row, file, line), file, line)


def parse_row(mapping: Mapping, row: dict[str, Any], file: Path, line: int) -> Question | Problem:
    """One row read through the mapping, or the Problem naming its column."""
    reader = _Row(mapping, row)
    rid: str | None = None
    try:
        rid = reader.text("id") or f"{file.stem}/{line}"
        question = reader.question(rid)
    except RowError as exc:
        return Problem(file, line, exc.column, str(exc), record=rid)
    except ValidationError as exc:
        error = exc.errors()[0]
        return Problem(file, line, ".".join(map(str, error["loc"])) or None, error["msg"], record=rid)
    return question


class _Row:
    """Field values of one row, converted and checked one field at a time."""

    def __init__(self, mapping: Mapping, row: dict[str, Any]) -> None:
        self.mapping = mapping
        self.row = row

    def where(self, key: str) -> str:
        source = self.mapping.fields.get(key)
        return source.name if isinstance(source, Column) else f"{key} (mapping constant)"

    def raw(self, key: str) -> Any:
        source = self.mapping.fields.get(key)
        if source is None:
            return None
        if isinstance(source, Constant):
            return source.value
        return self.row.get(source.name)

    def text(self, key: str, required: bool = False) -> str | None:
        value = self.raw(key)
        if value is None or isinstance(value, str):
            text = (value or "").strip()
        elif key in NUMBERED and isinstance(value, int) and not isinstance(value, bool):
            text = str(value)
        else:
            # str() would turn true into "True" and ["x"] into "['x']": refuse instead of inventing text.
            raise RowError(self.where(key), f"expected text for {key}, got {describe(value)}")
        if required and not text:
            raise RowError(self.where(key), f"empty {key}")
        return text or None

    def question(self, qid: str) -> Question:
        try:
            qtype = parse_type(self.text("type", required=True) or "")
        except ValueError as exc:
            raise RowError(self.where("type"), str(exc)) from None
        stem = self.text("stem", required=True) or ""
        options = self.options(qtype)
        answer = self.answer(qtype)
        try:
            check_answer(qtype, options, answer)
        except AnswerError as exc:
            key = "options" if exc.field == "options" else "answer"
            column = self.option_where() if key == "options" else self.where("answer")
            raise RowError(column, str(exc)) from None
        level1 = self.text("level1", required=True) or ""
        return Question(
            id=qid,
            source=self.text("source") or "mapped",
            stage=self.stage(),
            subject=self.text("subject", required=True) or "",
            group=self.text("group"),
            type=qtype,
            stem=stem,
            options=options,
            answer=answer,
            analysis=self.text("analysis") or "",
            knowledge=Knowledge(
                category=self.text("category"),
                level1=level1,
                level2=self.text("level2") or level1,
                path=[p for p in (self.text("subject"), level1, self.text("level2")) if p],
            ),
            difficulty=self.text("difficulty"),
            semester=self.text("semester"),
            variant=self.text("variant") or "original",
            language=self.language(stem, options),
            extra={c: self.row.get(c) for c in self.mapping.extra},
        )

    def stage(self) -> Stage | None:
        text = self.text("stage")
        try:
            return parse_stage(text) if text else None
        except ValueError as exc:
            raise RowError(self.where("stage"), str(exc)) from None

    def language(self, stem: str, options: list[Option]) -> Any:
        text = self.text("language")
        if text is None:
            return detect_language(stem)
        if text not in ("zh", "en"):
            raise RowError(self.where("language"), f"expected zh or en, got {text!r}")
        return text

    def option_where(self) -> str:
        spec = self.mapping.options
        return ", ".join(spec.columns) if spec else "options"

    def options(self, qtype: QuestionType) -> list[Option]:
        spec = self.mapping.options
        if spec is None:
            return []
        try:
            options = read_options(spec, self.row, qtype)
        except ValueError as exc:
            raise RowError(self.option_where(), str(exc)) from None
        if len(options) == 1 and qtype in (QuestionType.SINGLE, QuestionType.MULTIPLE):
            # One option is a misread bank, not a question: graded as it stands, any answer "A" would count right.
            where = (
                "is it separated by something else (separator = ...)?"
                if spec.single
                else "are the other columns empty?"
            )
            raise RowError(self.option_where(), f"only one option, {options[0].text!r}: {where}")
        return options

    def answer(self, qtype: QuestionType) -> list[str] | list[bool]:
        value = self.raw("answer")
        try:
            return parse_any_answer(value, qtype)
        except ValueError as exc:
            raise RowError(self.where("answer"), str(exc)) from None


def read_options(spec: OptionColumns, row: dict[str, Any], qtype: QuestionType) -> list[Option]:
    """The options of a row: one per column, or all from one column (list, JSON list or separated text)."""
    if not spec.single:
        texts = [option_text(row.get(c)) for c in spec.columns]
        while texts and not texts[-1]:
            texts.pop()
        gaps = [spec.columns[i] for i, t in enumerate(texts) if not t]
        if gaps:
            raise ValueError(f"option column {gaps[0]!r} is empty but a later one is not")
        return _lettered(texts, qtype, strip_labels=True)
    value = row.get(spec.columns[0])
    if value is None or value == "":
        return []
    if isinstance(value, str) and (spec.json or _json_list(value)):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not a JSON list of options ({exc.msg})") from None
    if isinstance(value, dict):
        # {"A": ...}, as typed also {"Ａ": ...} or {"A.": ...}: the label is the letter
        labels = [unicodedata.normalize("NFKC", str(k)).strip().rstrip(".、:)").strip().upper() for k in value]
        return [Option(label=label, text=option_text(v)) for label, v in zip(labels, value.values(), strict=True)]
    if isinstance(value, list):
        texts = [option_text(v) for v in value]
    elif isinstance(value, str):
        texts = [t.strip() for t in value.split(spec.separator or "\n") if t.strip()]
    else:
        raise ValueError(f"expected the options as text or a list, got {describe(value)}")
    if texts and all(split_option(t) for t in texts) and not any(_DECIMAL.match(t) for t in texts):
        return parse_options(texts, qtype)
    return _lettered(texts, qtype, strip_labels=False)


def _json_list(text: str) -> bool:
    """Whether a cell is a JSON list of options (``["甲", "乙"]``) given without ``json = true``: split on
    newlines it would be one option, on a comma pieces of JSON."""
    if not text.lstrip().startswith("["):
        return False
    try:
        return isinstance(json.loads(text), list)
    except json.JSONDecodeError:
        return False


# "0.5", "1.5 m", "12.5%": a number's decimal point, not a label "0." before the text "5" (#27 item 5).
_DECIMAL = re.compile(r"\s*[+-]?\d+[.．]\d")


def option_text(value: Any) -> str:
    """One option's text: a string, or a number (``12``); ``None`` is an empty option; anything else is refused."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise ValueError(f"expected each option as text or a number, got {describe(value)}")


def _lettered(texts: list[str], qtype: QuestionType, strip_labels: bool) -> list[Option]:
    if qtype is QuestionType.CLOZE:
        raise ValueError("cloze options must carry their labels (A. .. D. for every blank) in one column")
    if len(texts) > len(_LETTERS):
        raise ValueError(f"at most {len(_LETTERS)} options can be lettered, found {len(texts)}")
    options = []
    for i, text in enumerate(texts):
        label = str(i + 1) if qtype is QuestionType.JUDGMENT else _LETTERS[i]
        split = split_option(text) if strip_labels else None
        body = split[1] if split and split[0] == label else text
        options.append(Option(label=label, text=body))
    return options


def parse_any_answer(value: Any, qtype: QuestionType) -> list[str] | list[bool]:
    """A gold answer given as text (``"BD"``, ``"T,F"``, ``"50;0.8"``), a number, a bool or a JSON list."""
    if value is None or value == "" or value == []:
        raise ValueError("empty answer")
    items = value if isinstance(value, list) else [value]
    for item in items:
        if isinstance(item, bool) and qtype is not QuestionType.JUDGMENT:
            raise ValueError(f"expected the answer as text, got {describe(item)}")
        if not isinstance(item, (str, int, float)):
            raise ValueError(f"expected the answer as text or a list (of text or numbers), got {describe(item)}")
    if qtype is QuestionType.JUDGMENT:
        values: list[bool] = []
        for item in items:
            values.extend([item] if isinstance(item, bool) else parse_judgments(str(item).strip()))
        return values
    if not isinstance(value, list):
        return parse_answer(str(value), qtype)
    if qtype is QuestionType.FILL:
        return [str(v).strip() for v in value]
    return parse_answer(",".join(str(v) for v in value), qtype)
