"""`k12eval score` under a second process and a full disk, and the score header's atomic write (#14)."""

from __future__ import annotations

import errno
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from reasoning_metrics.score_store import ScoreConfig, open_scores, read_score_lines
from tests.reasoning_metrics.fakes import HashEncoder, RuleNLI
from tests.reasoning_metrics.written_runs import with_models, write_bank, write_run

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def run_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A CoT run, and a `score` command that uses fake models whatever names it is given."""
    import reasoning_metrics.run_scoring

    monkeypatch.setenv("K12EVAL_HOME", str(tmp_path / "home"))
    fakes = {"encoder": HashEncoder(), "nli": RuleNLI()}
    real = reasoning_metrics.run_scoring.score_run
    monkeypatch.setattr(reasoning_metrics.run_scoring, "score_run", with_models(real, fakes))
    return write_run(tmp_path / "run", write_bank(tmp_path / "bank"))


def _score(run_dir: Path, *extra: str) -> Any:
    return CliRunner().invoke(app, ["score", str(run_dir), *extra])


def _error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("error:")]


def test_the_fake_scorer_scores_the_run(run_dir: Path) -> None:
    result = _score(run_dir)
    assert result.exit_code == 0, result.output
    assert [r["id"] for _, r in read_score_lines(run_dir / "scores.jsonl")] == ["q-apples", "q-eggs"]


def test_a_score_file_in_use_by_another_process_is_refused_with_its_pid(run_dir: Path) -> None:
    out = run_dir / "scores.jsonl"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from runners.files import lock_file\n"
         f"with lock_file(__import__('pathlib').Path({str(out)!r})):\n print('held', flush=True); sys.stdin.read()"],
        cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        result = _score(run_dir)
    finally:
        holder.communicate("")  # the holder lets go as soon as its stdin closes
    assert result.exit_code == 2, result.output
    assert _error_lines(result.output) == [
        f"error: {out}: in use by another k12eval command (pid {holder.pid}); "
        "wait for it to finish or choose another output"
    ]
    assert not out.exists()
    assert _score(run_dir).exit_code == 0  # free again once the holder is gone


def test_a_full_disk_is_one_error_line_and_scoring_resumes(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_fsync = os.fsync

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    result = _score(run_dir)
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    # the first file the job writes names the full disk: the work file's note (its settings) or the header
    [line] = _error_lines(result.output)
    assert re.fullmatch(
        rf"error: {re.escape(str(run_dir))}/scores(\.work-[0-9a-f]+)?\.json: No space left on device", line
    )
    assert not (run_dir / "scores.json").exists()  # no half header to block the resume
    assert not list(run_dir.glob("scores.work-*.json"))  # nor a half note
    again = _score(run_dir)
    assert again.exit_code == 0, again.output
    assert [r["id"] for _, r in read_score_lines(run_dir / "scores.jsonl")] == ["q-apples", "q-eggs"]


@pytest.mark.slow
def test_a_header_cut_short_by_a_full_disk_does_not_block_the_resume(tmp_path: Path) -> None:
    """A real short write: the child may write at most 64 bytes per file (RLIMIT_FSIZE), as on a full disk."""
    out = tmp_path / "scores.jsonl"
    config = ScoreConfig(metrics=["faithfulness_step", "repetition_step"], thresholds={"x": 0.5}, lang="zh")
    script = textwrap.dedent(
        f"""
        import resource, signal, sys
        from pathlib import Path
        from pydantic import BaseModel
        from reasoning_metrics.score_store import ScoreConfig, append_scores

        class Record(BaseModel):
            id: str

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))
        config = ScoreConfig.model_validate_json({config.model_dump_json()!r})
        try:
            list(append_scores(Path({str(out)!r}), [Record(id="a")], config))
        except OSError as exc:
            print(exc.errno)
        """
    )
    child = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert child.stdout.strip() == str(errno.EFBIG), child.stderr
    assert open_scores(out, config) == set()  # the header is whole or absent, never torn
    header = out.with_suffix(".json")
    assert not header.exists() or json.loads(header.read_text(encoding="utf-8"))
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_every_reader_takes_the_last_record_of_an_id_and_skips_a_torn_last_line(tmp_path: Path) -> None:
    from reasoning_metrics.run_scoring import read_run as score_read
    from reasoning_metrics.run_scoring import run_chains
    from reports.runs import read_run as report_read

    run = write_run(tmp_path / "run", write_bank(tmp_path / "bank"))
    records = run / "records.jsonl"
    failed = json.loads(records.read_text(encoding="utf-8").split("\n")[2])
    assert failed["question_id"] == "q-square" and failed["output"] is None
    retried = failed | {"output": "边长是3，面积是3×3=9。答案：B", "parse_status": "ok", "error": None}
    with records.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(retried, ensure_ascii=False) + "\n")
        handle.write('{"version": 1, "question_id": "q-tor')  # a run being written, or killed
    for read in (lambda: report_read(run).records, lambda: score_read(run)[1]):
        got = read()
        assert [r.question_id for r in got] == ["q-apples", "q-eggs", "q-square"]
        assert got[-1].parse_status == "ok"  # the retry, not the failed answer (the report keeps no output)
    chains = run_chains(run)
    assert [c.id for _, c in chains.chains] == ["q-apples", "q-eggs", "q-square"] and chains.no_output == 0


POISON = "本金1元，年利率0.1%，5000年后是(1+0.001)^5000 = 148元。答案：B"
"""A step whose exact value has 15,000 digits: the verifier crashed on it (#14 finding 1)."""


def _poisoned_run(tmp_path: Path, output: str) -> Path:
    bank = write_bank(tmp_path / "bank")
    return write_run(
        tmp_path / "poisoned", bank, outputs={"q-apples": output, "q-square": "边长是3，面积是3×3=9。答案：B"}
    )


def _assessments(run_dir: Path) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for _, r in read_score_lines(run_dir / "scores.jsonl")}


