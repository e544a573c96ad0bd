"""The input and output format of Qwen2.5-Math-PRM-style process reward models, without the model.

The model card of ``Qwen/Qwen2.5-Math-PRM-7B`` (https://huggingface.co/Qwen/Qwen2.5-Math-PRM-7B): a chat
with its system prompt, the question as the user's turn and the steps as the assistant's, each step
followed by the separator token ``<extra_0>``; a step's reward is the positive label's probability at the
separator that closes it. The adapters in :mod:`reasoning_metrics.models.prm_model` build their token ids from
:func:`prm_messages` and read their output with :func:`positive_at_separators`; the detector's rule on
those probabilities is :mod:`reasoning_metrics.verify.rules.prm`.
"""

from __future__ import annotations

from collections.abc import Sequence

PRM_SEPARATOR = "<extra_0>"
"""The step separator of Qwen2.5-Math-PRM (token 151651 of the Qwen2.5 tokenizer)."""
PRM_SYSTEM = "Please reason step by step, and put your final answer within \\boxed{}."
"""The system prompt of the model card's usage example."""


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
