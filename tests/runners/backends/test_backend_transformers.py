"""The transformers backend on a real (tiny, random) Qwen2 model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from runners.backends._prompts import PromptError, prompt_ids
from runners.backends.base import LoglikelihoodRequest, SamplingParams
from tests.runners.backends.checks import GREEDY, assert_same_loglikelihoods, requests_for, seeded_samples

pytestmark = pytest.mark.real_model

PROMPTS = [
    "一次函数的图像",
    "Question: what is 3 + 4? Answer:",
    "水在一个标准大气压下的沸点是",
    "A",
    "The quick brown fox jumps over the lazy dog. Options: A. 1 B. 2 C. 3 D. 4",
    "下列说法正确的是",
]


def _manual_greedy(backend: Any, prompt: str, steps: int) -> list[int]:
    """Greedy decoding by hand: argmax of a full forward pass per step, no cache, no padding."""
    import torch

    ids = prompt_ids(backend.tokenizer, prompt)
    out: list[int] = []
    with torch.inference_mode():
        for _ in range(steps):
            logits = backend.lm(input_ids=torch.tensor([ids + out])).logits[0, -1]
            out.append(int(logits.argmax()))
            if out[-1] in backend.eos_ids:
                break
    return out


@pytest.mark.slow
def test_greedy_generation_is_deterministic(tiny_backend: Any) -> None:
    first = tiny_backend.generate(requests_for(PROMPTS))
    second = tiny_backend.generate(requests_for(PROMPTS))
    assert [r.texts for r in first] == [r.texts for r in second]
    assert all(r.error is None and len(r.texts) == 1 for r in first)


@pytest.mark.slow
def test_greedy_matches_a_hand_written_decoding_loop(tiny_backend: Any) -> None:
    prompt = PROMPTS[1]
    expected_ids = _manual_greedy(tiny_backend, prompt, GREEDY.max_tokens)
    [result] = tiny_backend.generate(requests_for([prompt]))
    text_ids = [t for t in expected_ids if t not in tiny_backend.eos_ids]
    assert result.texts == [tiny_backend.tokenizer.decode(text_ids, skip_special_tokens=True)]
    assert result.completion_tokens == len(expected_ids)


@pytest.mark.slow
def test_batched_greedy_equals_one_by_one(tiny_backend: Any) -> None:
    # Six prompts of different lengths with batch size 4: two batches, real left padding.
    batched = tiny_backend.generate(requests_for(PROMPTS))
    alone = [tiny_backend.generate(requests_for([p]))[0] for p in PROMPTS]
    assert [r.texts for r in batched] == [r.texts for r in alone]
    assert [r.completion_tokens for r in batched] == [r.completion_tokens for r in alone]
    assert [r.id for r in batched] == [f"r{i}" for i in range(len(PROMPTS))]


@pytest.mark.slow
def test_token_counts_and_latency(tiny_backend: Any) -> None:
    results = tiny_backend.generate(requests_for(PROMPTS))
    for prompt, result in zip(PROMPTS, results, strict=True):
        assert result.prompt_tokens == len(tiny_backend.tokenizer(prompt)["input_ids"])
        assert 1 <= result.completion_tokens <= GREEDY.max_tokens
        if result.finish_reasons == ["length"]:
            assert result.completion_tokens == GREEDY.max_tokens
        assert result.latency_s is not None and result.latency_s > 0


@pytest.mark.slow
def test_chat_messages_go_through_the_chat_template(tiny_backend: Any) -> None:
    messages = [{"role": "system", "content": "你是老师。"}, {"role": "user", "content": "一次函数是什么？"}]
    rendered = tiny_backend.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    assert rendered.endswith("<|im_start|>assistant\n")
    [chat] = tiny_backend.generate(requests_for([messages]))
    [plain] = tiny_backend.generate(requests_for([rendered]))
    assert tiny_backend.is_chat
    assert chat.prompt_tokens == plain.prompt_tokens == len(tiny_backend.tokenizer(rendered)["input_ids"])
    assert chat.texts == plain.texts


def test_messages_without_a_chat_template_are_refused(tiny_backend: Any) -> None:
    import copy

    base_tokenizer = copy.deepcopy(tiny_backend.tokenizer)
    base_tokenizer.chat_template = None
    with pytest.raises(PromptError, match="no chat template"):
        prompt_ids(base_tokenizer, [{"role": "user", "content": "hi"}])


@pytest.mark.slow
def test_sampling_with_a_seed_is_reproducible_and_n_gives_n_samples(tiny_backend: Any) -> None:
    params = SamplingParams(temperature=1.0, top_p=0.95, n=3, max_tokens=10, seed=7)
    first = seeded_samples(tiny_backend, PROMPTS[:2], params)
    assert all(len(r.finish_reasons) == 3 for r in first)


@pytest.mark.slow
def test_greedy_with_n_repeats_the_one_answer(tiny_backend: Any) -> None:
    [result] = tiny_backend.generate(requests_for([PROMPTS[0]], SamplingParams(n=2, max_tokens=6)))
    [single] = tiny_backend.generate(requests_for([PROMPTS[0]], SamplingParams(max_tokens=6)))
    assert result.texts == single.texts * 2
    assert result.completion_tokens == 2 * single.completion_tokens


@pytest.mark.slow
def test_stop_string_cuts_the_output(tiny_backend: Any) -> None:
    [free] = tiny_backend.generate(requests_for([PROMPTS[1]], SamplingParams(max_tokens=20)))
    text = free.texts[0]
    stop = text[len(text) // 2 : len(text) // 2 + 2]
    assert stop.strip(), f"pick another prompt: output {text!r}"
    [cut] = tiny_backend.generate(requests_for([PROMPTS[1]], SamplingParams(max_tokens=20, stop=(stop,))))
    assert cut.texts == [text[: text.index(stop)]]
    assert cut.finish_reasons == ["stop"]
    assert cut.completion_tokens is not None and cut.completion_tokens < free.completion_tokens


def test_logprobs_of_generated_tokens(tiny_backend: Any) -> None:
    [result] = tiny_backend.generate(requests_for([PROMPTS[2]], SamplingParams(max_tokens=8, logprobs=3)))
    table = result.top_logprobs
    assert table is not None and len(table) == result.completion_tokens
    for step in table:
        assert 3 <= len(step) <= 4
        assert all(value <= 0 for value in step.values())
    # Greedy: the chosen token is the most probable one, so the first step's best entry starts the text.
    best = max(table[0], key=table[0].__getitem__)
    assert result.texts[0].startswith(best) or "\ufffd" in best


def test_too_long_prompt_gets_an_error_not_an_exception(tiny_model_dir: Path) -> None:
    from runners.backends.transformers import TransformersBackend

    short = TransformersBackend(str(tiny_model_dir), max_length=16)
    results = short.generate(requests_for(["一次函数的图像" * 20, "A"], SamplingParams(max_tokens=4)))
    assert results[0].error is not None and "context is 16" in results[0].error
    assert results[1].error is None and results[1].texts


def test_loglikelihood_matches_a_manual_forward_pass(tiny_backend: Any) -> None:
    import torch

    prompt, continuations = "一次函数的图像是", ("一条直线", " A", "水")
    [result] = tiny_backend.loglikelihood([LoglikelihoodRequest("q", prompt, continuations)])
    tok = tiny_backend.tokenizer
    context = tok(prompt)["input_ids"]
    for continuation, value, count in zip(continuations, result.logprobs, result.token_counts, strict=True):
        tail = tok(continuation, add_special_tokens=False)["input_ids"]
        with torch.inference_mode():
            logits = tiny_backend.lm(input_ids=torch.tensor([context + tail])).logits[0]
        logprobs = torch.log_softmax(logits, dim=-1)
        expected = sum(float(logprobs[len(context) + k - 1, t]) for k, t in enumerate(tail))
        assert count == len(tail)
        assert value == pytest.approx(expected, abs=1e-4)


def test_batched_loglikelihood_with_left_padding_equals_one_by_one(tiny_backend: Any) -> None:
    requests = [
        LoglikelihoodRequest("a", "A", ("一次函数的图像是一条直线", " B")),
        LoglikelihoodRequest("b", PROMPTS[4], (" A", " D")),
        LoglikelihoodRequest("c", [{"role": "user", "content": "1+1=?"}], ("2", "答案：A")),
        LoglikelihoodRequest("d", "下列说法正确的是", ("",)),
    ]
    together = tiny_backend.loglikelihood(requests)
    alone = [tiny_backend.loglikelihood([r])[0] for r in requests]
    assert_same_loglikelihoods(together, alone, 1e-4)
    assert together[3].logprobs == [0.0] and together[3].token_counts == [0]
    assert all(v < 0 for r in together[:3] for v in r.logprobs)


def test_count_tokens_uses_the_model_tokenizer(tiny_backend: Any) -> None:
    text = "一次函数的图像 hello"
    assert tiny_backend.count_tokens(text) == len(tiny_backend.tokenizer(text, add_special_tokens=False)["input_ids"])
    assert tiny_backend.count_tokens("") == 0
