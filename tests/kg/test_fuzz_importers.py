"""Fuzzing every importer through the real CLI (``k12eval kg stats``), as issue #14 asks.

A bank is a random mix of good records and records spoiled in one known way (a wrong-typed
field, a huge integer, deep nesting, a lone surrogate, a byte that is not UTF-8, NUL, an
empty stem...), written with LF or CRLF, with or without a BOM. The invariant, per format:

* strict: exit 0 with every good record when nothing is spoiled; otherwise exit 2 and one
  stderr line naming the file, the first spoiled line and (where one is to blame) the field;
* ``--skip-invalid``: exit 0, exactly the good records imported and the spoiled ones counted;
* arbitrary bytes: exit 0 or 2, never a traceback.

Examples are derandomized so CI sees the same ones every run.
"""

from __future__ import annotations

import csv
import io
import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from k12eval.cli import app
from tests.importer_helpers import FIXTURES, ck12_record

runner = CliRunner()
FUZZ = settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])

TEXT = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\r"), max_size=30)
"""Any text but lone surrogates (spoilers add those) and lone CR (the CSV reader ends a line there)."""
WORD = st.text(st.sampled_from("abc甲乙丙123"), min_size=1, max_size=6)


@dataclass(frozen=True)
class Line:
    """One record as written: its bytes, and for a spoiled one the field the error must name."""

    data: bytes
    spoiled: bool = False
    field: str | None = None


def run(path: Path, *args: str) -> tuple[int, str, str]:
    """``kg stats --json`` on ``path``; fails the test on a traceback."""
    result = runner.invoke(app, ["kg", "stats", "--json", str(path), *args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"traceback: {result.exception!r}") from result.exception
    return result.exit_code, result.stdout, result.stderr


def error_line(err: str) -> str:
    """The one error line of a refused import (notes such as a missing Xiezhi taxonomy come as ``warning:`` lines)."""
    lines = [line for line in err.splitlines() if not line.startswith("warning: ")]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


def write(folder: Path, name: str, lines: list[bytes], crlf: bool, bom: bool) -> tuple[Path, list[int]]:
    """Write ``lines`` and return the file and each line's 1-based first physical line."""
    path = folder / name
    ending = b"\r\n" if crlf else b"\n"
    starts, number, body = [], 1, b""
    for line in lines:
        starts.append(number)
        number += line.count(b"\n") + 1
        body += line + ending
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + body)
    return path, starts


def check(path: Path, lines: list[Line], starts: list[int], args: list[str]) -> None:
    """The strict and the ``--skip-invalid`` invariants for a bank whose spoiled lines are known."""
    good = sum(not line.spoiled for line in lines)
    bad = [i for i, line in enumerate(lines) if line.spoiled]
    code, out, err = run(path, *args)
    if not bad:
        assert code == 0, err
        assert json.loads(out)["questions"] == good
    else:
        first = lines[bad[0]]
        assert code == 2, (out, err)
        error = error_line(err)
        assert error.startswith(f"error: {path}, line {starts[bad[0]]}"), (error, first)
        if first.field is not None:
            assert f"field '{first.field}'" in error, (error, first)
    code, out, err = run(path, "--skip-invalid", *args)
    assert code == 0, err
    summary = json.loads(out)
    assert (summary["questions"], summary["invalid"]) == (good, len(bad)), (summary, err, lines)


# -- JSONL: CK12, Xiezhi, mapped ---------------------------------------------------------------

BAD_VALUES = st.sampled_from([True, False, 17, 1.5, ["x"], {"a": 1}])
"""Values no text field accepts (a list ``["x"]`` is no answer letter among the options either)."""


@st.composite
def json_spoilers(draw: st.DrawFn, text_keys: tuple[str, ...], stem_key: str) -> Callable[[dict[str, Any]], Line]:
    """A way of spoiling a good record, with the field its error must name (``None``: the line itself)."""
    kind = draw(st.sampled_from(["type", "empty", "huge", "deep", "surrogate", "byte", "nul", "cut"]))
    key = draw(st.sampled_from(text_keys))
    value = draw(BAD_VALUES)
    depth = draw(st.sampled_from([65, 200, 3000]))
    at = draw(st.integers(0, 10_000))

    def spoil(record: dict[str, Any]) -> Line:
        text = json.dumps(record, ensure_ascii=False)
        if kind == "type":
            return Line(json.dumps({**record, key: value}, ensure_ascii=False).encode(), True, key)
        if kind == "empty":
            return Line(json.dumps({**record, stem_key: " \t"}, ensure_ascii=False).encode(), True, stem_key)
        if kind == "surrogate":
            return Line(json.dumps({**record, stem_key: "x\ud83d"}).encode(), True, stem_key)
        if kind == "huge":
            return Line((text[:-1] + ', "n": ' + "7" * 4400 + "}").encode(), True)
        if kind == "deep":
            return Line((text[:-1] + ', "n": ' + "[" * depth + "]" * depth + "}").encode(), True)
        data = text.encode()
        cut = at % (len(data) - 1) + 1
        insert = {"byte": b"\xff", "nul": b"\x00", "cut": b""}[kind]
        return Line(data[:cut] + insert if kind == "cut" else data[:cut] + insert + data[cut:], True)

    return spoil


