"""`k12eval run` end to end on a tiny real model: records, resume, kill -9, shards and merge."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from runners.store import RunStore
from tests._cli import cli_ok
from tests.conftest import REPO

SAMPLE = REPO / "data" / "sample"
DEV = REPO / "data" / "sample_dev"
pytestmark = pytest.mark.slow


def test_run_writes_one_record_per_question_and_resumes(tiny_qwen2: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    common = ["--model", str(tiny_qwen2), "--out", str(out), "--limit", "5", "--max-tokens", "8"]
    cli_ok("run", str(SAMPLE), *common)
    store = RunStore(out)
    header = store.read_header()
    assert header.backend == "transformers" and header.mode == "zero-shot"
    records = list(store.iter_records())
    assert len(records) == 5
    assert all(r.nodes["question"] == f"q:{r.question_id}" for r in records)
    assert all(r.parse_status in ("ok", "unparsed") and r.output is not None for r in records)
    before = store.records_path.read_bytes()
    cli_ok("run", str(SAMPLE), *common)  # nothing left to do
    assert store.records_path.read_bytes() == before
    result = CliRunner().invoke(app, ["run", str(SAMPLE), *common[:-2], "--max-tokens", "9"])
    assert result.exit_code == 2 and "holds a different run" in result.output


def test_few_shot_needs_a_dev_split_and_uses_it(tiny_qwen2: Path, tmp_path: Path) -> None:
    out = tmp_path / "fs"
    result = CliRunner().invoke(
        app, ["run", str(SAMPLE), "--model", str(tiny_qwen2), "--out", str(out), "--mode", "few-shot"]
    )
    assert result.exit_code == 2 and "--few-shot" in result.output
    cli_ok(
        "run", str(SAMPLE), "--model", str(tiny_qwen2), "--out", str(out), "--mode", "few-shot", "--few-shot",
        str(DEV), "--limit", "3", "--max-tokens", "4", "--types", "single_choice",
    )  # fmt: skip
    prompt = next(RunStore(out).iter_records()).prompt
    text = prompt if isinstance(prompt, str) else prompt[-1]["content"]
    assert "例1" in text or "Example 1" in text


def test_rank_options_scores_every_option(tiny_qwen2: Path, tmp_path: Path) -> None:
    out = tmp_path / "rank"
    cli_ok(
        "run", str(SAMPLE), "--model", str(tiny_qwen2), "--out", str(out), "--strategy", "rank-options", "--types",
        "single_choice", "--limit", "3",
    )  # fmt: skip
    for record in RunStore(out).iter_records():
        assert record.option_scores is not None and len(record.option_scores) >= 4
        assert 1 <= (record.gold_rank or 0) <= len(record.option_scores)
        assert record.correct == (record.gold_rank == 1)
        assert record.latency_s is not None and record.latency_s > 0
        assert (record.completion_tokens or 0) >= len(record.option_scores)  # every option has a token or more


def test_kill_9_then_resume_loses_nothing_and_duplicates_nothing(tiny_qwen2: Path, tmp_path: Path) -> None:
    out = tmp_path / "killed"
    cmd = [
        sys.executable,
        "-m",
        "k12eval",
        "run",
        str(SAMPLE),
        "--model",
        str(tiny_qwen2),
        "--out",
        str(out),
        "--limit",
        "12",
        "--batch-size",
        "1",
        "--max-tokens",
        "16",
    ]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    records = out / "records.jsonl"
    # No clock: wait for three answers on disk (or the run's end, on a machine fast enough to finish first).
    while proc.poll() is None and not (records.exists() and records.read_bytes().count(b"\n") >= 3):
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    written = records.read_bytes()
    complete = written[: written.rfind(b"\n") + 1]
    assert complete.count(b"\n") >= 3
    subprocess.run(cmd, cwd=REPO, env=env, check=True, capture_output=True)
    after = records.read_bytes()
    assert after.startswith(complete)  # nothing already written was rewritten
    ids = [json.loads(line)["question_id"] for line in after.decode("utf-8").splitlines()]
    assert len(ids) == 12 and len(set(ids)) == 12


def test_shards_merge_into_the_whole_run(tiny_qwen2: Path, tmp_path: Path) -> None:
    common = ["--model", str(tiny_qwen2), "--limit", "6", "--max-tokens", "4"]
    cli_ok("run", str(SAMPLE), *common, "--out", str(tmp_path / "s1"), "--shard", "1/2")
    cli_ok("run", str(SAMPLE), *common, "--out", str(tmp_path / "s2"), "--shard", "2/2")
    result = CliRunner().invoke(
        app, ["merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--out", str(tmp_path / "m")]
    )
    assert result.exit_code == 0, result.output
    assert len(RunStore(tmp_path / "m").done_ids()) == 6
