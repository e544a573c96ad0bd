"""Process reward models of the Qwen2.5-Math-PRM kind: the probability that each step is correct.

How the published model is used (model card of ``Qwen/Qwen2.5-Math-PRM-7B``,
https://huggingface.co/Qwen/Qwen2.5-Math-PRM-7B): a chat with its system prompt, the question as
the user's turn and the steps as the assistant's, each step followed by the separator token
``<extra_0>``; the model (``Qwen2ForProcessRewardModel``, remote code) puts a two-label
token-classification head on every position, and a step's reward is the softmax probability of
the positive label at the separator that closes it.

The first suspect is the first step whose P(correct) is below :data:`PRM_THRESHOLD` (0.5). That is
how ProcessBench scores a PRM with a two-label head: its evaluation script takes the argmax of the
two labels at each step and predicts the first step whose argmax is the negative label
(``find_first_zero`` in ``code/run_eval_prm_trl.py`` of https://github.com/QwenLM/ProcessBench;
Zheng et al., "ProcessBench: Identifying Process Errors in Mathematical Reasoning", 2024,
https://arxiv.org/abs/2412.06559), i.e. P(correct) < 0.5.

The models themselves (transformers, vLLM) are adapters in :mod:`reasoning_metrics.models.prm_model`, and the
model's input and output format (the chat, the separator, reading the head at the separators) sits beside
them in :mod:`reasoning_metrics.models.prm_format`; this module is the detector's part: what a step reward
model offers and the threshold rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

PRM_THRESHOLD = 0.5
"""A step whose P(correct) is below this is wrong: the argmax of two labels (see the module doc)."""


class StepRewardModel(Protocol):
    """A process reward model: P(correct) of every step of every solution, in one batched call."""

    name: str

    def step_probabilities(self, solutions: Sequence[tuple[str, Sequence[str]]]) -> list[list[float] | None]:
        """Per ``(problem, steps)``, one P(correct) per step; ``None`` where the model could not score it
        (too long for the model, or the separators did not survive tokenisation)."""
        ...


def first_below(probabilities: Sequence[float], threshold: float = PRM_THRESHOLD) -> int:
    """The first step whose P(correct) is below ``threshold``, -1 if none is."""
    return next((i for i, p in enumerate(probabilities) if p < threshold), -1)