@st.composite
def banks(
    draw: st.DrawFn, good: st.SearchStrategy[dict[str, Any]], spoilers: st.SearchStrategy[Any]
) -> tuple[list[Line], bool, bool]:
    """Up to 8 records, each good or spoiled, and the line ending and BOM to write them with."""
    lines = []
    for _ in range(draw(st.integers(1, 8))):
        record = draw(good)
        if draw(st.booleans()):
            lines.append(draw(spoilers)(record))
        else:
            lines.append(Line(json.dumps(record, ensure_ascii=draw(st.booleans())).encode()))
    return lines, draw(st.booleans()), draw(st.booleans())


def unique_ids(lines: list[Line], key: str) -> list[Line]:
    """Give every record its own id (``key``), so only spoilers can make a record bad."""
    out = []
    for i, line in enumerate(lines):
        try:
            record = json.loads(line.data)
        except (ValueError, RecursionError):
            out.append(line)
            continue
        if isinstance(record, dict) and not (line.spoiled and line.field == key):
            record[key] = f"id{i}"
            line = Line(json.dumps(record).encode(), line.spoiled, line.field)
        out.append(line)
    return out


@st.composite
def ck12_good(draw: st.DrawFn) -> dict[str, Any]:
    options = [f"{letter}.{draw(TEXT)}" for letter in "ABCD"]
    long = draw(st.sampled_from([0, 0, 0, 200_000]))
    return ck12_record(
        prompt="题" + draw(TEXT) + "x" * long,
        answer_option=options,
        answer=draw(st.sampled_from("ABCD")),
        analysis=draw(st.one_of(TEXT, st.none())),
        knowledge_domain=["初中", "数学", "知识点", "代数" + draw(TEXT), draw(WORD)],
    )


CK12_TEXT_KEYS = ("prompt", "answer", "analysis", "task_subject", "task_type", "difficulty")


@FUZZ
@given(banks(ck12_good(), json_spoilers(CK12_TEXT_KEYS, "prompt")))
@pytest.mark.slow
def test_ck12_jsonl(bank: tuple[list[Line], bool, bool]) -> None:
    lines, crlf, bom = bank
    lines = unique_ids(lines, "id")
    with tempfile.TemporaryDirectory() as folder:
        path, starts = write(Path(folder), "单选.jsonl", [line.data for line in lines], crlf, bom)
        check(path, lines, starts, ["--format", "ck12"])


@st.composite
def xiezhi_good(draw: st.DrawFn) -> dict[str, Any]:
    options = draw(st.lists(WORD, min_size=2, max_size=6, unique=True))
    return {
        "question": "题" + draw(TEXT),
        "labels": [draw(WORD)],
        "answer": draw(st.sampled_from(options)),
        "options": "\n".join(options),
    }


@FUZZ
@given(banks(xiezhi_good(), json_spoilers(("question", "answer"), "question")))
@pytest.mark.slow
def test_xiezhi_jsonl(bank: tuple[list[Line], bool, bool]) -> None:
    lines, crlf, bom = bank
    with tempfile.TemporaryDirectory() as folder:
        path, starts = write(Path(folder), "bank.jsonl", [line.data for line in lines], crlf, bom)
        check(path, lines, starts, ["--format", "xiezhi"])


@st.composite
def mapped_good(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "qid": "m",
        "kind": "single_choice",
        "text": "题" + draw(TEXT),
        "choices": ["o" + text for text in draw(st.lists(TEXT, min_size=2, max_size=4))],
        "gold": "A",
        "course": "数学",
        "unit": draw(WORD),
        "lang": "zh",
        "tags": draw(st.lists(TEXT, max_size=2)),
    }


@FUZZ
@given(banks(mapped_good(), json_spoilers(("text", "gold", "course", "unit", "lang"), "text")))
@pytest.mark.slow
def test_mapped_jsonl(bank: tuple[list[Line], bool, bool]) -> None:
    lines, crlf, bom = bank
    lines = unique_ids(lines, "qid")
    with tempfile.TemporaryDirectory() as folder:
        path, starts = write(Path(folder), "bank.jsonl", [line.data for line in lines], crlf, bom)
        check(path, lines, starts, ["--mapping", str(FIXTURES / "mapped" / "mapping.toml")])


