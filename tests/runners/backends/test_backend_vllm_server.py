"""The openai backend against vLLM's own OpenAI-compatible server (started from the vLLM venv)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("vllm")

import httpx

from runners.backends.base import GenerationRequest, LoglikelihoodRequest, SamplingParams
from runners.backends.openai import OpenAIBackend
from tests.runners.backends.checks import free_port

pytestmark = [pytest.mark.vllm, pytest.mark.real_model, pytest.mark.slow]


@pytest.fixture(scope="module")
def vllm_server(tiny_model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    log = tmp_path_factory.mktemp("vllm-server") / "server.log"
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1"}
    command = [
        sys.executable, "-m", "vllm.entrypoints.openai.api_server",
        "--model", str(tiny_model_dir), "--served-model-name", "tiny",
        "--host", "127.0.0.1", "--port", str(port), "--dtype", "float32", "--max-model-len", "256",
    ]  # fmt: skip
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 900  # a hung server fails here; a slow one, on a busy machine, is waited for
        while True:
            if process.poll() is not None:
                pytest.fail(f"vLLM server exited ({process.returncode}):\n{log.read_text()[-3000:]}")
            try:
                if httpx.get(base + "/v1/models", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"vLLM server did not answer in 900 s:\n{log.read_text()[-3000:]}")
            time.sleep(1)
        yield base + "/v1"
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


def test_completions_and_chat_agree_with_transformers(vllm_server: str, tiny_backend: Any) -> None:
    requests = [
        GenerationRequest("text", "Question: what is 3 + 4? Answer:", SamplingParams(max_tokens=10)),
        GenerationRequest("chat", [{"role": "user", "content": "一次函数是什么？"}], SamplingParams(max_tokens=10)),
    ]
    with OpenAIBackend("tiny", base_url=vllm_server, concurrency=2) as client:
        remote = client.generate(requests)
    local = tiny_backend.generate(requests)
    assert [r.error for r in remote] == [None, None]
    assert [r.texts for r in remote] == [r.texts for r in local]
    assert [r.prompt_tokens for r in remote] == [r.prompt_tokens for r in local]


def test_sampling_with_n_seed_and_logprobs(vllm_server: str) -> None:
    params = SamplingParams(temperature=1.0, n=2, max_tokens=6, seed=3, logprobs=2)
    with OpenAIBackend("tiny", base_url=vllm_server) as client:
        [first] = client.generate([GenerationRequest("a", "下列说法", params)])
        [again] = client.generate([GenerationRequest("a", "下列说法", params)])
    assert len(first.texts) == 2 and first.texts == again.texts
    assert first.top_logprobs and all(len(step) >= 2 for step in first.top_logprobs)


def test_loglikelihood_through_echo(vllm_server: str, tiny_backend: Any) -> None:
    requests = [LoglikelihoodRequest("q", "Question: what is 3 + 4? Answer:", (" 7", " A"))]
    with OpenAIBackend("tiny", base_url=vllm_server) as client:
        [remote] = client.loglikelihood(requests)
    [local] = tiny_backend.loglikelihood(requests)
    assert remote.error is None
    assert remote.token_counts == local.token_counts
    assert remote.logprobs == pytest.approx(local.logprobs, abs=1e-3)


def test_count_tokens_uses_the_servers_tokenize(vllm_server: str, tiny_backend: Any) -> None:
    with OpenAIBackend("tiny", base_url=vllm_server) as client:
        assert client.count_tokens("一次函数的图像 hello") == tiny_backend.count_tokens("一次函数的图像 hello")
        assert client._server_tokenize
