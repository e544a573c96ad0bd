"""A run over an OpenAI-compatible server stopped by Ctrl-C or SIGTERM keeps every answer the server gave, and ends
at once, while other requests are still in flight.

Before: the backend answered a call of 16 questions through a thread pool and the run wrote them when the whole call
was back. A signal then waited for every request of the call (the pool's shutdown, then the interpreter's join of
its threads), up to ``timeout_s`` (120 s) per request and retry, and threw the call's answers away: with four
requests held by the server, the run never ended until they were released, and kept 0 of the 3 answers given.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from runners.backends.base import GenerationRequest, SamplingParams
from runners.backends.openai import OpenAIBackend
from runners.stopping import signals_raise
from runners.store import RunStore
from runners.testing.openai_server import Faults, OpenAIServer
from tests._runs import question, write_bank
from tests.scripted import ScriptedBackend

REPO = Path(__file__).resolve().parents[2]
QUESTIONS = [
    question(f"q{i}", "数学", "函数", "一次函数", stem=f"第 {i} 题：下列函数中是一次函数的是") for i in range(12)
]
GIVEN = 3
"""Answers the server gives before it holds every later request until the test releases it."""
CONCURRENCY = 4
HUNG_S = 300.0
"""Only a run that never ends (or never writes) waits this long: the test then fails instead of hanging."""


def _wait(condition: Callable[[], bool], alive: Callable[[], bool], what: str) -> None:
    """Return once ``condition()`` holds; fail if the client ended first, or hangs without it (a bound, no race)."""
    bound = time.monotonic() + HUNG_S
    while not condition():
        assert alive(), f"the run ended before {what}"
        assert time.monotonic() < bound, f"the run never got to {what}"
        time.sleep(0.02)


def _lines(out: Path) -> int:
    path = out / "records.jsonl"
    return path.read_bytes().count(b"\n") if path.exists() else 0


def _command(bank: Path, out: Path, server: OpenAIServer) -> list[str]:
    return [sys.executable, "-m", "k12eval", "run", str(bank), "-m", "scripted", "-b", "openai",
            "-B", f"base_url={server.base_url}", "-B", f"concurrency={CONCURRENCY}", "-B", "timeout_s=3600",
            "-o", str(out)]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_keeps_every_answer_the_server_gave_and_does_not_wait_for_the_rest(
    signum: int, tmp_path: Path
) -> None:
    bank = write_bank(tmp_path / "bank", QUESTIONS)
    out = tmp_path / "run"
    server = OpenAIServer(ScriptedBackend("答案是 A"), Faults(hold_after=GIVEN)).start()  # type: ignore[arg-type]
    try:
        process = subprocess.Popen(_command(bank, out, server), cwd=REPO, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True)  # fmt: skip
        alive = lambda: process.poll() is None  # noqa: E731
        _wait(lambda: server.held == CONCURRENCY, alive, "every request in flight held by the server")
        _wait(lambda: _lines(out) == GIVEN, alive, f"writing the {GIVEN} answers the server gave")
        process.send_signal(signum)
        try:
            _, err = process.communicate(timeout=HUNG_S)
        except subprocess.TimeoutExpired:
            server.release()
            process.communicate()
            pytest.fail(f"the run waited for the requests in flight after {signal.Signals(signum).name}")
        assert process.returncode == 128 + signum, err
        assert err.strip().splitlines()[-1].startswith("error: interrupted"), err
        kept = RunStore(out).records()
        assert len(kept) == server.answered == GIVEN and all(r.parse_status == "ok" for r in kept)
        summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
        assert summary["session"]["status"] == "interrupted" and summary["all"]["n"] == GIVEN

        server.release()
        again = subprocess.run(_command(bank, out, server), cwd=REPO, capture_output=True, text=True)
    finally:
        server.stop()
    assert again.returncode == 0, again.stderr
    assert f"{len(QUESTIONS) - GIVEN} new answer(s) this time, {GIVEN} already" in again.stdout
    ids = [r.question_id for r in RunStore(out).iter_records()]
    assert sorted(ids) == sorted(q.id for q in QUESTIONS)  # every question once: none lost, none twice
    asked = [server.attempts[json.dumps(record.prompt, ensure_ascii=False)] for record in kept]
    assert asked == [1] * GIVEN  # the answers kept were not asked for again


def test_a_signal_held_while_an_answer_is_written_hands_over_the_answers_already_back_first() -> None:
    # The consumer is writing the first answer (shielded) when the signal comes; by then every worker waits on a
    # held request, so the server's other answers are back in the client: they are handed over before the signal.
    server = OpenAIServer(ScriptedBackend("答案是 A"), Faults(hold_after=GIVEN)).start()  # type: ignore[arg-type]
    backend = OpenAIBackend("scripted", base_url=server.base_url, concurrency=CONCURRENCY, timeout_s=3600)
    requests = [
        GenerationRequest(f"q{i}", [{"role": "user", "content": f"第 {i} 题"}], SamplingParams()) for i in range(8)
    ]
    got: list[str] = []
    try:
        with signals_raise(), pytest.raises(KeyboardInterrupt):
            for result in backend.generate_stream(requests):
                got.append(result.id)
                if len(got) == 1:
                    _wait(lambda: server.held == CONCURRENCY, lambda: True, "every request in flight held")
                    os.kill(os.getpid(), signal.SIGINT)  # held by the shield until this answer is written
        answered = server.answered
    finally:
        server.stop()
        backend.close()
    assert len(got) == answered == GIVEN