# -- CSV: CMMLU, C-Eval, mapped ----------------------------------------------------------------


def csv_line(cells: list[str]) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(cells)  # "\n" here makes it quote cells holding one
    return buffer.getvalue().removesuffix("\n").encode()


@st.composite
def csv_banks(draw: st.DrawFn, header: tuple[str, ...]) -> tuple[list[Line], bool, bool]:
    """Rows under ``header`` (id, stem, A-D, answer[, more]), some spoiled, with the column their error names."""
    stem, answer = header[1], header[6]
    lines = []
    for i in range(draw(st.integers(1, 8))):
        cells = [str(i), "题" + draw(TEXT), *("o" + draw(TEXT) for _ in "ABCD"), draw(st.sampled_from("ABCD"))]
        cells += [draw(TEXT) for _ in header[7:]]
        kind = draw(st.sampled_from(["good", "good", "empty", "answer", "width", "byte"]))
        field = {"empty": stem, "answer": answer, "byte": stem}.get(kind)
        if kind == "empty":
            cells[1] = " "
        elif kind == "answer":
            cells[6] = draw(st.sampled_from(["E", "AB", "", "1"]))
        elif kind == "width":
            cells.append("x")
        if kind == "byte":
            cells[1] = "\x00MARK"
        lines.append(Line(csv_line(cells).replace(b"\x00MARK", b"\xff"), kind != "good", field))
    return lines, draw(st.booleans()), draw(st.booleans())


def check_csv(name: str, header: tuple[str, ...], bank: tuple[list[Line], bool, bool], args: list[str]) -> None:
    """Write the bank under ``header`` as ``name`` and check the invariants."""
    lines, crlf, bom = bank
    with tempfile.TemporaryDirectory() as folder:
        rows = [",".join(header).encode()] + [line.data for line in lines]
        path, starts = write(Path(folder), name, rows, crlf, bom)
        check(path, lines, starts[1:], args)


CMMLU = ("", "Question", "A", "B", "C", "D", "Answer")
CEVAL = ("id", "question", "A", "B", "C", "D", "answer", "explanation")
MAPPED = ("id", "stem", "A", "B", "C", "D", "answer")
MAPPED_CSV = 'id = "id"\ntype = { value = "单选" }\nstem = "stem"\noptions = ["A", "B", "C", "D"]\n'
MAPPED_CSV += 'answer = "answer"\nsubject = { value = "数学" }\nlevel1 = { value = "代数" }\n'


@FUZZ
@given(csv_banks(CMMLU))
@pytest.mark.slow
def test_cmmlu_csv(bank: tuple[list[Line], bool, bool]) -> None:
    check_csv("math.csv", CMMLU, bank, ["--format", "cmmlu"])


@FUZZ
@given(csv_banks(CEVAL))
@pytest.mark.slow
def test_ceval_csv(bank: tuple[list[Line], bool, bool]) -> None:
    check_csv("math_dev.csv", CEVAL, bank, ["--format", "ceval"])


@FUZZ
@given(csv_banks(MAPPED))
@pytest.mark.slow
def test_mapped_csv(bank: tuple[list[Line], bool, bool]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        mapping = Path(folder) / "m.toml"
        mapping.write_text(MAPPED_CSV, encoding="utf-8")
        check_csv("bank.csv", MAPPED, bank, ["--mapping", str(mapping)])


# -- arbitrary bytes ---------------------------------------------------------------------------


@FUZZ
@given(st.binary(max_size=400), st.sampled_from(["ck12", "xiezhi", "cmmlu", "ceval", "mapped"]))
@pytest.mark.slow
def test_arbitrary_bytes_never_trace_back(data: bytes, fmt: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        suffix = ".csv" if fmt in ("cmmlu", "ceval", "mapped") else ".jsonl"
        path = Path(folder) / f"bank_dev{suffix}"
        path.write_bytes(data)
        args = ["--mapping", str(FIXTURES / "mapped" / "mapping.toml")] if fmt == "mapped" else ["--format", fmt]
        for extra in ([], ["--skip-invalid"]):
            code, _, err = run(path, *args, *extra)
            assert code in (0, 2), err
            if code == 2:
                assert error_line(err).startswith(f"error: {path}"), err
        if fmt in ("ck12", "xiezhi"):
            # Every non-blank line is either a question or a counted problem: none is lost.
            text = data.removeprefix(b"\xef\xbb\xbf").decode("utf-8", "surrogateescape")
            lines = sum(1 for line in text.split("\n") if line.strip())
            code, out, err = run(path, *args, "--skip-invalid")
            if code == 0 and lines:
                summary = json.loads(out)
                assert summary["questions"] + summary["invalid"] == lines, (summary, err)
