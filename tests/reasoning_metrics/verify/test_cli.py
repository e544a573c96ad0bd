"""``k12eval meta-eval`` and ``k12eval diagnostics make`` through the real CLI (CliRunner)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from tests.reasoning_metrics.verify import samples

runner = CliRunner()


@pytest.mark.slow
def test_meta_eval_markdown_table(tmp_path: Path) -> None:
    data = samples.write_processbench(tmp_path / "pb.json")
    result = runner.invoke(
        app, ["meta-eval", str(data), "--format", "processbench", "--encoder", "none", "--boot", "50"]
    )
    assert result.exit_code == 0, result.output
    assert "| detector | family | AUROC |" in result.output
    assert "| roscoe.faithfulness_step | roscoe | unavailable: needs a sentence encoder" in result.output
    row = next(line for line in result.output.splitlines() if line.startswith("| arithmetic |"))
    assert "| 0.750" in row  # pb-0 is caught, pb-3 not: (1 + 0.5) / 2


def test_the_shipped_combiner_is_measured_unless_left_out(tmp_path: Path) -> None:
    data = samples.write_processbench(tmp_path / "pb.json")
    args = ["meta-eval", str(data), "--format", "processbench", "--encoder", "none", "--boot", "0"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert any(line.startswith("| combiner | k12eval | ") for line in result.output.splitlines())
    # where its figures are in-sample is said beside it
    assert "fitted on processbench-gsm8k dev" in result.output and "not held out there" in result.output
    for extra in (["--combiner", "none"], ["-d", "aggregate"]):
        result = runner.invoke(app, [*args, *extra])
        assert result.exit_code == 0, result.output
        assert not any(line.startswith("| combiner |") for line in result.output.splitlines()), extra


@pytest.mark.slow
def test_several_files_are_one_set(tmp_path: Path) -> None:
    first = samples.write_processbench(tmp_path / "a.json")
    second = samples.write_processbench(tmp_path / "b.json")
    args = ["meta-eval", f"{first},{second}", "-f", "processbench", "--encoder", "none", "--json", "--boot", "0"]
    result = runner.invoke(app, [*args, "-d", "arithmetic"])
    assert result.exit_code == 0, result.output
    one = runner.invoke(app, ["meta-eval", str(first), *args[2:], "-d", "arithmetic"])
    assert json.loads(result.output)["solutions"] == 2 * json.loads(one.output)["solutions"]
    missing = runner.invoke(app, ["meta-eval", f"{first},{tmp_path / 'nope.json'}", *args[2:]])
    assert missing.exit_code == 2 and "nope.json" in missing.output


@pytest.mark.slow
def test_meta_eval_json_and_out_file(tmp_path: Path) -> None:
    data = samples.write_processbench(tmp_path / "pb.json")
    out = tmp_path / "report.json"
    args = ["meta-eval", str(data), "-f", "processbench", "--encoder", "none", "--json", "--boot", "20"]
    result = runner.invoke(app, [*args, "-d", "arithmetic,doubt,aggregate", "--out", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert [d["name"] for d in report["detectors"]] == ["arithmetic", "doubt", "aggregate"]
    aggregate = report["detectors"][2]
    assert aggregate["auroc"] == 1.0 and aggregate["acc_error"] == 1.0 and aggregate["rule"] == "native"
    assert json.loads(out.read_text(encoding="utf-8")) == report


@pytest.mark.slow
def test_diagnostics_make_then_meta_eval(tmp_path: Path) -> None:
    source = samples.write_jsonl(tmp_path / "gsm.jsonl", samples.GSM8K_RECORDS)
    out = tmp_path / "diag.jsonl"
    result = runner.invoke(app, ["diagnostics", "make", str(source), "--out", str(out), "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert "wrote" in result.output and "original 3" in result.output
    first = out.read_text(encoding="utf-8")
    assert runner.invoke(app, ["diagnostics", "make", str(source), "--out", str(out), "--seed", "3"]).exit_code == 0
    assert out.read_text(encoding="utf-8") == first
    args = ["meta-eval", str(out), "--format", "chains", "--encoder", "none", "--boot", "20"]
    result = runner.invoke(app, [*args, "-d", "arithmetic,aggregate", "--by", "kind"])
    assert result.exit_code == 0, result.output
    assert "step AUROC" in result.output and "## By kind" in result.output
    rows = {line.split(" | ")[0].strip("| "): line for line in result.output.splitlines() if line.startswith("| ")}
    assert set(rows) >= {"number", "operation", "shuffle"}
    # a changed operation in "a op b = c" is a false calculation: the verifier catches it in its step
    operation = rows["operation"].split(" | ")
    assert operation[1].startswith("1.00") and " / 3/3 = 100 % (44-100 %)" in operation[1], operation[1]


def test_diagnostics_make_chinese_question_bank_with_kinds(tmp_path: Path) -> None:
    bank = samples.write_ck12(tmp_path / "ck12")
    out = tmp_path / "zh.jsonl"
    result = runner.invoke(app, ["diagnostics", "make", str(bank), "-o", str(out), "--kinds", "negate,number"])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert {r["meta"]["kind"] for r in records} == {"original", "negate", "number"}
    assert all(r["lang"] == "zh" for r in records)


@pytest.mark.slow
def test_user_errors_print_one_line_and_exit_2(tmp_path: Path) -> None:
    data = samples.write_processbench(tmp_path / "pb.json")
    cases = [
        ["meta-eval", str(tmp_path / "missing.json"), "--format", "processbench"],
        ["meta-eval", str(data), "--format", "nope", "--encoder", "none"],
        ["meta-eval", str(data), "--format", "processbench", "-d", "magic", "--encoder", "none"],
        ["meta-eval", str(data), "--format", "processbench", "--encoder", str(tmp_path / "no-model")],
        ["diagnostics", "make", str(data), "--out", str(tmp_path / "x.jsonl"), "--kinds", "explode"],
    ]
    for args in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert result.output.startswith("error: ") and "Traceback" not in result.output


@pytest.mark.slow
def test_help_does_not_import_heavy_libraries() -> None:
    heavy = "('torch', 'transformers', 'sentence_transformers', 'sympy')"
    code = f"import sys; from k12eval.cli import app; print(sorted(m for m in {heavy} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
