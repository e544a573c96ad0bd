"""ROSCOE computed the way its reference code loops, chain by chain: the baseline of the benchmark.

Written from the reference's structure (ParlAI ``projects/roscoe/score.py``), not
copied: sentence embeddings of all chains in one encoder call without
deduplication, embeddings divided by their squared norm, then for each chain
pure-Python alignment loops and NLI calls over that chain's pairs only, in
batches of ``max(1, 64 // len(premises))`` (the reference's ``discourse_batch``).
The tests use it as an independent oracle for the batched pipeline.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from reasoning_metrics.chain_inputs import join_chain
from reasoning_metrics.protocols import NLIModel, SentenceEncoder, TokenEmbedder

DISCOURSE_BATCH = 64


def _scaled_cos(a: np.ndarray, b: np.ndarray) -> float:
    return float((1.0 + np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))) / 2.0)


def _align(ref: Sequence[np.ndarray], hyp: Sequence[np.ndarray]) -> list[float]:
    """For each hypothesis item, its best scaled cosine to a reference item (loops, as the reference)."""
    out = []
    for h in hyp:
        scores = [_scaled_cos(h, r) for r in ref]
        if scores:
            out.append(max(scores))
    return out


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _contradictions(nli: NLIModel, premises: list[str], hypotheses: list[str]) -> list[float]:
    step = max(1, DISCOURSE_BATCH // len(premises))
    pairs = list(itertools.product(premises, hypotheses))
    probs: list[float] = []
    for start in range(0, len(pairs), step):
        probs.extend(float(p[2]) for p in nli.nli(pairs[start : start + step]))
    return probs


def loop_scores(
    chains: Sequence[tuple[list[str], list[str], list[str] | None]],
    encoder: SentenceEncoder,
    nli: NLIModel | None,
    metrics: Sequence[str],
    token_embedder: TokenEmbedder | None = None,
) -> list[dict[str, float]]:
    """Scores of ``(source, hypothesis, reference)`` step lists, by the reference's per-chain loops.

    Token embeddings, when asked for, are computed per chain (one call for its
    steps, one for its source sentences) and aligned token by token in Python.
    """
    texts: list[str] = []
    for source, hyp, ref in chains:
        texts += [*source, *hyp, *(ref or []), join_chain(hyp), join_chain(source), join_chain(ref or [])]
    emb = encoder.encode(texts)
    emb = emb / (emb**2).sum(axis=1, keepdims=True)  # as the reference: divided by the squared norm
    out = []
    at = 0
    for source, hyp, ref in chains:
        ref = ref or []
        s = list(emb[at : at + len(source)])
        h = list(emb[at + len(source) : at + len(source) + len(hyp)])
        r = list(emb[at + len(source) + len(hyp) : at + len(source) + len(hyp) + len(ref)])
        chain_h, chain_s, chain_r = emb[
            at + len(source) + len(hyp) + len(ref) : at + len(source) + len(hyp) + len(ref) + 3
        ]
        at += len(source) + len(hyp) + len(ref) + 3
        scores = _chain_scores(source, hyp, s, h, r, chain_h, chain_s, chain_r, nli, metrics)
        if token_embedder is not None:
            scores.update(_token_scores(token_embedder, source, hyp, _align(s, h), metrics))
        out.append(scores)
    return out


def _token_scores(
    model: TokenEmbedder, source: list[str], hyp: list[str], y_x: list[float], metrics: Sequence[str]
) -> dict[str, float]:
    h_words, s_words = model.embed_tokens(hyp), model.embed_tokens(source)
    scores: dict[str, float] = {}
    if "faithfulness_token" in metrics:
        tokens = _align([t for w in s_words for t in w], [t for w in h_words for t in w])
        scores["faithfulness_token"] = _mean(y_x + tokens)
    if "repetition_token" in metrics:
        if len(h_words) < 2:
            scores["repetition_token"] = 1.0
        else:
            most = []
            for i in range(1, len(h_words)):
                best = 0.0
                if len(h_words[i]):
                    for j in range(i):
                        if len(h_words[j]):
                            best = max(best, _mean(_align(list(h_words[j]), list(h_words[i]))))
                most.append(best)
            scores["repetition_token"] = 1 - max(most)
    return scores


def _chain_scores(
    source: list[str],
    hyp: list[str],
    s: list[np.ndarray],
    h: list[np.ndarray],
    r: list[np.ndarray],
    chain_h: np.ndarray,
    chain_s: np.ndarray,
    chain_r: np.ndarray,
    nli: NLIModel | None,
    metrics: Sequence[str],
) -> dict[str, float]:
    y_x, x_y = _align(s, h), _align(h, s)
    scores: dict[str, float] = {
        "faithfulness_step": _mean(y_x),
        "info_step": (_mean(y_x) + _mean(x_y)) / 2,
        "info_chain": (1 + _scaled_cos(chain_h, chain_s)) / 2,
    }
    if len(h) > 1:
        best = max(max(_scaled_cos(h[j], h[i]) for j in range(i)) for i in range(1, len(h)))
        scores["repetition_step"] = (1 - best) / 2
    else:
        scores["repetition_step"] = 1.0
    if r:
        y_r, r_y, r_x = _align(r, h), _align(h, r), _align(s, r)
        scores["reasoning_alignment"] = _mean(y_r)
        scores["hallucination"] = 1 - max((1 - a) * (1 - b) for a, b in zip(y_r, y_x, strict=True))
        scores["redundancy"] = min(y_r)
        scores["commonsense"] = 1 - max((1 - a) * (1 - b) for a, b in zip(r_y, r_x, strict=True))
        scores["missing_step"] = min(r_y)
        scores["semantic_coverage_step"] = 1 - abs(_mean(r_x) - _mean(y_x))
        scores["semantic_coverage_chain"] = (1 + _scaled_cos(chain_h, chain_r)) / 2
    if nli is not None and any(m in metrics for m in ("source_consistency", "source_contradiction_max")):
        worst = max(_contradictions(nli, source, hyp))
        scores["source_consistency"] = 1 - worst
        scores["source_contradiction_max"] = worst
    if nli is not None and "self_consistency" in metrics:
        scores["self_consistency"] = 1 - max(_contradictions(nli, hyp, hyp))
    return {k: v for k, v in scores.items() if k in metrics and not math.isnan(v)}
