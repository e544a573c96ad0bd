"""Small deterministic stand-ins for models and backends (unit tests only; real ones are tested elsewhere)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from runners.backends.base import (
    GenerationRequest,
    GenerationResult,
    LoglikelihoodRequest,
    LoglikelihoodResult,
)


class TableEncoder:
    """Encodes each text to the vector the table gives it (``default`` for others, if given)."""

    name = "table"

    def __init__(self, table: dict[str, list[float]], default: list[float] | None = None) -> None:
        self.table = table
        self.default = default
        self.calls = 0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        if self.default is None:
            return np.asarray([self.table[t] for t in texts], dtype=np.float32)
        return np.asarray([self.table.get(t, self.default) for t in texts], dtype=np.float32)


class WordNLI:
    """P(contradiction) = ``high`` when the hypothesis contains ``word``, else ``low``; columns e/n/c."""

    name = "word-nli"

    def __init__(self, word: str = "not", high: float = 0.9, low: float = 0.05) -> None:
        self.word, self.high, self.low = word, high, low
        self.pairs: list[tuple[str, str]] = []

    def nli(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        self.pairs.extend(pairs)
        rows = []
        for _, hypothesis in pairs:
            c = self.high if self.word in hypothesis.split() else self.low
            rows.append([(1 - c) / 2, (1 - c) / 2, c])
        return np.asarray(rows, dtype=np.float32).reshape(len(pairs), 3)


class ScriptedBackend:
    """Answers each generation request with ``answer(request)``; log-likelihoods from ``score(request)``."""

    name = "scripted"
    model = "scripted"

    def __init__(
        self,
        answer: Callable[[GenerationRequest], str] | None = None,
        score: Callable[[LoglikelihoodRequest], list[float]] | None = None,
    ) -> None:
        self.answer = answer or (lambda request: "")
        self.score = score or (lambda request: [0.0] * len(request.continuations))
        self.batches: list[int] = []

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        self.batches.append(len(requests))
        return [GenerationResult(id=r.id, texts=[self.answer(r)]) for r in requests]

    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list[LoglikelihoodResult]:
        self.batches.append(len(requests))
        return [LoglikelihoodResult(id=r.id, logprobs=self.score(r)) for r in requests]

    def count_tokens(self, text: str) -> int:
        return len(text.split())
