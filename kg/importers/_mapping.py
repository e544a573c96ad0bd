"""The mapping file of the ``mapped`` format: which column of your JSONL / CSV is which field.

A TOML file, one key per field. A value is a column name (``stem = "题目"``), a
constant for every row (``subject = { value = "物理" }``) or, for ``options``,
a list of columns (``["A", "B", "C", "D"]``) or one column holding all options
(``{ column = "choices", separator = "|" }``, or ``{ column = "choices", json = true }``
for a JSON list). ``extra`` lists columns kept as they are in ``extra``. See
docs/importers.md ("Bring your own question bank").
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.errors import Problem
from kg.records import QuestionType, Stage

FIELDS = (
    "id",
    "source",
    "type",
    "stem",
    "options",
    "answer",
    "analysis",
    "subject",
    "group",
    "category",
    "level1",
    "level2",
    "stage",
    "difficulty",
    "semester",
    "language",
    "variant",
)
REQUIRED = ("type", "stem", "answer", "subject", "level1")
_TOML_LINE = re.compile(r"at line (\d+)")


@dataclass(frozen=True)
class Column:
    """Take the field from this column (CSV) or key (JSONL)."""

    name: str


@dataclass(frozen=True)
class Constant:
    """The same value for every row."""

    value: Any


@dataclass(frozen=True)
class OptionColumns:
    """Options spread over columns (one option each) or held in one column."""

    columns: tuple[str, ...]
    """One column per option, in order; or the single column holding them all."""
    separator: str | None = None
    """For one column: the separator between options (default: a newline)."""
    json: bool = False
    """For one column: the cell is a JSON list of options."""

    @property
    def single(self) -> bool:
        """Whether all options sit in one column."""
        return self.separator is not None or self.json or len(self.columns) == 1


Source = Column | Constant


@dataclass(frozen=True)
class Mapping:
    """A parsed mapping file."""

    path: Path
    fields: dict[str, Source]
    options: OptionColumns | None = None
    extra: tuple[str, ...] = ()
    columns: dict[str, str] = field(default_factory=dict)
    """Every column the mapping reads -> the field it feeds (for messages)."""


def load_mapping(path: Path) -> Mapping | Problem:
    """Read and check a mapping file; a :class:`Problem` names the key at fault."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except OSError as exc:
        return Problem(path, None, None, f"cannot read the mapping file: {exc.strerror}")
    except UnicodeDecodeError as exc:
        return Problem(path, None, None, f"the mapping file is not UTF-8 text ({exc.reason})")
    except tomllib.TOMLDecodeError as exc:
        match = _TOML_LINE.search(str(exc))
        return Problem(path, int(match.group(1)) if match else None, None, f"not valid TOML: {exc}")
    return parse_mapping(raw, path)


def parse_mapping(raw: dict[str, Any], path: Path) -> Mapping | Problem:
    """Check the keys and values of a mapping already read from TOML."""

    def problem(key: str, message: str) -> Problem:
        return Problem(path, None, key, message)

    unknown = [k for k in raw if k not in FIELDS and k != "extra"]
    if unknown:
        return problem(unknown[0], f"unknown key; the fields are {', '.join(FIELDS)} and extra")
    missing = [k for k in REQUIRED if k not in raw]
    if missing:
        return problem(missing[0], "required: say which column holds it, or give { value = ... } for all rows")
    fields: dict[str, Source] = {}
    options: OptionColumns | None = None
    for key, value in raw.items():
        if key == "extra":
            continue
        if key == "options":
            parsed_options = _options(value)
            if isinstance(parsed_options, str):
                return problem(key, parsed_options)
            options = parsed_options
            continue
        source = _source(value)
        if isinstance(source, str):
            return problem(key, source)
        if isinstance(source, Constant):
            error = check_constant(key, source.value)
            if error:
                return problem(key, error)
        fields[key] = source
    extra = raw.get("extra", [])
    if not isinstance(extra, list) or not all(isinstance(c, str) and c for c in extra):
        return problem("extra", 'expected a list of column names, e.g. extra = ["来源", "年份"]')
    columns = {s.name: k for k, s in fields.items() if isinstance(s, Column)}
    if options is not None:
        columns.update({c: "options" for c in options.columns})
    columns.update({c: "extra" for c in extra})
    return Mapping(path=path, fields=fields, options=options, extra=tuple(extra), columns=columns)


def _source(value: Any) -> Source | str:
    if isinstance(value, str) and value:
        return Column(value)
    if isinstance(value, dict) and set(value) == {"value"}:
        return Constant(value["value"])
    if isinstance(value, dict) and set(value) == {"column"} and isinstance(value["column"], str):
        return Column(value["column"])
    return 'expected a column name ("题目") or a constant ({ value = "物理" })'


