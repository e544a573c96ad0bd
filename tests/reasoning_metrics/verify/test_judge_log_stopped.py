"""``meta-eval --judge-log FILE`` stopped by a signal keeps every verdict the judge gave, and two commands never
append to one log at once.

Before: a chunk of 64 solutions was asked in one call and its answers appended when the whole call was back, so
Ctrl-C lost every answer of the chunk the judge server had already given (and, with the thread pool, waited for the
rest first); two commands on one log asked each solution twice and appended every line twice.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from kg.errors import InputError
from reasoning_metrics.diagnostics.sources import SourceItem
from reasoning_metrics.verify.judge_log import judge_resumably
from runners.backends.openai import OpenAIBackend
from runners.files import lock_file
from runners.stopping import signals_raise
from runners.testing.openai_server import Faults, OpenAIServer
from tests.scripted import ScriptedBackend

GIVEN = 2
"""Verdicts the judge server gives before it holds every later request until the test releases it."""
CONCURRENCY = 4
HUNG_S = 300.0
"""Only a judge that never gets its requests held waits this long: the test then fails instead of hanging."""
SOLUTIONS = [
    SourceItem(f"s{i}", f"第 {i} 题：3 + 2 等于多少？", ("3 + 2 = 5。", "所以答案是 5。"), "zh") for i in range(8)
]


def test_a_signal_keeps_every_verdict_the_judge_gave(tmp_path: Path) -> None:
    server = OpenAIServer(ScriptedBackend("所有步骤都正确。"), Faults(hold_after=GIVEN)).start()  # type: ignore[arg-type]
    backend = OpenAIBackend("judge", base_url=server.base_url, concurrency=CONCURRENCY, timeout_s=3600)
    log = tmp_path / "judge.jsonl"

    def stop_once_held() -> None:  # every request in flight waits at the server: the rest are back in the client
        bound = time.monotonic() + HUNG_S
        while server.held < CONCURRENCY and time.monotonic() < bound:
            time.sleep(0.02)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=stop_once_held, daemon=True).start()
    try:
        with signals_raise(), pytest.raises(KeyboardInterrupt):
            judge_resumably(SOLUTIONS, backend, log)
        answered = server.answered
    finally:
        server.stop()
        backend.close()
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == answered == GIVEN
    assert all(line["response"] == "所有步骤都正确。" for line in lines)


def test_a_log_in_use_by_another_command_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "judge.jsonl"
    backend = ScriptedBackend("所有步骤都正确。")
    with lock_file(log), pytest.raises(InputError, match=r"judge\.jsonl: in use by another k12eval command"):
        judge_resumably(SOLUTIONS, backend, log)
    assert not log.exists() and backend.requests == []
    judge_resumably(SOLUTIONS, backend, log)  # the lock went with its holder
    assert len(log.read_text(encoding="utf-8").splitlines()) == len(SOLUTIONS)
