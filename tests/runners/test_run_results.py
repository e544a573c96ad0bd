"""`k12eval run` in its users' scripts (#17): exit status on failures, summary.json, progress on stderr.

Against the real OpenAI-protocol test server, answering from a scripted backend.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from runners.backends.base import GenerationRequest, GenerationResult
from runners.run import identity_options
from runners.store import RunStore
from runners.summary import FailureLimit, RunResults, redact_command
from runners.testing.openai_server import Faults, OpenAIServer
from tests._runs import question, write_bank
from tests.scripted import ScriptedBackend

REPO = Path(__file__).resolve().parents[2]
QUESTIONS = [
    question("q0", "数学", "函数", "一次函数", stem="第 0 题：下列函数中是一次函数的是"),
    question("q1", "数学", "函数", "一次函数", stem="第 1 题：坏题，下列函数中是一次函数的是"),
    question("q2", "物理", "力学", "浮力", stem="第 2 题：坏题，浮力的方向是"),
    question("q3", "物理", "力学", "浮力", stem="第 3 题：坏题，浮力的大小是"),
    question("q4", "数学", "几何", "三角形", "multiple_choice", answer=["A", "C"], stem="第 4 题：下列说法正确的有"),
]
BAD = "坏题"
"""In the stems of q1, q2, q3: the server fails those requests."""


class CountingBackend(ScriptedBackend):
    """A scripted backend that reports its tokens (one per character) and, if given, a chain of thought."""

    def __init__(self, answer: str, reasoning: str | None = None) -> None:
        super().__init__(answer)
        self.reasoning = reasoning

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        results = super().generate(requests)
        for result in results:
            result.prompt_tokens, result.completion_tokens = 10, sum(map(len, result.texts))
            result.reasoning = self.reasoning
        return results


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    return write_bank(tmp_path / "bank", QUESTIONS)


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[OpenAIServer] = []

    def start(faults: Faults | None = None, text: str = "正确答案是：A") -> OpenAIServer:
        server = OpenAIServer(CountingBackend(text), faults or Faults()).start()  # type: ignore[arg-type]
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def _openai(bank: Path, out: Path, server: OpenAIServer, *extra: str) -> Any:
    args = ["run", str(bank), "-m", "scripted", "-b", "openai", "-B", f"base_url={server.base_url}",
            "-B", "backoff_s=0.01", "-B", "max_retries=1", "-o", str(out), *extra]  # fmt: skip
    argv = sys.argv
    sys.argv = ["k12eval", *args]  # what summary.json records as the command
    try:
        return CliRunner().invoke(app, args, env={"COLUMNS": "160"})
    finally:
        sys.argv = argv


def _last_line(output: str) -> str:
    return output.strip().splitlines()[-1]


# Item 1: failures exit non-zero


def test_a_run_whose_every_request_failed_exits_1_and_says_so_last(bank: Path, tmp_path: Path, serve: Any) -> None:
    server = serve(Faults(fail_marker="第"))  # in every stem
    result = _openai(bank, tmp_path / "run", server)
    assert result.exit_code == 1, result.output
    assert _last_line(result.output).startswith("error: 5 of 5 question(s) failed (--max-failures 0); ")
    assert "--retry-failed" in _last_line(result.output)
    assert (tmp_path / "run" / "summary.json").is_file()  # the numbers are written all the same


@pytest.mark.parametrize(
    ("limit", "status"),
    [("100%", 0), ("60%", 0), ("3", 0), ("2", 1), ("59%", 1), ("0", 1)],
)
def test_max_failures_tolerates_a_count_or_a_share(
    limit: str, status: int, bank: Path, tmp_path: Path, serve: Any
) -> None:
    server = serve(Faults(fail_marker=BAD))  # 3 of 5 fail
    result = _openai(bank, tmp_path / "run", server, "--max-failures", limit)
    assert result.exit_code == status, result.output
    assert "3 of 5 question(s) failed" in _last_line(result.output)
    assert _last_line(result.output).startswith("warning:" if status == 0 else "error:")


def test_a_run_without_failures_exits_0_and_says_nothing_about_them(bank: Path, tmp_path: Path, serve: Any) -> None:
    result = _openai(bank, tmp_path / "run", serve())
    assert result.exit_code == 0, result.output
    assert "failed (" not in result.output


@pytest.mark.parametrize("text", ["x", "-1", "101%", "5%%", ""])
def test_a_bad_max_failures_is_bad_input(text: str, bank: Path, tmp_path: Path, serve: Any) -> None:
    result = _openai(bank, tmp_path / "run", serve(), "--max-failures", text)
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"error: --max-failures {text!r}: expected a count")
    assert not (tmp_path / "run").exists()  # refused before anything is asked


def test_failure_limit_counts_and_shares() -> None:
    assert FailureLimit.parse("2").allows(2, 10) and not FailureLimit.parse("2").allows(3, 10)
    assert FailureLimit.parse("25%").allows(1, 4) and not FailureLimit.parse("25%").allows(2, 4)
    assert str(FailureLimit.parse(" 5% ")) == "5%"


# Item 2: summary.json


def test_summary_json_holds_the_runs_numbers(bank: Path, tmp_path: Path, serve: Any) -> None:
    server = serve(Faults(fail_marker=BAD), text="正确答案是：A")
    out = tmp_path / "run"
    secret = ["-B", "api_key=sk-abcdef123456"]
    result = _openai(bank, out, server, *secret, "--max-failures", "3")
    assert result.exit_code == 0, result.output
    text = (out / "summary.json").read_text(encoding="utf-8")
    summary = RunResults.model_validate_json(text)
    header = RunStore(out).read_header()
    assert summary.version == 1 and (summary.model, summary.backend, summary.mode) == (
        "scripted",
        "openai",
        "zero-shot",
    )
    assert summary.questions == 5 and summary.status == {"ok": 2, "unparsed": 0, "failed": 3, "skipped": 0}
    assert summary.failures == 3
    # q0 (single, gold A) is right, q4 (multiple, gold AC) answered A is wrong; the 3 failed are not scored
    assert (summary.all.scored, summary.all.correct, summary.all.accuracy) == (2, 1, 0.5)
    assert summary.by_type["single_choice"].failed == 3 and summary.by_type["single_choice"].accuracy == 1.0
    assert summary.by_type["multiple_choice"].accuracy == 0.0
    assert set(summary.by_subject) == {"数学", "物理"}
    assert summary.by_subject["物理"].failed == 2 and summary.by_subject["物理"].accuracy is None
    assert summary.session.retries == 3  # each failed request was tried twice (max_retries=1)
    assert summary.template_hash == header.template_hash and summary.packages == header.packages
    assert summary.run_started_at == header.started_at
    assert summary.session.started_at <= summary.session.ended_at and summary.session.wall_s > 0
    assert (summary.session.new, summary.session.resumed) == (5, 0)
    assert "sk-abcdef" not in text and "api_key=***" in summary.session.command
    assert summary.session.command[:3] == ["k12eval", "run", str(bank)]
    assert (summary.prompt_tokens, summary.completion_tokens) == (20, 2 * len("正确答案是：A"))  # 2 answered


def test_summary_json_after_a_killed_run_resumed_covers_every_record(bank: Path, tmp_path: Path, serve: Any) -> None:
    server = serve()
    out = tmp_path / "run"
    assert _openai(bank, out, server).exit_code == 0
    records = out / "records.jsonl"
    lines = records.read_text(encoding="utf-8").splitlines(keepends=True)
    records.write_text("".join(lines[:2]) + lines[2][:30], encoding="utf-8")  # killed mid-write
    (out / "summary.json").unlink()  # a killed session writes none
    again = _openai(bank, out, server)
    assert again.exit_code == 0, again.output
    summary = RunResults.model_validate_json((out / "summary.json").read_text(encoding="utf-8"))
    assert summary.questions == 5 and summary.status["ok"] == 5 and summary.all.n == 5
    assert (summary.session.new, summary.session.resumed) == (3, 2)
    assert summary.completion_tokens == sum(r.completion_tokens or 0 for r in RunStore(out).records()) > 0


def test_command_lines_lose_their_secrets() -> None:
    argv = ["k12eval", "run", "-B", "api_key=sk-123456", "--backend-option=token=abc", "--api-key", "xyz",
            "-B", "max_tokens=5", "--max-tokens", "64", "Bearer abcdef"]  # fmt: skip
    assert redact_command(argv) == ["k12eval", "run", "-B", "api_key=***", "--backend-option=token=***",
                                    "--api-key", "***", "-B", "max_tokens=5", "--max-tokens", "64", "***"]  # fmt: skip
    # A password in the base URL (summary.json's session.command): it was kept whole.
    url = ["-B", "base_url=https://me:口令pw@api.example.cn/v1", "-B", "base_url=http://127.0.0.1:8000/v1"]
    assert redact_command(url) == ["-B", "base_url=https://***@api.example.cn/v1", *url[2:]]
    assert identity_options({"base_url": url[1].split("=", 1)[1], "api_key": "x"}) == {
        "base_url": "https://***@api.example.cn/v1"
    }


# Item 3: progress on stderr, only the summary on stdout


def test_a_redirected_log_shows_progress_during_the_run_and_stdout_only_the_json(
    bank: Path, tmp_path: Path, serve: Any
) -> None:
    # Each prompt's first attempt gets 429, then an answer; after two answers the server holds the run.
    server = serve(Faults(flaky=1, hold_after=2))
    out = tmp_path / "run"
    log, stdout = tmp_path / "stderr.log", tmp_path / "stdout.txt"
    command = [sys.executable, "-m", "k12eval", "run", str(bank), "-m", "scripted", "-b", "openai",
               "-B", f"base_url={server.base_url}", "-B", "timeout_s=3600", "-o", str(out), "--batch-size", "1", "--json"]  # fmt: skip
    with log.open("w") as err, stdout.open("w") as std:
        process = subprocess.Popen(command, cwd=REPO, stdout=std, stderr=err)
        try:
            server.wait_until_held(alive=lambda: process.poll() is None)
            seen_while_running = log.read_text(encoding="utf-8")
        finally:
            server.release()
            assert process.wait() == 0, log.read_text(encoding="utf-8")
    assert "batch 1/5: asking 1 question(s)" in seen_while_running
    assert "2/5 done" in seen_while_running and "tokens/s" in seen_while_running
    assert "retry 1/5 in 0.0 s: HTTP 429: rate limited" in seen_while_running  # each retry, one line
    printed = json.loads(stdout.read_text(encoding="utf-8"))  # stdout is the summary and nothing else
    assert printed == json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert printed["session"]["retries"] == 5 and printed["status"]["ok"] == 5
    assert "\x1b[" not in log.read_text(encoding="utf-8")  # no bar drawn into a file


def test_a_long_batch_over_http_says_how_far_it_is(bank: Path, tmp_path: Path, serve: Any) -> None:
    server = serve(Faults(delay_s=0.2))
    result = _openai(bank, tmp_path / "run", server, "-B", "concurrency=1", "-B", "progress_every_s=0.1")
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if "requests of this batch answered" in line]
    assert lines and all(re.search(r" [1-4]/5 requests of this batch answered \([0-9.]+/s\)$", x) for x in lines)


def test_quiet_shows_no_progress(bank: Path, tmp_path: Path, serve: Any) -> None:
    result = _openai(bank, tmp_path / "run", serve(), "-q")
    assert result.exit_code == 0, result.output
    assert "batch" not in result.output and "to answer" not in result.output
