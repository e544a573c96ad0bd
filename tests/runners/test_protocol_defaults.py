"""Each benchmark's own seed and few-shot budget where the user gives none (#16 item 10)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from runners.options import RunOptions
from runners.protocol import with_protocol_defaults
from tests.importer_helpers import FIXTURES

XIEZHI = FIXTURES / "xiezhi" / "xiezhi_mini.jsonl"
CMMLU = FIXTURES / "cmmlu"


def _options(data: Path, **given: object) -> RunOptions:
    return with_protocol_defaults(RunOptions(data=data, model="m", out=Path("unused"), **given))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("data", "given", "seed", "budget"),
    [
        (XIEZHI, {}, 42, 1024),  # Xiezhi's documented seed
        (XIEZHI, {"seed": 0}, 0, 1024),  # a seed given is kept, 0 included
        (CMMLU, {"template_set": "cmmlu"}, 0, 2048),  # CMMLU's released max_length
        (CMMLU, {"template_set": "cmmlu", "token_budget": 512}, 0, 512),
        (CMMLU, {}, 0, 1024),  # CK12's templates, CK12's budget
    ],
)
def test_defaults_follow_the_benchmark(data: Path, given: dict[str, object], seed: int, budget: int) -> None:
    options = _options(data, **given)
    assert (options.seed, options.token_budget) == (seed, budget)


def test_the_run_header_records_the_seed_and_budget_used(tmp_path: Path) -> None:
    answers = tmp_path / "answers.jsonl"
    answers.write_text("", encoding="utf-8")
    out = tmp_path / "run"
    args = [
        "run",
        str(CMMLU / "dev"),
        "-f",
        "cmmlu",
        "-m",
        "x",
        "-b",
        "replay",
        "-B",
        f"path={answers}",
        "-o",
        str(out),
    ]
    args += ["--templates", "cmmlu", "--mode", "few-shot", "--few-shot", str(CMMLU / "dev"), "--max-failures", "100%"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    header = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert header["fewshot"]["token_budget"] == 2048 and header["seed"] == 0
    xiezhi = tmp_path / "xiezhi"
    args = ["run", str(XIEZHI), "-m", "x", "-b", "replay", "-B", f"path={answers}", "-o", str(xiezhi)]
    result = CliRunner().invoke(app, [*args, "--max-failures", "100%"])
    assert result.exit_code == 0, result.output
    assert json.loads((xiezhi / "run.json").read_text(encoding="utf-8"))["seed"] == 42
