"""``meta-eval --judge-log FILE`` reads and cuts FILE as the other appended files are (#32 item 3, fresh round).

Before: a user's one-line notes given as the log lost their line (cut as torn, then the log appended); a log
linked to ``/dev/zero`` was read whole until ``MemoryError``; a FIFO hung the command; a hard-linked log
was cut and appended to under its other name too.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
NOTES = "my notes, one line and no newline"
LINK_REFUSED = "not a regular file; k12eval never follows a link or reads a device"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    data = tmp_path / "pb.json"
    shutil.copy(REPO / "tests" / "fixtures" / "metaeval" / "processbench_math.json", data)
    judge = "".join(json.dumps({"id": s["id"], "response": "2"}) + "\n" for s in json.loads(data.read_text("utf-8")))
    (tmp_path / "judge.jsonl").write_text(judge, encoding="utf-8")
    return tmp_path


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def _meta_eval(work: Path, log: str) -> tuple[int, list[str]]:
    args = ["meta-eval", "pb.json", "-f", "processbench", "-d", "judge", "--boot", "10"]
    args += ["--judge-model", "judge.jsonl", "--judge-backend", "replay", "--judge-log", log]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "k12eval", *args], cwd=work, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_limited, env=env)  # fmt: skip
    try:
        _, stderr = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, stderr = proc.communicate()
        pytest.fail(f"--judge-log {log}: still running after 120 s")
    return proc.returncode, [line for line in stderr.splitlines() if line.startswith("error:")]


def test_a_file_that_is_not_a_judge_log_keeps_its_line(work: Path) -> None:
    (work / "notes.md").write_text(NOTES, encoding="utf-8")
    code, errors = _meta_eval(work, "notes.md")
    assert (code, errors) == (
        2,
        ["error: notes.md, line 1: not a judge log line (no newline, and not one this log writes)"],
    )
    assert (work / "notes.md").read_text(encoding="utf-8") == NOTES


@pytest.mark.parametrize("kind", ["dev-zero", "fifo"])
def test_a_log_linked_to_a_device_or_a_fifo_is_refused_at_once(work: Path, kind: str) -> None:
    if kind == "fifo":
        os.mkfifo(work / "log.jsonl")
    else:
        (work / "log.jsonl").symlink_to("/dev/zero")
    code, errors = _meta_eval(work, "log.jsonl")
    assert code == 2 and len(errors) == 1 and LINK_REFUSED in errors[0], errors


def test_a_hard_linked_log_is_neither_cut_nor_appended_to(work: Path) -> None:
    (work / "notes.md").write_text('{"id": "math-0", "resp', encoding="utf-8")  # looks torn
    os.link(work / "notes.md", work / "log.jsonl")
    code, errors = _meta_eval(work, "log.jsonl")
    assert code == 2 and errors and "has 2 names (a hard link)" in errors[0], errors
    assert (work / "notes.md").read_text(encoding="utf-8") == '{"id": "math-0", "resp'


@pytest.mark.slow
def test_a_log_torn_by_a_kill_resumes(work: Path) -> None:
    assert _meta_eval(work, "log.jsonl") == (0, [])
    whole = (work / "log.jsonl").read_bytes()
    (work / "log.jsonl").write_bytes(whole[: whole.index(b"\n") + 20])  # killed while writing line 2
    assert _meta_eval(work, "log.jsonl") == (0, [])
    assert (work / "log.jsonl").read_bytes() == whole
