"""ROSCOE's formulas as pure functions of arrays, as the reference code computes them.

Notation (see ``../shared/ROSCOE.md``): ``h`` the hypothesis steps (N), ``s`` the
source sentences (T), ``r`` the reference steps (K). Similarity matrices hold
``cos* = (1 + cos) / 2`` and are oriented *rows = the items being aligned*:

- ``sim_hs[i, j] = cos*(h_i, s_j)``, shape ``[N, T]``; ``sim_hr`` ``[N, K]``; ``sim_rs`` ``[K, T]``;
  ``sim_hh[i, j] = cos*(h_i, h_j)``, ``[N, N]``.
- ``r-align(x_k -> Y) = max_j cos*(x_k, y_j)`` is a row maximum, so
  ``r-align(h -> s)`` is ``sim_hs.max(axis=1)`` and ``r-align(s -> h)`` is ``sim_hs.max(axis=0)``.
- Contradiction matrices hold P(contradiction), rows = the NLI hypothesis, columns =
  the premise: ``contra_hs[i, j] = P(contra | premise s_j, hypothesis h_i)``, ``contra_hh`` likewise.

Every function expects non-empty inputs (the caller reports a score as unavailable
instead); each quirk of the reference is kept and marked ``Quirk``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

FloatArray = np.ndarray


def cos_star(a: FloatArray, b: FloatArray) -> FloatArray:
    """``(1 + cos) / 2`` between every row of ``a`` ``[n, d]`` and of ``b`` ``[m, d]``: shape ``[n, m]``.

    Quirk: the reference divides embeddings by their *squared* norm before the
    cosine; the cosine renormalises, so plain normalisation gives the same values.
    """
    return (1.0 + unit_rows(a) @ unit_rows(b).T) / 2.0


def unit_rows(x: FloatArray) -> FloatArray:
    """Rows scaled to unit length (zero rows stay zero)."""
    x = np.asarray(x, dtype=np.float64)
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.where(norms == 0, 1.0, norms)


def r_align(sim: FloatArray) -> FloatArray:
    """``r-align(x -> Y)`` for every row item ``x``: the row maxima of a ``cos*`` matrix."""
    return np.asarray(sim).max(axis=1)


def faithfulness_step(sim_hs: FloatArray) -> float:
    """Faithfulness-Step: mean_i r-align(h_i -> s)."""
    return float(r_align(sim_hs).mean())


def faithfulness_token(sim_hs: FloatArray, token_align_hs: FloatArray) -> float:
    """Faithfulness-Token: mean of [r-align(h_i -> s) per step] + [r-align(t -> source tokens) per token].

    Quirk: the reference concatenates the N step values with the (many more)
    token values and averages the lot, so tokens outweigh steps.
    ``token_align_hs`` is :func:`token_alignment` of the hypothesis tokens against all source tokens.
    """
    return float(np.concatenate([r_align(sim_hs), np.asarray(token_align_hs, dtype=np.float64)]).mean())


def info_step(sim_hs: FloatArray) -> float:
    """Info-Step: (mean r-align(h -> s) + mean r-align(s -> h)) / 2."""
    sim = np.asarray(sim_hs)
    return float((sim.max(axis=1).mean() + sim.max(axis=0).mean()) / 2.0)


def info_chain(chain_sim_hs: float) -> float:
    """Info-Chain: ``(1 + cos*(chain(h), chain(s))) / 2``.

    Quirk: cos* is already in [0, 1] and the reference scales it again, so the range is [0.5, 1].
    """
    return (1.0 + float(chain_sim_hs)) / 2.0


def repetition_token(step_token_align_hh: FloatArray) -> float:
    """Repetition-Token: 1 - max over i >= 1, j < i of the token alignment of h_i to h_j.

    ``step_token_align_hh[i, j]`` is the mean over the tokens of h_i of their best
    cos* to the tokens of h_j (:func:`step_token_alignment`), NaN where either step has no token.
    Quirk: a 1-step chain scores 1.0, and a step without tokens counts as 0 alignment.
    """
    m = np.asarray(step_token_align_hh, dtype=np.float64)
    if len(m) < 2:
        return 1.0
    lower = np.where(np.tril(np.ones(m.shape, dtype=bool), k=-1) & ~np.isnan(m), m, 0.0)
    return float(1.0 - lower[1:].max())


def repetition_step(sim_hh: FloatArray) -> float:
    """Repetition-Step: (1 - max over i >= 1, j < i of cos*(h_i, h_j)) / 2.

    Quirk: halved, so the range is [0, 0.5], yet a 1-step chain scores 1.0.
    """
    m = np.asarray(sim_hh, dtype=np.float64)
    if len(m) < 2:
        return 1.0
    return float((1.0 - m[np.tril_indices(len(m), k=-1)].max()) / 2.0)


def source_consistency(contra_hs: FloatArray) -> float:
    """Source-Consistency (``discourse_representation``): 1 - max P(contradiction) over pairs (s_j, h_i)."""
    return float(1.0 - np.max(contra_hs))


def source_contradiction_max(contra_hs: FloatArray) -> float:
    """The CK12 paper's Source-Consistency: the max P(contradiction) itself, lower is better."""
    return float(np.max(contra_hs))


