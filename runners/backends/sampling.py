"""Sampling defaults of the paper's protocol."""

from __future__ import annotations

from runners.backends.base import SamplingParams

CHAT_SAMPLING = SamplingParams(temperature=0.0, top_p=1.0)
"""Chat (instruction-tuned) models answer greedily."""
BASE_SAMPLING = SamplingParams(temperature=0.8, top_p=0.95)
"""Base models sample, as in the CK12 paper."""


def default_sampling(is_chat: bool) -> SamplingParams:
    """The paper's defaults: temperature 0 / top-p 1 for chat models, 0.8 / 0.95 for base models."""
    return CHAT_SAMPLING if is_chat else BASE_SAMPLING