def test_a_huge_power_in_a_chain_is_checked_and_every_chain_is_scored(run_dir: Path, tmp_path: Path) -> None:
    poisoned = _poisoned_run(tmp_path, POISON)
    result = _score(poisoned, "--chunk-size", "1")
    assert result.exit_code == 0, result.output
    records = _assessments(poisoned)
    assert sorted(records) == ["q-apples", "q-eggs", "q-square"]
    assert all(r["assessment"]["status"] == "checked" for r in records.values())


def test_a_chain_the_detectors_fail_on_is_recorded_as_an_error_and_the_others_complete(
    run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever a detector raises on one chain (here a bug planted on one step) stays with that chain."""
    import reasoning_metrics.verify.rules.arithmetic as arithmetic

    real = arithmetic.says_directed  # read once for every step checked, through check_steps or inspect_step

    def buggy(step: str) -> bool:
        if "5000" in step:
            raise ValueError("Exceeds the limit (4300 digits) for integer string conversion")
        return real(step)

    monkeypatch.setattr(arithmetic, "says_directed", buggy)
    poisoned = _poisoned_run(tmp_path, POISON)
    first = _score(poisoned, "--chunk-size", "1")
    assert first.exit_code == 0, first.output
    assert "not checked: 1 chain(s) (error 1)" in first.output
    records = _assessments(poisoned)
    assert sorted(records) == ["q-apples", "q-eggs", "q-square"]
    bad = records["q-apples"]
    assert bad["assessment"]["status"] == "error" and bad["first_suspect"] is None
    assert [f["kind"] for f in bad["assessment"]["flags"]] == ["not_checked"]
    assert "ValueError: Exceeds the limit" in bad["assessment"]["flags"][0]["message"]
    assert bad["scores"]["faithfulness_step"] is not None  # the ROSCOE scores of the chain are still there
    for good in ("q-eggs", "q-square"):
        assert records[good]["assessment"]["status"] == "checked"
        assert records[good]["first_suspect"] is not None
    again = _score(poisoned)  # the resume neither crashes nor rescores
    assert again.exit_code == 0, again.output
    assert "0 chain(s) to score, 3 already" in again.output


def test_a_bad_score_header_is_named_by_file_and_field_when_resuming(tmp_path: Path) -> None:
    """``score`` and the report read a score header through one reader (``read_score_header``)."""
    from kg.errors import InputError

    out = tmp_path / "scores.jsonl"
    out.with_suffix(".json").write_text('{"metrics": "not a list"}', encoding="utf-8")
    with pytest.raises(InputError, match=r"scores\.json, field 'metrics'"):
        open_scores(out, ScoreConfig(metrics=["faithfulness_step"], thresholds={"x": 0.5}, lang="zh"))


def test_a_full_disk_in_the_metrics_cache_names_the_cache_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite says "database or disk is full" as a sqlite3 error with no file: a traceback before (#28 item 6)."""
    import sqlite3

    from reasoning_metrics.cache import ArrayCache

    cache = ArrayCache(tmp_path / "cache" / "metrics.sqlite")

    class FullDisk:
        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def executemany(self, *args: object) -> None:
            raise sqlite3.OperationalError("database or disk is full")

        def __getattr__(self, name: str) -> Any:
            return getattr(self.db, name)

    monkeypatch.setattr(cache, "_db", FullDisk(cache._db))
    with pytest.raises(OSError) as caught:
        cache.put_many("encoder:x", [(b"k" * 20, np.zeros(4))])
    assert caught.value.errno == errno.ENOSPC and caught.value.filename == str(tmp_path / "cache" / "metrics.sqlite")
    assert "score without it (cache=)" in caught.value.strerror


def test_score_files_follow_the_umask(run_dir: Path) -> None:
    old = os.umask(0o022)
    try:
        result = _score(run_dir)
    finally:
        os.umask(old)
    assert result.exit_code == 0, result.output
    assert (run_dir / "scores.json").stat().st_mode & 0o777 == 0o644  # written by atomic_write


def test_chain_budget_reaches_the_scorer(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--chain-budget (#28 item 3): the seconds a long chain may take, handed to iter_scores."""
    import reasoning_metrics.run_scoring

    seen: list[float] = []
    real = reasoning_metrics.run_scoring.iter_scores

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs["budget_s"])
        return real(*args, **kwargs)

    monkeypatch.setattr(reasoning_metrics.run_scoring, "iter_scores", spy)
    result = _score(run_dir, "--chain-budget", "42.5")
    assert result.exit_code == 0, result.output
    assert seen == [42.5]
    assert _score(run_dir, "--chain-budget", "0").exit_code == 2
