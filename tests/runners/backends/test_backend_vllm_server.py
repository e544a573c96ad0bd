"""The openai backend against vLLM's own OpenAI-compatible server (started from the vLLM venv)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("vllm")

from runners.backends.base import GenerationRequest, LoglikelihoodRequest, SamplingParams
from runners.backends.openai import OpenAIBackend

pytestmark = [pytest.mark.vllm, pytest.mark.real_model, pytest.mark.slow]


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
