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

The models themselves (transformers, vLLM) are adapters in :mod:`reasoning_metrics.models.prm`;
this module is the model-free part: prompts, reading the head's output, the threshold rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

PRM_SEPARATOR = "<extra_0>"
"""The step separator of Qwen2.5-Math-PRM (token 151651 of the Qwen2.5 tokenizer)."""
PRM_SYSTEM = "Please reason step by step, and put your final answer within \\boxed{}."
"""The system prompt of the model card's usage example."""
PRM_THRESHOLD = 0.5
"""A step whose P(correct) is below this is wrong: the argmax of two labels (see the module doc)."""


class StepRewardModel(Protocol):
    """A process reward model: P(correct) of every step of every solution, in one batched call."""

    name: str

    def step_probabilities(self, solutions: Sequence[tuple[str, Sequence[str]]]) -> list[list[float] | None]:
        """Per ``(problem, steps)``, one P(correct) per step; ``None`` where the model could not score it
        (too long for the model, or the separators did not survive tokenisation)."""
        ...


def prm_messages(problem: str, steps: Sequence[str], system: str = PRM_SYSTEM) -> list[dict[str, str]]:
    """The chat the model card builds: system prompt, question, steps each closed by the separator.

    A separator written inside model text would count as a step of its own: it is removed from the
    steps and the question (model text is untrusted).
    """
    clean = [step.replace(PRM_SEPARATOR, " ") for step in steps]
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": problem.replace(PRM_SEPARATOR, " ")},
        {"role": "assistant", "content": PRM_SEPARATOR.join(clean) + PRM_SEPARATOR},
    ]


def positive_at_separators(
    token_ids: Sequence[int], positive: Sequence[float], separator_id: int, n_steps: int
) -> list[float] | None:
    """P(correct) of each step: ``positive[i]`` at every position ``i`` whose token is the separator.

    ``positive`` is the positive label's probability at every token (the model card's
    ``make_step_rewards``), or already only at the separators (vLLM's ``STEP`` pooling with
    ``step_tag_id`` set). ``None`` when the number of separators is not ``n_steps`` (a truncated
    prompt, or a tokenizer that split the separator).
    """
    at = [i for i, token in enumerate(token_ids) if token == separator_id]
    if len(at) != n_steps:
        return None
    if len(positive) == len(token_ids):
        return [float(positive[i]) for i in at]
    if len(positive) == n_steps:
        return [float(p) for p in positive]
    return None


def first_below(probabilities: Sequence[float], threshold: float = PRM_THRESHOLD) -> int:
    """The first step whose P(correct) is below ``threshold``, -1 if none is."""
    return next((i for i, p in enumerate(probabilities) if p < threshold), -1)
