"""Per-step detail for teachers: what each step matches, what it contradicts, and warning flags."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reasoning_metrics.records import Flag, StepDetail


@dataclass(frozen=True)
class StepThresholds:
    """When a step is flagged. Similarities are ``cos* = (1 + cos) / 2``.

    The defaults were read off all-MiniLM-L6-v2 on GSM8K-style steps (an unrelated sentence
    scores about 0.5-0.6 against a question, a restatement 0.85-0.95) and hold for no other
    encoder: scoring takes each encoder's own, fitted and stored with its name
    (:func:`reasoning_metrics.step_thresholds.thresholds_for`).
    """

    support: float = 0.70
    """``unsupported``: best match below this in the source and, if there is one, in the reference."""
    contradiction: float = 0.5
    """``contradicts_source``: P(contradiction) with some source sentence at or above this."""
    repeat: float = 0.95
    """``repeats_earlier``: cos* with an earlier step at or above this (cos >= 0.9)."""
    reference: float = 0.70
    """``not_in_reference``: best match in the reference below this."""


def step_details(
    steps: list[str],
    sim_hs: np.ndarray | None,
    sim_hr: np.ndarray | None,
    sim_hh: np.ndarray | None,
    contra_hs: np.ndarray | None,
    thresholds: StepThresholds,
    contra_hh: np.ndarray | None = None,
) -> list[StepDetail]:
    """One :class:`StepDetail` per hypothesis step, from whichever matrices are given (not ``None``)."""
    details = []
    for i, text in enumerate(steps):
        d = StepDetail(index=i, text=text)
        if sim_hs is not None and sim_hs.shape[1]:
            d.source_index, d.source_similarity = _best(sim_hs[i])
        if sim_hr is not None and sim_hr.shape[1]:
            d.reference_index, d.reference_similarity = _best(sim_hr[i])
        if sim_hh is not None and i > 0:
            d.repeat_index, d.repeat_similarity = _best(sim_hh[i, :i])
        if contra_hs is not None and contra_hs.shape[1] and np.isfinite(contra_hs[i]).all():
            d.contradiction_index, d.contradiction = _best(contra_hs[i])
        if contra_hh is not None and i > 0 and np.isfinite(contra_hh[i, :i]).all():
            d.earlier_contradiction_index, d.earlier_contradiction = _best(contra_hh[i, :i])
        d.flags = flags_of(d, thresholds)
        details.append(d)
    return details


def _best(row: np.ndarray) -> tuple[int, float]:
    j = int(np.argmax(row))
    return j, float(row[j])


def flags_of(d: StepDetail, t: StepThresholds) -> list[Flag]:
    """The flags a step's best matches raise under ``t``."""
    flags: list[Flag] = []
    weak_source = d.source_similarity is not None and d.source_similarity < t.support
    if weak_source and (d.reference_similarity is None or d.reference_similarity < t.support):
        flags.append("unsupported")
    if d.contradiction is not None and d.contradiction >= t.contradiction:
        flags.append("contradicts_source")
    if d.repeat_similarity is not None and d.repeat_similarity >= t.repeat:
        flags.append("repeats_earlier")
    if d.reference_similarity is not None and d.reference_similarity < t.reference:
        flags.append("not_in_reference")
    return flags
