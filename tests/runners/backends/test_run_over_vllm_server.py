"""``k12eval run`` against vLLM's own OpenAI-compatible server, with a server error at a question the test chooses.

The answers are the real engine's (the tiny random Qwen2, served by this environment's vllm); the test server of
``runners.testing.openai_server`` stands between, forwarding each request to vLLM except those it fails (HTTP 500 at
every attempt of one question's request). Every figure the run prints is what ``records.jsonl`` holds, the failed
question is in no accuracy and is named with its request and URL, and ``--retry-failed`` asks it of vLLM again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("vllm")

from runners.backends.openai import OpenAIBackend
from runners.store import RunStore
from runners.testing.openai_server import Faults, OpenAIServer
from tests.runners.test_run_over_http_figures import _check_figures, _run

pytestmark = [pytest.mark.vllm, pytest.mark.real_model, pytest.mark.slow]

FAILING = "5acba49476e34203851705f8b66e7c9b"
"""方程 2(x-3)=x+4 的解是: its request gets HTTP 500 at every attempt until the server is well again."""


def test_a_run_over_vllm_prints_its_records_and_resumes_a_failed_question(vllm_server: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    engine = OpenAIBackend("tiny", base_url=vllm_server)
    with OpenAIServer(engine, Faults(fail_marker="方程$$2(x-3)")) as server:  # type: ignore[arg-type]
        printed = _run(server.base_url, out, "--max-tokens", "16", model="tiny", timeout_s=600)
        records = _check_figures(printed, out)
        failed = [r for r in records if r.parse_status == "failed"]
        assert [r.question_id for r in failed] == [FAILING]
        assert failed[0].correct is None and "HTTP 500" in (failed[0].error or "")
        assert f"request {FAILING}, POST {server.base_url}/chat/completions" in (failed[0].error or "")
        assert all(r.completion_tokens for r in records if r.parse_status != "failed")  # vLLM's usage, recorded
        server.faults = Faults()
        again = _run(server.base_url, out, "--max-tokens", "16", "--retry-failed", model="tiny", timeout_s=600)
    records = _check_figures(again, out)
    assert [r.parse_status for r in records if r.question_id == FAILING] != ["failed"]
    assert "1 new answer(s) this time, 7 already in the run folder" in again
    assert len(RunStore(out).records()) == 8
