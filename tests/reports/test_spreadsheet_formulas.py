"""No cell of a report's CSVs or workbook is a formula, whatever control characters lead it (#32 item 2).

Before: a knowledge-point name ``"\\x01=HYPERLINK(...)"`` passed the formula guard (it starts with
``\\x01``), then the workbook's stripping of control characters made it ``=HYPERLINK(...)``, a live
formula cell in ``report.xlsx``. The guard now runs last, on the text the file holds, and looks past
whatever leads a cell unseen. The fuzz test writes both files and reads them back with openpyxl and
Python's csv module.
"""

from __future__ import annotations

import csv
import tempfile
import unicodedata
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from k12eval.cli import app
from reports.spreadsheet import safe_cell, write_csv, write_xlsx
from tests._runs import SMALL_ANSWERS, Answer, question, small_bank, write_bank, write_run

openpyxl = pytest.importorskip("openpyxl")

LEADING = [chr(c) for c in [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)]] + [
    " ", "\u3000", "\xa0", "\ufeff", "\u200b", "\u2028", "\u202e",
]  # fmt: skip
TRIGGERS = ["=", "+", "-", "@", "\t", "\r", "＝", "＋", "－", "＠"]
PAYLOADS = ['HYPERLINK("http://x","click")', "1+1", "cmd|' /C calc'!A0", "SUM(A1:A9)", "3.5", "2e5", "a"]

cells = st.builds(
    lambda lead, trigger, payload: lead + trigger + payload,
    st.text(alphabet=st.sampled_from(LEADING), max_size=6),
    st.sampled_from(["", *TRIGGERS]),
    st.sampled_from(PAYLOADS) | st.text(max_size=12),
)


def _unseen(ch: str) -> bool:
    return ch.isspace() or unicodedata.category(ch) in {"Cc", "Cf", "Zs", "Zl", "Zp"}


def _would_run(text: str) -> bool:
    """Whether a spreadsheet could take ``text`` for a formula: OWASP's leading characters, past what is unseen."""
    if text.startswith(("\t", "\r")):
        return True
    start = 0
    while start < len(text) and _unseen(text[start]):
        start += 1
    rest = unicodedata.normalize("NFKC", text[start:]).strip()
    if rest[:1] not in ("=", "+", "-", "@"):
        return False
    try:
        float(rest.rstrip("%"))  # a signed number is no formula
    except ValueError:
        return True
    return False


@pytest.mark.slow
@settings(max_examples=80, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(cells, min_size=1, max_size=6), header=cells)
def test_no_cell_of_a_csv_or_workbook_is_a_formula(texts: list[str], header: str) -> None:
    frame = pd.DataFrame({header or "h": texts, "n": range(len(texts))})
    with tempfile.TemporaryDirectory() as folder:
        write_csv(frame, Path(folder) / "t.csv")
        write_xlsx({"t": frame}, Path(folder) / "t.xlsx")
        book = openpyxl.load_workbook(Path(folder) / "t.xlsx")
        values = [cell for row in book["t"].iter_rows() for cell in row]
        assert not [c.value for c in values if c.data_type == "f"]
        for cell in values:
            if isinstance(cell.value, str):
                assert cell.value.startswith("'") or not _would_run(cell.value), repr(cell.value)
        with (Path(folder) / "t.csv").open(encoding="utf-8-sig", newline="") as handle:
            rows = list(csv.reader(handle))
    assert len(rows) == len(texts) + 1
    for row in rows:
        for text in row:
            assert text.startswith("'") or not _would_run(text), repr(text)


@pytest.mark.parametrize(
    "text",
    [
        '\x01=HYPERLINK("http://x","click")',
        "\x0b\x1f+cmd|' /C calc'!A0",
        "\ufeff=1+1",
        "\u200b@SUM(A1)",
        "\u3000＝HYPERLINK(1)",
        " -1+1",
        "\t3",
    ],
)
def test_each_hidden_lead_is_quoted(text: str) -> None:
    assert safe_cell(text) == "'" + text


@pytest.mark.parametrize("text", ["-3.5", "+2", "1e5", "-20%", "一次函数", "a=b", "x-1"])
def test_numbers_and_plain_text_stay_as_they_are(text: str) -> None:
    assert safe_cell(text) == text


@pytest.mark.slow
def test_report_xlsx_from_a_hostile_bank_holds_no_formula(tmp_path: Path) -> None:
    bank = small_bank()
    names = ['\x01=HYPERLINK("http://x","click")', "\x1b-2+3", "\x00@SUM(1)", "\x7f=1"]
    for i, name in enumerate(names):
        bank[f"h{i}"] = question(f"h{i}", "数学", name, name + "二级")
    root = write_bank(tmp_path / "bank", list(bank.values()))
    answers = {**SMALL_ANSWERS, **{f"h{i}": Answer(False) for i in range(len(names))}}
    run = write_run(tmp_path / "run", bank, answers, model="\x02=cmd", bank=root)
    result = CliRunner().invoke(app, ["report", str(run), "--out", str(tmp_path / "out"), "--no-plots", "--xlsx"])
    assert result.exit_code == 0, result.output
    book = openpyxl.load_workbook(tmp_path / "out" / "report.xlsx")
    cells = [cell for sheet in book for row in sheet.iter_rows() for cell in row]
    assert [c.value for c in cells if c.data_type == "f"] == []
    shown = {c.value for c in cells if isinstance(c.value, str)}
    assert '\'=HYPERLINK("http://x","click")' in shown and "'=cmd" in shown
