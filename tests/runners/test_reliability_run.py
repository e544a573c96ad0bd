"""`k12eval run` under what a server, a disk or a second process can do to it (#14).

A lone surrogate in an answer, two runs on one folder, a resume with other options,
failed requests asked again, a full disk: each ends in a finished run or one
``error:`` line with status 2, and a resume that works.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from runners.store import RunStore
from runners.testing.openai_server import Faults, OpenAIServer
from tests._runs import question, write_bank
from tests.scripted import ScriptedBackend

REPO = Path(__file__).resolve().parents[2]
QUESTIONS = [
    question(f"q{i}", "数学", "函数", "一次函数", stem=f"第 {i} 题：下列函数中是一次函数的是") for i in range(5)
]


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    return write_bank(tmp_path / "bank", QUESTIONS)


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[OpenAIServer] = []

    def start(text: str = "正确答案是：A", faults: Faults | None = None) -> OpenAIServer:
        server = OpenAIServer(ScriptedBackend(text), faults or Faults()).start()  # type: ignore[arg-type]
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def _run(*args: str) -> Any:
    return CliRunner().invoke(app, ["run", *args], env={"COLUMNS": "160"})


def _openai(bank: Path, out: Path, server: OpenAIServer, *extra: str) -> Any:
    return _run(str(bank), "-m", "scripted", "-b", "openai", "-B", f"base_url={server.base_url}",
                "-B", "backoff_s=0.01", "-o", str(out), *extra)  # fmt: skip


def _error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("error:")]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


# Finding 2: a lone surrogate in a backend's answer


def test_a_lone_surrogate_from_a_real_server_is_recorded_and_the_run_resumes(
    bank: Path, tmp_path: Path, serve: Any
) -> None:
    server = serve("正确答案是：A \ud83d")
    out = tmp_path / "run"
    result = _openai(bank, out, server)
    assert result.exit_code == 0, result.output
    records = _lines(out / "records.jsonl")
    assert len(records) == 5
    assert all(r["output"] == "正确答案是：A \ufffd" and r["parse_status"] == "ok" for r in records)
    again = _openai(bank, out, server)
    assert again.exit_code == 0, again.output
    assert "0 new answer(s) this time, 5 already" in again.output


def test_lone_surrogates_become_replacement_characters_and_pairs_survive() -> None:
    from runners.backends import clean_text

    assert clean_text("a\ud83db") == "a\ufffdb"
    assert clean_text("\ude00\ud83d") == "\ufffd\ufffd"
    assert clean_text("\ud83d\ude00") == "\U0001f600"  # a pair held as two code points is one character
    assert clean_text("普通的 text 😀") == "普通的 text 😀"


# Finding 5: two commands on one run folder


@pytest.mark.slow
def test_a_second_run_on_a_folder_in_use_is_refused_with_the_holders_pid(
    bank: Path, tmp_path: Path, serve: Any
) -> None:
    server = serve(faults=Faults(hold_after=1))  # the first run answers one question, then waits for the test
    out = tmp_path / "run"
    command = [sys.executable, "-m", "k12eval", "run", str(bank), "-m", "scripted", "-b", "openai",
               "-B", f"base_url={server.base_url}", "-B", "timeout_s=3600", "-o", str(out), "--batch-size", "1"]  # fmt: skip
    first = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        server.wait_until_held(alive=lambda: first.poll() is None)  # it holds the folder's lock now
        second = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    finally:
        server.release()
        first.communicate()
    assert first.returncode == 0
    assert second.returncode == 2, second.stderr
    assert second.stderr.splitlines() == [
        f"error: {out}: in use by another k12eval command (pid {first.pid}); "
        "wait for it to finish or choose another output"
    ]
    ids = [r["question_id"] for r in _lines(out / "records.jsonl")]
    assert sorted(ids) == [q.id for q in QUESTIONS]  # no duplicates
    assert not list(out.glob("*.tmp"))
    third = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    assert third.returncode == 0, third.stderr  # the lock went with its holder


# Finding 6: everything that changes an answer is part of the run's identity


@pytest.fixture
def answers(tmp_path: Path) -> Path:
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps({"question_id": q.id, "output": "A"}) + "\n" for q in QUESTIONS))
    return path


def _replay(bank: Path, out: Path, answers: Path, *extra: str) -> Any:
    return _run(str(bank), "-m", "r", "-b", "replay", "-B", f"path={answers}", "-o", str(out), *extra)


def _refused(result: Any, field: str) -> None:
    assert result.exit_code == 2, result.output
    [line] = _error_lines(result.output)
    assert f"holds a different run ({field}" in line, line


def test_resume_with_other_backend_options_is_refused(bank: Path, answers: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert _replay(bank, out, answers).exit_code == 0
    other = tmp_path / "other.jsonl"
    other.write_bytes(answers.read_bytes())
    _refused(_replay(bank, out, other), "backend_options.path")
    assert _replay(bank, out, answers).exit_code == 0


def test_resume_against_another_server_is_refused_but_transport_settings_may_change(
    bank: Path, tmp_path: Path, serve: Any
) -> None:
    server = serve()
    out = tmp_path / "run"
    assert _openai(bank, out, server, "-B", "api_key=sk-secret-1").exit_code == 0
    assert "sk-secret" not in (out / "run.json").read_text(encoding="utf-8")  # secrets are not recorded
    moved = _run(str(bank), "-m", "scripted", "-b", "openai", "-B", "base_url=http://127.0.0.1:9/v1", "-o", str(out))
    _refused(moved, "backend_options.base_url")
    same = _openai(bank, out, server, "-B", "api_key=sk-secret-2", "-B", "concurrency=2", "-B", "max_retries=1")
    assert same.exit_code == 0, same.output


@pytest.mark.parametrize(
    ("first", "then", "field"),
    [
        (["--shots", "2"], ["--shots", "1"], "fewshot.shots"),
        (["--token-budget", "1024"], ["--token-budget", "256"], "fewshot.token_budget"),
        (["--max-tokens", "64"], ["--max-tokens", "32"], "sampling.max_tokens"),
    ],
)
def test_resume_with_other_prompt_or_length_settings_is_refused(
    first: list[str], then: list[str], field: str, bank: Path, answers: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    few = ["--mode", "few-shot", "--few-shot", str(bank)]
    assert _replay(bank, out, answers, *few, *first).exit_code == 0
    _refused(_replay(bank, out, answers, *few, *then), field)


def test_resume_over_another_bank_is_refused(bank: Path, answers: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert _replay(bank, out, answers).exit_code == 0
    changed = [question(q.id, "数学", "函数", "一次函数", stem=q.stem + "（改）") for q in QUESTIONS]
    _refused(_replay(write_bank(tmp_path / "bank2", changed), out, answers), "bank")
    copied = write_bank(tmp_path / "bank3", QUESTIONS)  # the same questions elsewhere are the same bank
    assert _replay(copied, out, answers).exit_code == 0


def test_shards_of_one_run_share_its_bank_identity(bank: Path, answers: Path, tmp_path: Path) -> None:
    for i in (1, 2):
        assert _replay(bank, tmp_path / f"s{i}", answers, "--shard", f"{i}/2").exit_code == 0
    merged = CliRunner().invoke(app, ["merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "-o", str(tmp_path / "m")])
    assert merged.exit_code == 0, merged.output
    assert len(_lines(tmp_path / "m" / "records.jsonl")) == 5


def test_a_folder_from_before_the_new_identity_fields_still_resumes(bank: Path, answers: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    few = ["--mode", "few-shot", "--few-shot", str(bank), "--limit", "3"]
    assert _replay(bank, out, answers, *few).exit_code == 0
    header = json.loads((out / "run.json").read_text(encoding="utf-8"))
    for name in ("backend_options", "fewshot", "bank"):
        del header[name]  # what older versions wrote
    (out / "run.json").write_text(json.dumps(header), encoding="utf-8")
    result = _replay(bank, out, answers, *few[:-1], "5", "--shots", "3")  # unknown then: not checked
    assert result.exit_code == 0, result.output
    assert "2 new answer(s) this time, 3 already" in result.output


# Finding 9: --retry-failed


def test_retry_failed_asks_failed_questions_again_and_every_reader_sees_one_record(
    bank: Path, tmp_path: Path, serve: Any
) -> None:
    from reasoning_metrics.run_scoring import read_run as score_read
    from reports.runs import read_run as report_read

    server = serve(faults=Faults(flaky=1))  # every prompt's first attempt fails
    out = tmp_path / "run"
    assert _openai(bank, out, server, "-B", "max_retries=0").exit_code == 1  # every request failed
    assert {r["parse_status"] for r in _lines(out / "records.jsonl")} == {"failed"}
    plain = _openai(bank, out, server, "-B", "max_retries=0")
    assert plain.exit_code == 1 and "0 new answer(s) this time, 5 already" in plain.output  # failures kept
    retried = _openai(bank, out, server, "-B", "max_retries=0", "--retry-failed")
    assert retried.exit_code == 0, retried.output
    assert "5 new answer(s) this time, 0 already" in retried.output
    history = _lines(out / "records.jsonl")
    assert [r["parse_status"] for r in history] == ["failed"] * 5 + ["ok"] * 5  # append-only
    ids = [r["question_id"] for r in history[:5]]  # as the server answered them: the first session's order
    assert sorted(ids) == [q.id for q in QUESTIONS]
    assert [r.question_id for r in RunStore(out).records()] == ids
    for records in (RunStore(out).records(), report_read(out).records, score_read(out)[1]):
        assert [r.question_id for r in records] == ids
        assert {r.parse_status for r in records} == {"ok"}
    again = _openai(bank, out, server, "-B", "max_retries=0", "--retry-failed")
    assert again.exit_code == 0 and "0 new answer(s) this time, 5 already" in again.output
    assert len(_lines(out / "records.jsonl")) == 10


# Finding 14: a full disk


def test_a_full_disk_is_one_error_line_and_the_run_resumes(
    bank: Path, answers: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run"
    real_fsync = os.fsync
    calls = []

    def fsync(fd: int) -> None:
        calls.append(fd)
        if len(calls) >= 3:  # run.json and the first batch fit; then the disk is full
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    result = _replay(bank, out, answers, "--batch-size", "2")
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert _error_lines(result.output) == [f"error: {out / 'records.jsonl'}: No space left on device"]
    again = _replay(bank, out, answers, "--batch-size", "2")
    assert again.exit_code == 0, again.output
    ids = [r["question_id"] for r in _lines(out / "records.jsonl")]
    assert sorted(ids) == [q.id for q in QUESTIONS]


@pytest.mark.parametrize("code", [errno.EACCES, errno.EROFS])
def test_a_folder_that_cannot_be_written_is_one_error_line(
    code: int, bank: Path, answers: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import runners.files

    def refuse(path: Path, text: str) -> None:
        raise OSError(code, os.strerror(code), str(path))

    monkeypatch.setattr(runners.files, "atomic_write", refuse)
    monkeypatch.setattr("runners.store.atomic_write", refuse)
    result = _replay(bank, tmp_path / "run", answers)
    assert result.exit_code == 2
    assert _error_lines(result.output) == [f"error: {tmp_path / 'run' / 'run.json'}: {os.strerror(code)}"]


# _demo_plan reads JSONL by "\n" only


def test_the_demo_subset_keeps_records_holding_unicode_line_separators(tmp_path: Path) -> None:
    from k12eval.cli._demo_plan import write_subset

    source = tmp_path / "src"
    (source / "a").mkdir(parents=True)
    lines = [json.dumps({"id": "x", "prompt": "第一行\u2028第二行\x85"}, ensure_ascii=False), json.dumps({"id": "y"})]
    (source / "a" / "q.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert write_subset(source, {"x"}, tmp_path / "subset") == 1
    assert (tmp_path / "subset" / "a" / "q.jsonl").read_text(encoding="utf-8") == lines[0] + "\n"


def test_resume_with_another_split_names_the_split(tmp_path: Path) -> None:
    # Before: "holds a different run (bank: 'f5105c106fe6a45f' there, '8238c127aebe42aa' now)", no setting named.
    import shutil

    slice_ = REPO / "tests" / "fixtures" / "cmmlu_slice" / "test"
    bank = tmp_path / "cmmlu"
    for split in ("dev", "test"):
        shutil.copytree(slice_, bank / split, ignore=shutil.ignore_patterns("*.md"))
    answers = tmp_path / "answers.jsonl"
    lines = [
        {"question_id": f"cmmlu/{split}/{path.stem}/{row}", "output": "答案是 A"}
        for split in ("dev", "test")
        for path in sorted(slice_.glob("*.csv"))
        for row in [path.read_text(encoding="utf-8").splitlines()[1].split(",")[0]]
    ]
    answers.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    out = tmp_path / "run"
    first = _replay(bank, out, answers, "--split", "dev")
    assert first.exit_code == 0, first.output
    _refused(_replay(bank, out, answers, "--split", "test"), "split: 'dev' there, 'test' now")
    assert _replay(bank, out, answers, "--split", "dev").exit_code == 0