def self_consistency(contra_hh: FloatArray) -> float:
    """Self-Consistency (``coherence_step_vs_step``): 1 - max P(contradiction) over ordered step pairs.

    Quirk: the pairs include each step against itself (i = j).
    """
    return float(1.0 - np.max(contra_hh))


def reasoning_alignment(sim_hr: FloatArray) -> float:
    """Reasoning Alignment: mean_i r-align(h_i -> r)."""
    return float(r_align(sim_hr).mean())


def hallucination(sim_hr: FloatArray, sim_hs: FloatArray) -> float:
    """Hallucination (``external_hallucination``): 1 - max_i (1 - r-align(h_i->r))(1 - r-align(h_i->s))."""
    return float(1.0 - ((1.0 - r_align(sim_hr)) * (1.0 - r_align(sim_hs))).max())


def redundancy(sim_hr: FloatArray) -> float:
    """Redundancy: min_i r-align(h_i -> r)."""
    return float(r_align(sim_hr).min())


def commonsense(sim_hr: FloatArray, sim_rs: FloatArray) -> float:
    """Commonsense (``common_sense_error``): 1 - max_k (1 - r-align(r_k -> h)) (1 - r-align(r_k -> s))."""
    r_to_h = np.asarray(sim_hr).max(axis=0)
    return float(1.0 - ((1.0 - r_to_h) * (1.0 - r_align(sim_rs))).max())


def missing_step(sim_hr: FloatArray) -> float:
    """Missing Step: min_k r-align(r_k -> h)."""
    return float(np.asarray(sim_hr).max(axis=0).min())


def semantic_coverage_step(sim_rs: FloatArray, sim_hs: FloatArray) -> float:
    """Semantic Coverage-Step: 1 - |mean r-align(r -> s) - mean r-align(h -> s)|."""
    return float(1.0 - abs(r_align(sim_rs).mean() - r_align(sim_hs).mean()))


def semantic_coverage_chain(chain_sim_hr: float) -> float:
    """Semantic Coverage-Chain: ``(1 + cos*(chain(h), chain(r))) / 2``.

    Quirk: scaled twice, as Info-Chain, so the range is [0.5, 1].
    """
    return (1.0 + float(chain_sim_hr)) / 2.0


def perplexity_step(step_ppl: FloatArray) -> float:
    """Perplexity-Step: 1 / (token-weighted mean of the steps' perplexities).

    ``step_ppl`` is ``[N, 2]``: each step's perplexity and token count.
    Quirk: the reference averages perplexities, not log-losses, weighting each by its token count.
    """
    ppl = np.asarray(step_ppl, dtype=np.float64)
    return float(1.0 / ((ppl[:, 0] * ppl[:, 1]).sum() / ppl[:, 1].sum()))


def perplexity_step_max(step_ppl: FloatArray) -> float:
    """Perplexity-Step-Max: 1 / the largest step perplexity."""
    return float(1.0 / np.asarray(step_ppl, dtype=np.float64)[:, 0].max())


def perplexity_chain(chain_ppl: float) -> float:
    """Perplexity-Chain: 1 / the perplexity of the steps joined by spaces."""
    return 1.0 / float(chain_ppl)


def grammar_step(acceptability: FloatArray) -> float:
    """Grammar-Step: mean_i P(acceptable | h_i)."""
    return float(np.mean(acceptability))


def grammar_step_max(acceptability: FloatArray) -> float:
    """Grammar-Step-Max: min_i P(acceptable | h_i) (named after the most likely error)."""
    return float(np.min(acceptability))


def token_alignment(tokens_h: FloatArray, tokens_s: FloatArray) -> FloatArray:
    """For every hypothesis token (rows of ``tokens_h``), its best cos* to any source token."""
    return r_align(cos_star(tokens_h, tokens_s))


def step_token_alignment(tokens: FloatArray, lengths: Sequence[int] | np.ndarray) -> FloatArray:
    """``[N, N]``: entry ``[i, j]`` is the mean over step i's tokens of their best cos* to step j's tokens.

    ``tokens`` stacks the token embeddings of all N steps (``sum(lengths)`` rows);
    entries involving a step without tokens are NaN.
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    n = len(lengths)
    out = np.full((n, n), np.nan)
    present = np.flatnonzero(lengths > 0)
    if len(present) == 0:
        return out
    sim = cos_star(tokens, tokens)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])[present]
    best = np.maximum.reduceat(sim, starts, axis=1)  # [tokens, steps with tokens]: best match in step j
    mean = np.add.reduceat(best, starts, axis=0) / lengths[present][:, None]
    out[np.ix_(present, present)] = mean
    return out
