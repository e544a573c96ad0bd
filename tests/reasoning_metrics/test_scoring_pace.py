"""Scoring at GPU pace (#24 item 3): half precision within 1e-3 of float32, one tokenisation, batches that shrink on OOM.

A CPU has no fast half precision, but float16 arithmetic is the same format everywhere: the real
all-MiniLM-L6-v2 in float16 against float32, over Chinese and English chains, is the parity the
GPU default (``dtype`` ``auto``: float16 on CUDA) relies on. ``benchmarks/gpu_check.py`` measures
it again on the device.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from reasoning_metrics.records import Chain

from .tiny_models import build_classifier

pytestmark = [pytest.mark.real_model, pytest.mark.slow]

CHAINS = [
    Chain(
        "zh1",
        "小明有12个苹果，又买了5个，一共有多少个苹果？",
        ["小明原来有12个苹果。", "他又买了5个，12 + 5 = 17。", "所以一共有17个苹果。"],
        "12 + 5 = 17，答：一共有17个苹果。",
        lang="zh",
    ),
    Chain(
        "zh2",
        "解方程 2x + 3 = 11。",
        ["两边同时减去3，得到 2x = 8。", "两边同时除以2，得到 x = 5。", "检验：2×5+3=13，不等于11。", "答案是 x = 5。"],
        "2x = 8，x = 4。",
        lang="zh",
    ),
    Chain(
        "en1",
        "Janet's ducks lay 16 eggs per day. She eats three and bakes with four. She sells the rest at $2. How much does she make?",
        ["She has 16 - 3 - 4 = 9 eggs left.", "She sells them for 9 * 2 = 18 dollars.", "The answer is 18."],
        "16 - 3 - 4 = 9 eggs, 9 * 2 = $18.",
        lang="en",
    ),
    Chain(
        "en2",
        "A train travels 120 km in 2 hours. What is its average speed?",
        ["Speed is distance over time.", "120 / 2 = 80 km per hour.", "So the speed is 80 km/h."],
        "120 / 2 = 60 km/h.",
        lang="en",
    ),
]


@pytest.fixture(scope="module")
def nli_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_classifier(tmp_path_factory.mktemp("nli16"), {0: "entailment", 1: "neutral", 2: "contradiction"})


def _scores(minilm_path: str, nli_dir: Path, dtype: str, batch_size: int = 256) -> list[dict[str, Any]]:
    from reasoning_metrics.models.nli import TransformersNLI
    from reasoning_metrics.models.sbert import SentenceTransformerEncoder
    from reasoning_metrics.scoring import score_chains

    encoder = SentenceTransformerEncoder(minilm_path, device="cpu", dtype=dtype)
    nli = TransformersNLI(str(nli_dir), device="cpu", dtype=dtype)
    assert encoder.dtype_name == nli.dtype_name == dtype
    records = score_chains(CHAINS, "all", encoder, nli, "none", "none", "none", batch_size=batch_size, cache=False)
    return [r.scores for r in records]


def test_float16_is_within_1e_3_of_float32_on_every_metric(minilm_path: str, nli_dir: Path) -> None:
    full = _scores(minilm_path, nli_dir, "float32")
    half = _scores(minilm_path, nli_dir, "float16")
    compared = 0
    for a, b in zip(full, half, strict=True):
        assert a.keys() == b.keys()
        for name, value in a.items():
            if value is None:
                assert b[name] is None, name
                continue
            assert b[name] is not None and abs(value - b[name]) <= 1e-3, (name, value, b[name])
            compared += 1
    assert compared >= 4 * 10  # every chain, the encoder's and the NLI's metrics alike


def test_auto_is_float32_on_a_cpu_and_bfloat16_takes_the_same_path(minilm_path: str, nli_dir: Path) -> None:
    from reasoning_metrics.models.nli import TransformersNLI

    assert TransformersNLI(str(nli_dir), device="cpu").dtype_name == "float32"
    full = _scores(minilm_path, nli_dir, "float32")
    brain = _scores(minilm_path, nli_dir, "bfloat16")
    worst = max(abs(a[k] - b[k]) for a, b in zip(full, brain, strict=True) for k in a if a[k] is not None)
    assert 0 < worst < 0.05  # bfloat16 has 8 mantissa bits: close, not within 1e-3 (float16 is the GPU default)


def test_pairs_are_tokenised_once_padded_right_and_match_the_tokenizer_s_own_batches(nli_dir: Path) -> None:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from reasoning_metrics.models.nli import TransformersNLI

    nli = TransformersNLI(str(nli_dir), device="cpu", batch_size=3)
    first = [
        "所以 x = 2",
        "She makes 9 * 2 = 18 dollars every day at the market.",
        "答案 是 B",
        "The answer is 18.",
    ] * 2
    second = [
        "x = 2",
        "So the total is 3 bolts.",
        "因此 答案 是 B 。",
        "Janet sells 16 - 3 - 4 = 9 duck eggs a day.",
    ] * 2
    ours = nli._classifier.probabilities(first, second)
    tokenizer = AutoTokenizer.from_pretrained(nli_dir)
    model = AutoModelForSequenceClassification.from_pretrained(nli_dir).eval()
    with torch.no_grad():
        theirs = torch.softmax(model(**tokenizer(first, second, padding=True, return_tensors="pt")).logits, -1).numpy()
    np.testing.assert_allclose(ours, theirs, atol=1e-5)
    nli._classifier.pad_multiple = 16  # the GPU's rounded widths: masked padding changes no probability
    assert (
        nli._classifier._width(17) == 32
        and nli._classifier._width(nli._classifier.max_length) == nli._classifier.max_length
    )
    np.testing.assert_allclose(nli._classifier.probabilities(first, second), theirs, atol=1e-5)


def test_a_batch_out_of_gpu_memory_is_halved_and_the_smaller_batch_kept(
    nli_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reasoning_metrics.models.nli import TransformersNLI

    nli = TransformersNLI(str(nli_dir), device="cpu", batch_size=8)
    classifier = nli._classifier
    real = classifier._forward
    seen: list[int] = []

    def small_memory(encoded: Any, columns: list[str], rows: np.ndarray, width: int) -> np.ndarray:
        seen.append(len(rows))
        if len(rows) > 2:
            raise RuntimeError("CUDA out of memory. Tried to allocate 1.50 GiB")
        return real(encoded, columns, rows, width)

    monkeypatch.setattr(classifier, "_forward", small_memory)
    pairs = [(f"第{i}步：{i} + 1 = {i + 1}", f"{i + 1} 是答案") for i in range(7)]
    probs = nli.nli(pairs)
    assert probs.shape == (7, 3) and np.allclose(probs.sum(1), 1, atol=1e-5)
    assert seen[:3] == [7, 4, 2] and classifier.batch_size == 2 and set(seen[3:]) <= {1, 2}