def _options(value: Any) -> OptionColumns | str:
    if isinstance(value, str) and value:
        return OptionColumns((value,))
    if isinstance(value, list) and len(value) >= 2 and all(isinstance(c, str) and c for c in value):
        return OptionColumns(tuple(value))
    if (
        isinstance(value, dict)
        and isinstance(value.get("column"), str)
        and set(value) <= {"column", "separator", "json"}
    ):
        separator, as_json = value.get("separator"), value.get("json", False)
        if separator is not None and (not isinstance(separator, str) or not separator):
            return "separator must be a non-empty string"
        if not isinstance(as_json, bool) or (as_json and separator is not None):
            return "give either separator or json = true, not both"
        return OptionColumns((value["column"],), separator=separator, json=as_json)
    return (
        'expected a list of columns (["A", "B", "C", "D"]), one column ("choices"), '
        'or { column = "choices", separator = "|" } / { column = "choices", json = true }'
    )


def check_constant(key: str, value: Any) -> str | None:
    """Why a constant is not valid for ``key``, or ``None``."""
    if key in ("type", "stage", "language") and not isinstance(value, str):
        return f"expected a string, got {value!r}"
    try:
        if key == "type":
            parse_type(value)
        elif key == "stage":
            parse_stage(value)
        elif key == "language" and value not in ("zh", "en"):
            return "expected zh or en"
    except ValueError as exc:
        return str(exc)
    if key in ("answer", "options", "stem", "id"):
        return f"{key} differs from row to row: name its column"
    return None


_TYPE_NAMES = {
    "单项选择": QuestionType.SINGLE,
    "多项选择": QuestionType.MULTIPLE,
    "不定项选择": QuestionType.MULTIPLE,  # one or more letters right, as GAOKAO-Bench's physics
    "是非": QuestionType.JUDGMENT,
    "对错": QuestionType.JUDGMENT,
}
"""The exam papers' full names of the types, beside CK12's short ones (单选 ...) that QuestionType reads."""
_GRADES = {
    **{f"{n}年级": Stage.PRIMARY for n in "一二三四五六"},
    **{f"{n}年级": Stage.MIDDLE for n in "七八九"},
    **{f"初{n}": Stage.MIDDLE for n in "一二三四"},  # 初四: the last year where middle school has four (五四制)
    **{f"高{n}": Stage.HIGH for n in "一二三"},
}
_SCHOOLS = {"小学": Stage.PRIMARY, "初中": Stage.MIDDLE, "高中": Stage.HIGH}
_TERM = re.compile(r"\s*(?:[上下](?:册|学期)?|第[一二]学期)$")
"""A textbook's volume or a term after the grade (七年级上册, 高一下学期): the grade says the stage."""
_DIGITS = "一二三四五六七八九"
_NUMERALS = str.maketrans("123456789", _DIGITS)


def parse_type(value: str) -> QuestionType:
    """A question type from its English value, enum name or Chinese name (``单选`` / ``单选题`` / ``单项选择题``)."""
    text = value.strip()
    base = text.removesuffix("题")
    for name in (text, base):
        try:
            return QuestionType.parse(name)
        except ValueError:
            pass
    if base in _TYPE_NAMES:
        return _TYPE_NAMES[base]
    if base == "选择":
        raise ValueError(f"{value!r} does not say single or multiple choice: write 单选 or 多选")
    raise ValueError(
        f"unknown question type {value!r}; expected 单选 多选 判断 填空 排序 完形填空 (or 单项选择题 ...), "
        f"or one of {', '.join(m.value for m in QuestionType)}"
    )


def parse_stage(value: str) -> Stage:
    """A school stage from 小学 / 初中 / 高中 (or primary ...), or a grade: 七年级, 初二, 高三, as textbooks also
    write them (七年级上册, 高一下学期, 初中二年级, 7年级)."""
    text = value.strip()
    grade = _TERM.sub("", unicodedata.normalize("NFKC", text).translate(_NUMERALS))
    school = _SCHOOLS.get(grade[:2]) if len(grade) == 5 and grade[2] in _DIGITS and grade.endswith("年级") else None
    found = school or _GRADES.get(grade) or _GRADES.get(grade.removesuffix("年级"))
    if found:
        return found
    for name in (text, grade):
        try:
            return Stage.parse(name)
        except ValueError:
            pass
    raise ValueError(
        f"unknown school stage {value!r}; expected 小学, 初中 or 高中 (or a grade: 七年级, 初二, 高三, 七年级上册)"
    )
