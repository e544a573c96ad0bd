"""NLI through an LLM judge: ask any runners backend whether a premise entails or contradicts a hypothesis."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Literal

import numpy as np

from kg.records import detect_language
from reasoning_metrics.protocols import NLI_COLUMNS
from runners.backends.base import Backend, GenerationRequest, SamplingParams

_LABEL_WORDS = {
    "entailment": ("entail", "蕴含", "蕴涵"),
    "neutral": ("neutral", "中立"),
    "contradiction": ("contradict", "矛盾"),
}
_LABEL_PATTERN = re.compile("|".join(re.escape(w) for words in _LABEL_WORDS.values() for w in words), re.I)


@cache
def judge_prompts() -> dict[str, str]:
    """The prompt templates by language (``{premise}`` and ``{hypothesis}`` fields)."""
    text = resources.files("reasoning_metrics.models").joinpath("judge_prompts.json").read_text(encoding="utf-8")
    prompts: dict[str, str] = json.loads(text)
    return prompts


def parse_nli_label(text: str) -> str | None:
    """The first NLI label the answer names (English or Chinese), or ``None``."""
    match = _LABEL_PATTERN.search(text)
    if match is None:
        return None
    word = match.group().lower()
    return next(label for label, words in _LABEL_WORDS.items() if word in words)


class JudgeNLI:
    """An :class:`~reasoning_metrics.protocols.NLIModel` backed by a generating model.

    Each answer becomes a one-hot row; an answer naming no label (or a backend
    error) becomes a row of NaN, and the scores that need it are then reported
    unavailable instead of being computed from a guess.
    """

    def __init__(
        self,
        backend: Backend,
        *,
        language: Literal["auto", "zh", "en"] = "auto",
        chat: bool = True,
        max_tokens: int = 8,
    ) -> None:
        self.backend = backend
        self.name = f"judge:{backend.name}:{backend.model}"
        self.language = language
        self.chat = chat
        self.params = SamplingParams(temperature=0.0, max_tokens=max_tokens)

    def nli(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """``[len(pairs), 3]`` one-hot rows (entailment, neutral, contradiction), NaN where unreadable."""
        requests = [
            GenerationRequest(id=str(i), prompt=self._prompt(p, h), params=self.params)
            for i, (p, h) in enumerate(pairs)
        ]
        results = {r.id: r for r in self.backend.generate(requests)}
        out = np.full((len(pairs), 3), np.nan, dtype=np.float32)
        for i in range(len(pairs)):
            result = results.get(str(i))
            if result is None:
                continue
            label = parse_nli_label(result.texts[0]) if result.texts and not result.error else None
            if label is not None:
                out[i] = 0.0
                out[i, NLI_COLUMNS.index(label)] = 1.0
        return out

    def _prompt(self, premise: str, hypothesis: str) -> str | list[dict[str, str]]:
        language = self.language if self.language != "auto" else detect_language(premise + hypothesis)
        text = judge_prompts()[language].format(premise=premise, hypothesis=hypothesis)
        return [{"role": "user", "content": text}] if self.chat else text
