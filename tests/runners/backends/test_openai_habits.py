"""The openai backend as lm-eval users and hosted reasoning models need it (#34 item 3), on a real HTTP server.

The server (``runners.testing.openai_server``) answers from the scripted backend; it refuses parameters in
OpenAI's own words and error shape (``refused_params``), records every body it receives, and holds requests
until as many as asked are in flight (``gather``), so that concurrency is shown by an event, not a clock.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from runners.backends.base import GenerationRequest, SamplingParams
from runners.backends.openai import DEFAULT_BASE_URL, OpenAIBackend
from runners.testing.openai_server import Faults, OpenAIServer
from tests._runs import question, write_bank
from tests.scripted import ScriptedBackend

MESSAGES = [{"role": "user", "content": "一次函数是什么？"}]


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[OpenAIServer] = []

    def start(faults: Faults | None = None) -> OpenAIServer:
        server = OpenAIServer(ScriptedBackend("正确答案是：A"), faults or Faults()).start()  # type: ignore[arg-type]
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def _bodies(server: OpenAIServer, key: str) -> list[Any]:
    return [body.get(key, "absent") for body in server.bodies]


def test_a_reasoning_model_gets_max_completion_tokens_and_no_temperature_once_it_refuses_them(
    serve: Any, caplog: pytest.LogCaptureFixture
) -> None:
    server = serve(Faults(refused_params=("max_tokens", "temperature")))
    client = OpenAIBackend("o3-mini", base_url=server.base_url, api_key="k", concurrency=1, max_retries=0)
    requests = [GenerationRequest(f"q{i}", MESSAGES, SamplingParams(max_tokens=64)) for i in range(3)]
    with caplog.at_level(logging.WARNING, logger="runners.backends.openai"):
        results = client.generate(requests) + client.generate(requests[:1])
    assert [r.error for r in results] == [None] * 4 and all(r.texts == ["正确答案是：A"] for r in results)
    # the first request taught both refusals (two 400s), every later one was sent as the server takes it
    assert _bodies(server, "max_tokens") == [64, "absent", "absent", "absent", "absent", "absent"]
    assert _bodies(server, "max_completion_tokens") == ["absent", 64, 64, 64, 64, 64]
    assert _bodies(server, "temperature") == [0.0, 0.0, "absent", "absent", "absent", "absent"]
    assert set(client.adapted) == {"max_tokens", "temperature"}
    assert "max_completion_tokens" in client.adapted["max_tokens"] and "default" in client.adapted["temperature"]
    assert sum("temperature" in r.message for r in caplog.records) == 1  # said once, not per request


def test_a_refused_parameter_the_answer_depends_on_fails_the_request_instead(serve: Any) -> None:
    server = serve(Faults(refused_params=("n",)))
    client = OpenAIBackend("o3-mini", base_url=server.base_url, api_key="k", max_retries=0)
    (result,) = client.generate([GenerationRequest("q", MESSAGES, SamplingParams(n=3))])
    assert result.error is not None and "HTTP 400" in result.error and "'n'" in result.error
    assert client.adapted == {}


def test_gen_kwargs_settings_travel_in_the_body(serve: Any) -> None:
    server = serve()
    client = OpenAIBackend("m", base_url=server.base_url, api_key="k")
    params = SamplingParams(top_k=20, presence_penalty=0.5, extra_body='{"chat_template_kwargs": {"x": false}}')
    (result,) = client.generate([GenerationRequest("q", MESSAGES, params)])
    assert result.error is None
    (body,) = server.bodies
    assert (body["top_k"], body["presence_penalty"], body["chat_template_kwargs"]) == (20, 0.5, {"x": False})
    assert "frequency_penalty" not in body and "repetition_penalty" not in body  # never sent unasked


@pytest.mark.parametrize("variable", ["OPENAI_BASE_URL", "OPENAI_API_BASE"])
def test_the_servers_address_is_read_from_either_variable(
    serve: Any, variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = serve()
    for name in ("OPENAI_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, server.base_url)
    client = OpenAIBackend("m", api_key="k")
    assert client.base_url == server.base_url != DEFAULT_BASE_URL
    (result,) = client.generate([GenerationRequest("q", MESSAGES, SamplingParams())])
    assert result.error is None and len(server.bodies) == 1  # the request reached the local server


def test_two_differing_variables_use_openai_base_url_and_say_so(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_API_BASE", "http://127.0.0.1:8/v1")
    with caplog.at_level(logging.WARNING, logger="runners.backends.openai"):
        client = OpenAIBackend("m", api_key="k", probe=False)
    assert client.base_url == "http://127.0.0.1:9/v1"
    assert any("OPENAI_API_BASE" in r.message and "differ" in r.message for r in caplog.records)
    client.close()


def _bank(root: Path, n: int) -> Path:
    return write_bank(root, [question(f"q{i}", "数学", "函数", "一次函数", stem=f"第 {i} 题：下列函数中是一次函数的是")
                             for i in range(n)])  # fmt: skip


def _run(bank: Path, out: Path, server: OpenAIServer, *extra: str) -> Any:
    args = ["run", str(bank), "-m", "o3-mini", "-b", "openai", "-B", f"base_url={server.base_url}",
            "-B", "max_retries=0", "-o", str(out), *extra]  # fmt: skip
    argv, sys.argv = sys.argv, ["k12eval", *args]
    try:
        return CliRunner().invoke(app, args)
    finally:
        sys.argv = argv


def test_a_run_against_a_reasoning_model_answers_and_says_what_the_server_took(serve: Any, tmp_path: Path) -> None:
    server = serve(Faults(refused_params=("max_tokens", "temperature")))
    result = _run(_bank(tmp_path / "bank", 3), tmp_path / "run", server, "-B", "concurrency=1")
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    assert summary["all"]["correct"] == 3 and set(summary["session"]["adapted"]) == {"max_tokens", "temperature"}
    header = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))
    assert header["sampling"]["temperature"] == 0.0  # what was asked; session.adapted says what the server took


def test_concurrency_fills_the_default_batch(serve: Any, tmp_path: Path) -> None:
    """24 requests must be in flight together for the server to answer any (16 were, at most, before #34)."""
    server = serve(Faults(gather=24, gather_timeout_s=600))
    result = _run(_bank(tmp_path / "bank", 24), tmp_path / "run", server, "-B", "concurrency=24")
    assert result.exit_code == 0, result.output
    header = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))
    assert header["batch"]["questions_per_call"] == 24 and server.max_in_flight == 24


def test_gen_kwargs_a_backend_cannot_apply_are_refused_before_the_run(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        ["run", str(_bank(tmp_path / "bank", 1)), "-m", "x", "-o", str(tmp_path / "run"), "--dry-run",
         "--gen-kwargs", "temperature=0.7,nucleus=0.9"],
    )  # fmt: skip
    assert result.exit_code == 2 and "unknown setting 'nucleus'" in result.output
