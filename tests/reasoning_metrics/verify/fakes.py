"""Small deterministic stand-ins for models and backends (unit tests only; real ones are tested elsewhere)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


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
