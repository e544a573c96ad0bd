"""Step-flag thresholds per sentence encoder: fitted, stored with the encoder's name, looked up by it.

An encoder's cos* lives in its own band: all-MiniLM-L6-v2 scores an unrelated sentence about
0.5-0.6 against a question, multilingual-e5-small about 0.8-0.9 against a Chinese one. One set of
thresholds for both flags nearly every e5 step ``repeats_earlier`` and none ``unsupported``.
``encoder_scales.json`` (package data, written by ``scripts/fit_encoder_scales.py``) holds, per
encoder and language, the thresholds fitted on the correct steps of the development halves of a
labelled set (:func:`fit`), and what they were fitted on; an encoder or language not in it gets
:class:`StepThresholds`' defaults, read off all-MiniLM-L6-v2 on English and not fitted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, fields
from typing import Any

import numpy as np

from reasoning_metrics.records import StepDetail
from reasoning_metrics.scales import encoder_entry
from reasoning_metrics.step_detail import StepThresholds, flags_of

ENCODER_FLAGS = ("unsupported", "repeats_earlier", "not_in_reference")
"""The flags whose threshold is a similarity, so depends on the encoder (``contradicts_source`` reads an NLI model)."""


def fitted_for(encoder: str | None, lang: str | None) -> dict[str, float] | None:
    """The thresholds stored for ``encoder`` on chains of ``lang``; ``None`` if none were fitted."""
    entry = encoder_entry(encoder) or {}
    return (entry.get("thresholds") or {}).get(lang or "")


def thresholds_for(encoder: str | None, lang: str | None) -> StepThresholds:
    """The thresholds stored for ``encoder`` (its name, hub id or folder) and ``lang``, else the defaults."""
    stored = fitted_for(encoder, lang)
    if stored is None:
        return StepThresholds()
    names = {f.name for f in fields(StepThresholds)}
    return StepThresholds(**{k: float(v) for k, v in stored.items() if k in names})


def describe(encoder: str | None, lang: str | None) -> dict[str, Any]:
    """The thresholds ``lang``'s chains are flagged with, whose they are and whether fitted, for a score header."""
    fitted = fitted_for(encoder, lang) is not None
    return {"encoder": encoder, "fitted": fitted, **asdict(thresholds_for(encoder, lang))}


def fit(correct: Sequence[StepDetail], rate: float) -> dict[str, float]:
    """Thresholds under which each similarity flag fires on at most ``rate`` of ``correct`` steps.

    ``unsupported`` fires below ``support`` in the source *and* the reference, so ``support`` is the
    ``rate`` quantile of each step's better match; ``not_in_reference`` is the ``rate`` quantile of
    the reference match; ``repeats_earlier`` fires at or above ``repeat``, the ``1 - rate`` quantile
    of the match with an earlier step, nudged up so that ties at the quantile do not fire.
    """
    best = np.array([b for d in correct if (b := _better(d)) is not None], dtype=float)
    reference = np.array([d.reference_similarity for d in correct if d.reference_similarity is not None], dtype=float)
    repeat = np.array([d.repeat_similarity for d in correct if d.repeat_similarity is not None], dtype=float)
    out: dict[str, float] = {}
    if best.size:
        out["support"] = float(np.quantile(best, rate, method="lower"))
    if reference.size:
        out["reference"] = float(np.quantile(reference, rate, method="lower"))
    if repeat.size:
        out["repeat"] = float(np.nextafter(np.quantile(repeat, 1 - rate, method="higher"), 2.0))
    return {k: round(v, 4) if k != "repeat" else float(np.ceil(v * 1e4) / 1e4) for k, v in out.items()}


def _better(d: StepDetail) -> float | None:
    """The step's better match, source or reference: what ``unsupported`` compares (only with a source)."""
    if d.source_similarity is None:
        return None
    return max(v for v in (d.source_similarity, d.reference_similarity) if v is not None)


def flag_counts(steps: Iterable[StepDetail], thresholds: StepThresholds) -> dict[str, tuple[int, int]]:
    """Per similarity flag, (steps it fires on, steps it could fire on) under ``thresholds``."""
    counts = {kind: [0, 0] for kind in ENCODER_FLAGS}
    for d in steps:
        fired = flags_of(d, thresholds)
        can = {
            "unsupported": _better(d) is not None,
            "repeats_earlier": d.repeat_similarity is not None,
            "not_in_reference": d.reference_similarity is not None,
        }
        for kind in ENCODER_FLAGS:
            if can[kind]:
                counts[kind][1] += 1
                counts[kind][0] += kind in fired
    return {k: (v[0], v[1]) for k, v in counts.items()}
