"""Teachers' spreadsheets: CSVs Excel reads as UTF-8 (a BOM), report.xlsx, and a report without optional packages."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from reports import write_report
from reports.aggregate import weakest_points
from tests._runs import SMALL_ANSWERS, Answer, question, small_bank, write_bank, write_run

BOM = b"\xef\xbb\xbf"


def _small_run(tmp_path: Path) -> Path:
    bank = small_bank()
    root = write_bank(tmp_path / "bank", list(bank.values()))
    return write_run(tmp_path / "run", bank, SMALL_ANSWERS, bank=root)


def test_every_csv_starts_with_a_bom_and_reads_back_in_chinese(tmp_path: Path) -> None:
    write_report([_small_run(tmp_path)], tmp_path / "out", plots=False)
    out = tmp_path / "out"
    csvs = [out / "nodes.csv", out / "questions.csv", *sorted((out / "tables").glob("*.csv"))]
    assert len(csvs) > 2
    for path in csvs:
        assert path.read_bytes().startswith(BOM), path.name
    # Excel-style reading: the BOM says UTF-8; the header's first cell is clean and the names are Chinese.
    with (out / "nodes.csv").open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert next(iter(rows[0])) == "run"
    assert {"数学", "一次函数"} <= {row["name"] for row in rows}
    assert pd.read_csv(out / "nodes.csv").columns[0] == "run"  # pandas skips the mark too


def test_cli_report_xlsx_holds_the_node_table_and_weakest_points(tmp_path: Path) -> None:
    pytest.importorskip("openpyxl")
    bank = small_bank()
    bank["q9"] = question("q9", "数学", "函数", "=HYPERLINK(1)")  # untrusted name: stays text in the workbook
    root = write_bank(tmp_path / "bank", list(bank.values()))
    run = write_run(tmp_path / "run", bank, {**SMALL_ANSWERS, "q9": Answer(False)}, bank=root)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["report", str(run), "--out", str(out), "--no-plots", "--xlsx"])
    assert result.exit_code == 0, result.output
    sheets = pd.read_excel(out / "report.xlsx", sheet_name=None)
    assert list(sheets) == ["nodes", "weakest"]
    nodes = pd.read_parquet(out / "nodes.parquet")
    assert len(sheets["nodes"]) == len(nodes)
    assert sheets["nodes"]["acc_micro"].sum() == pytest.approx(nodes["acc_micro"].sum())
    weakest = weakest_points(nodes, top=10)
    assert list(sheets["weakest"]["node"]) == list(weakest["node"])
    assert "'=HYPERLINK(1)" in set(sheets["nodes"]["name"])

    import openpyxl

    cells = [c for row in openpyxl.load_workbook(out / "report.xlsx")["nodes"].iter_rows() for c in row]
    assert not any(c.data_type == "f" for c in cells)  # no formula cells


@pytest.mark.slow
def test_cli_report_xlsx_strips_characters_a_workbook_cannot_hold(tmp_path: Path) -> None:
    """A vertical tab in a knowledge point, a control character in a model name (#28 item 5)."""
    pytest.importorskip("openpyxl")
    bank = small_bank()
    bank["q9"] = question("q9", "数学", "函数", "一次\x0b函数\x1f图像")
    root = write_bank(tmp_path / "bank", list(bank.values()))
    run = write_run(tmp_path / "run", bank, {**SMALL_ANSWERS, "q9": Answer(False)}, model="模型\x01甲", bank=root)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["report", str(run), "--out", str(out), "--no-plots", "--xlsx"])
    assert result.exit_code == 0, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    sheets = pd.read_excel(out / "report.xlsx", sheet_name=None)
    assert "一次函数图像" in set(sheets["nodes"]["name"])
    assert set(sheets["nodes"]["model"]) == {"模型甲"}
    # The CSV keeps the text as it was: only the workbook, which cannot hold it, loses the characters.
    assert "一次\x0b函数\x1f图像" in set(pd.read_csv(out / "nodes.csv")["name"])


def test_without_openpyxl_xlsx_is_a_one_line_hint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openpyxl", None)  # import fails, find_spec says missing
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["report", str(_small_run(tmp_path)), "--out", str(out), "--no-plots", "--xlsx"])
    assert result.exit_code == 0, result.output
    hints = [line for line in result.output.splitlines() if line.startswith("warning:")]
    assert hints == ["warning: openpyxl is not installed: no report.xlsx; install it with: pip install 'k12eval[xlsx]'"]
    assert not (out / "report.xlsx").exists() and (out / "index.html").is_file()


@pytest.mark.slow
def test_report_without_pyarrow_or_matplotlib_leaves_their_files_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pandas already chose its string type with pyarrow here; only the report's own check is made to miss them.
    monkeypatch.setattr("reports.writer.installed", lambda module: module not in ("pyarrow", "matplotlib"))
    result = write_report([_small_run(tmp_path)], tmp_path / "out")
    assert not any(name.endswith((".parquet", ".png")) for name in result.files)
    assert {"nodes.csv", "questions.csv", "index.html", "summary.json"} <= set(result.files)
    assert any("k12eval[parquet]" in w for w in result.warnings)
    assert any("k12eval[plots]" in w for w in result.warnings)
