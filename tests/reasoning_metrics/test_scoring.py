"""The batched pipeline with fake models: parity with the per-chain loops, batching, cache, unavailability."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from benchmarks.roscoe_loop import loop_scores
from reasoning_metrics import Chain, score_chains
from reasoning_metrics.cache import ArrayCache
from reasoning_metrics.metric_table import METRICS
from reasoning_metrics.models.judge_model import JudgeNLI
from reasoning_metrics.reasons import code_of, reason, worded
from reasoning_metrics.scoring import prepare
from runners.backends.base import GenerationRequest
from tests.scripted import ScriptedBackend, prompt_text

from .fakes import HashEncoder, HashTokens, RuleNLI

SOURCE_EN = (
    "Janet's ducks lay 16 eggs per day. She eats 3 for breakfast. She bakes muffins with 4. How many eggs are left?"
)
CHAINS = [
    Chain(
        "en-1",
        SOURCE_EN,
        "She lays 16 eggs. She eats 3 and bakes 4. So 16 - 3 - 4 = 9 eggs are left.",
        "Janet uses 3 + 4 = 7 eggs.\n\nSo 16 - 7 = 9 eggs are left.",
    ),
    Chain(
        "en-2",
        SOURCE_EN,
        ["Janet has 16 eggs.", "The capital of France is Paris.", "So 12 eggs are left."],
        ["Janet uses 7 eggs.", "So 9 eggs are left."],
    ),
    Chain(
        "zh-1",
        "小明有5个苹果，吃了2个。还剩几个？",
        "小明有5个苹果。吃了2个。所以还剩3个。",
        "$$5-2=3$$\n\n故剩3个．",
    ),
    Chain(
        "zh-2",
        "小明有5个苹果，吃了2个。还剩几个？",
        ["小明有5个苹果。", "所以还剩4个。", "所以还剩4个。"],
        None,
    ),
]
LOOP_METRICS = [
    "faithfulness_step",
    "info_step",
    "info_chain",
    "repetition_step",
    "reasoning_alignment",
    "hallucination",
    "redundancy",
    "commonsense",
    "missing_step",
    "semantic_coverage_step",
    "semantic_coverage_chain",
    "source_consistency",
    "source_contradiction_max",
    "self_consistency",
]


def test_batched_scores_equal_the_reference_loops() -> None:
    encoder, nli = HashEncoder(), RuleNLI()
    batched = score_chains(CHAINS, LOOP_METRICS, encoder=encoder, nli=nli, cache=False, batch_size=5, chunk_size=3)
    prepared = [prepare(c) for c in CHAINS]
    looped = loop_scores(
        [(p.source, p.hypothesis, p.reference) for p in prepared], HashEncoder(), RuleNLI(), LOOP_METRICS
    )
    assert [s.id for s in batched] == [c.id for c in CHAINS]
    for ours, theirs, chain in zip(batched, looped, CHAINS, strict=True):
        expected = {k: v for k, v in theirs.items()}
        got = {k: v for k, v in ours.scores.items() if v is not None}
        assert got.keys() == expected.keys(), chain.id
        for key in expected:
            assert got[key] == pytest.approx(expected[key], abs=1e-6), (chain.id, key)


def test_token_scores_equal_the_reference_token_loops() -> None:
    chains = [*CHAINS, Chain("tokenless", SOURCE_EN, ["Janet has 16 eggs.", "…", "Janet has 16 eggs."])]
    names = ["faithfulness_token", "repetition_token"]
    batched = score_chains(chains, names, encoder=HashEncoder(), token_embedder=HashTokens(), cache=False)
    prepared = [prepare(c) for c in chains]
    looped = loop_scores(
        [(p.source, p.hypothesis, p.reference) for p in prepared], HashEncoder(), None, names, HashTokens()
    )
    for ours, theirs in zip(batched, looped, strict=True):
        assert set(theirs) == set(names)
        for key in names:
            assert ours.scores[key] == pytest.approx(theirs[key], abs=1e-6), (ours.id, key)
    assert batched[-1].scores["repetition_token"] == pytest.approx(0.0)  # step 3 repeats step 1 word for word


def test_models_see_fixed_batches_of_distinct_items() -> None:
    encoder, nli = HashEncoder(), RuleNLI()
    twice = [*CHAINS, *(Chain(c.id + "-again", c.source, c.hypothesis, c.reference) for c in CHAINS)]
    score_chains(
        twice,
        ["source_consistency", "self_consistency", "faithfulness_step"],
        encoder=encoder,
        nli=nli,
        cache=False,
        batch_size=7,
    )
    pairs = [p for call in nli.calls for p in call]
    assert all(len(call) <= 7 for call in nli.calls)
    assert all(len(call) == 7 for call in nli.calls[:-1])  # full batches, whatever the chain lengths
    assert len(pairs) == len(set(pairs))  # the repeated chains cost no NLI call
    texts = [t for call in encoder.calls for t in call]
    assert len(texts) == len(set(texts))
    prepared = [prepare(c) for c in CHAINS]
    expected_pairs = {(s, h) for p in prepared for h in p.hypothesis for s in p.source + p.hypothesis}
    assert set(pairs) == expected_pairs


def test_scores_do_not_depend_on_chunking_or_batch_size() -> None:
    a = score_chains(
        CHAINS, LOOP_METRICS, encoder=HashEncoder(), nli=RuleNLI(), cache=False, chunk_size=1, batch_size=1
    )
    b = score_chains(
        CHAINS, LOOP_METRICS, encoder=HashEncoder(), nli=RuleNLI(), cache=False, chunk_size=100, batch_size=64
    )
    for x, y in zip(a, b, strict=True):
        assert x.scores == pytest.approx(y.scores)


def test_the_disk_cache_spares_the_second_run_any_model_call(tmp_path: Path) -> None:
    cache = ArrayCache(tmp_path / "c.sqlite")
    first = score_chains(
        CHAINS, ["faithfulness_step", "source_consistency"], encoder=HashEncoder(), nli=RuleNLI(), cache=cache
    )
    encoder, nli = HashEncoder(), RuleNLI()
    second = score_chains(CHAINS, ["faithfulness_step", "source_consistency"], encoder=encoder, nli=nli, cache=cache)
    assert encoder.calls == [] and nli.calls == []
    assert [s.scores for s in first] == [s.scores for s in second]


def test_missing_models_and_references_give_reasons_not_numbers(tmp_path: Path) -> None:
    chains = [*CHAINS, Chain("empty", SOURCE_EN, "   ")]
    out = {s.id: s for s in score_chains(chains, None, encoder=HashEncoder(), nli="none", cache=False)}
    assert out["en-1"].scores["faithfulness_step"] is not None
    assert out["en-1"].scores["source_consistency"] is None
    assert out["en-1"].unavailable["source_consistency"] == reason("no_model", "nli", "en")
    assert out["zh-2"].unavailable["reasoning_alignment"] == reason("no_reference")
    assert worded(out["zh-2"].unavailable["reasoning_alignment"], "zh") == "没有参考推理链（题目没有解析）"
    assert set(out["empty"].unavailable) == set(out["empty"].scores)
    assert set(out["empty"].unavailable.values()) == {reason("no_steps")}
    broken = score_chains(CHAINS[:1], ["source_consistency"], nli=str(tmp_path / "no-such-model"), cache=False)
    assert broken[0].scores == {"source_consistency": None}
    assert code_of(broken[0].unavailable["source_consistency"]) == "not_loaded"
    assert (worded(broken[0].unavailable["source_consistency"]) or "").startswith("could not load nli model")


def test_every_metric_is_reported_one_way_or_the_other() -> None:
    out = score_chains(
        CHAINS,
        ["all"],
        encoder=HashEncoder(),
        nli=RuleNLI(),
        token_embedder="none",
        lm="none",
        grammar="none",
        cache=False,
    )
    for s in out:
        assert set(s.scores) == set(METRICS)
        assert {k for k, v in s.scores.items() if v is None} == set(s.unavailable)


def test_encoder_is_chosen_by_language() -> None:
    en, zh = HashEncoder(), HashEncoder()
    zh.name = "hash-zh"
    out = score_chains(CHAINS, ["faithfulness_step"], encoder={"en": en, "zh": zh}, cache=False)
    assert [s.lang for s in out] == ["en", "en", "zh", "zh"]
    assert [s.models["encoder"] for s in out] == ["hash-encoder", "hash-encoder", "hash-zh", "hash-zh"]
    assert all("小明" not in t for call in en.calls for t in call)
    assert zh.calls and all(re.search(r"[\u4e00-\u9fff$]", t) for call in zh.calls for t in call)


def test_step_detail_flags_what_a_teacher_should_look_at() -> None:
    chain = Chain(
        "d",
        "Tom has 5 apples. He eats 2 apples.",
        [
            "Tom has 5 apples.",
            "The capital of France is Paris.",
            "Tom has 5 apples.",
            "He has 7 apples left.",
        ],
        ["Tom eats 2 of his 5 apples.", "5 - 2 = 3 apples are left."],
    )
    (out,) = score_chains(
        [chain],
        ["faithfulness_step", "source_consistency", "reasoning_alignment"],
        encoder=HashEncoder(),
        nli=RuleNLI(),
        cache=False,
    )
    steps = out.steps
    assert steps[0].source_index == 0 and steps[0].source_similarity == pytest.approx(1.0)
    assert "unsupported" in steps[1].flags and "not_in_reference" in steps[1].flags
    assert steps[2].repeat_index == 0 and "repeats_earlier" in steps[2].flags
    assert steps[3].contradiction == pytest.approx(0.9) and "contradicts_source" in steps[3].flags
    assert steps[3].contradiction_index in (0, 1)
    assert "repeats_earlier" not in steps[1].flags and steps[0].repeat_index is None
    assert out.source_steps == ["Tom has 5 apples.", "He eats 2 apples."]


def _content(prompt: str | list[dict[str, str]]) -> str:
    assert isinstance(prompt, list)  # chat messages
    return prompt[0]["content"]


def test_judge_nli_reads_labels_and_refuses_to_guess() -> None:
    def answer(request: GenerationRequest) -> str | None:
        prompt = prompt_text(request)
        if "Paris" in prompt:
            return "I am not sure."
        return "Contradiction." if "7 apples" in prompt else "entailment"

    backend = ScriptedBackend(answer, model="scripted-judge", out_of_order=True)
    judge = JudgeNLI(backend)
    chain = Chain("j", "Tom has 5 apples. He eats 2 apples.", ["Tom has 5 apples.", "He has 7 apples left."])
    (out,) = score_chains([chain], ["source_consistency", "source_contradiction_max"], nli=judge, cache=False)
    assert out.scores["source_contradiction_max"] == pytest.approx(1.0)
    assert out.models == {"nli": "judge:scripted:scripted-judge"}
    assert len(backend.requests) == 4
    assert "Premise: Tom has 5 apples." in _content(backend.requests[0].prompt)
    unsure = Chain("u", "Tom has 5 apples.", ["The capital of France is Paris.", "Tom has 5 apples."])
    (out,) = score_chains([unsure], ["source_consistency"], nli=judge, cache=False)
    assert out.scores["source_consistency"] is None
    assert worded(out.unavailable["source_consistency"]) == "the NLI model gave no answer for 1 of 2 pairs"


def test_judge_prompts_in_chinese_for_chinese_pairs() -> None:
    backend = ScriptedBackend("矛盾", model="scripted-judge")
    rows = JudgeNLI(backend).nli([("小明有5个苹果。", "小明有3个苹果。")])
    np.testing.assert_array_equal(rows, [[0.0, 0.0, 1.0]])
    assert "前提：小明有5个苹果。" in _content(backend.requests[0].prompt)
    down = JudgeNLI(ScriptedBackend(lambda request: None)).nli([("a", "b")])
    assert np.isnan(down).all()


@pytest.mark.parametrize("env", [{"K12EVAL_HOME": "home"}, {"XDG_CACHE_HOME": "xdg"}, {}])
def test_the_array_cache_lives_under_the_one_cache_root(
    env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from runners.files import cache_home

    for name in ("K12EVAL_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, folder in env.items():
        monkeypatch.setenv(name, str(tmp_path / folder))
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert ArrayCache().path == cache_home() / "cache" / "metrics.sqlite"
