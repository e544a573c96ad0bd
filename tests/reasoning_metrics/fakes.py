"""Fast deterministic stand-ins for the models, for unit tests (the real models: test_adapters)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np


class HashEncoder:
    """Bag of hashed words and characters: similar texts get similar vectors. Records every call."""

    name = "hash-encoder"

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim
        self.calls: list[list[str]] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for token in re.findall(r"\w+|[^\w\s]", text.lower()):
                h = int(hashlib.md5(token.encode()).hexdigest(), 16)
                out[i, h % self.dim] += 1.0 if (h >> 8) % 2 else -1.0
            out[i, 0] += 0.5  # never a zero vector
        return out


class RuleNLI:
    """P(contradiction) is high when the two texts end in different numbers; records every call."""

    name = "rule-nli"

    def __init__(self) -> None:
        self.calls: list[list[tuple[str, str]]] = []

    def nli(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        self.calls.append(list(pairs))
        out = np.zeros((len(pairs), 3), dtype=np.float32)
        for i, (p, h) in enumerate(pairs):
            a, b = re.findall(r"\d+", p), re.findall(r"\d+", h)
            contra = 0.9 if a and b and a[-1] != b[-1] else 0.05 + 0.01 * (len(p) % 7)
            out[i] = [(1 - contra) * 0.7, (1 - contra) * 0.3, contra]
        return out


class HashTokens:
    """One hashed vector per word, nudged by its neighbour (a crude 'contextual' embedding)."""

    name = "hash-tokens"

    def __init__(self, dim: int = 16) -> None:
        self.dim = dim

    def embed_tokens(self, texts: Sequence[str]) -> list[np.ndarray]:
        out = []
        for text in texts:
            words = re.findall(r"\w+", text.lower())
            rows = np.zeros((len(words), self.dim), dtype=np.float32)
            for i, word in enumerate(words):
                rng = np.random.default_rng(int(hashlib.md5(word.encode()).hexdigest()[:8], 16))
                rows[i] = rng.normal(size=self.dim)
                if i:
                    rows[i] += 0.3 * rows[i - 1]
            out.append(rows)
        return out
