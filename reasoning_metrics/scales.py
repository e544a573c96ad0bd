"""A calibrated reading of the similarity scores, per encoder and language, beside the raw ROSCOE value.

Raw cos* = (1 + cos) / 2 lives in each encoder's own band: multilingual-e5-small gives a Chinese
step about 0.9 against an *unrelated* question, so Faithfulness-Step 0.92-0.97 says nothing a teacher
can read. The calibrated reading rescales against that floor: ``u`` is the median best match of a
step against an unrelated question of the same language (stored per encoder and language in
``encoder_scales.json`` by ``scripts/fit_encoder_scales.py``, measured on development halves only).

* a mean or minimum of best matches (Faithfulness-Step, Reasoning Alignment, Redundancy, Missing Step):
  ``(raw - u) / (1 - u)``, clipped to [0, 1]: 0 = no closer than an unrelated sentence, 1 = identical;
* Hallucination, ``1 - max_i (1 - a_i)(1 - b_i)``: the same rescaling of each factor,
  ``1 - (1 - raw) / (1 - u)**2``, clipped.

The raw values stay what the reference implementation computes (parity); the calibrated ones are a
monotone map of them per encoder and language, so they rank chains exactly as the raw ones do.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from reasoning_metrics.metric_table import METRICS, Scale

SCALES_FILE = Path(__file__).with_name("encoder_scales.json")

SCALED: dict[str, Scale] = {m.name: m.scale for m in METRICS.values() if m.scale is not None}
"""The metrics with a calibrated reading, and which formula gives it: read from their records
(:attr:`reasoning_metrics.metric_table.Metric.scale`)."""

SCALE_NAME = "above-unrelated"
SCALE = {
    "name": SCALE_NAME,
    "en": "0 = no closer than a sentence of an unrelated question, 1 = identical "
    "(rescaled for this encoder and language)",
    "zh": "0 = 与无关题目的句子一样相似，1 = 完全相同（按本编码器和语言换算）",
}
"""The scale's name and what it means, for the page."""


@cache
def _entries(path: Path = SCALES_FILE) -> dict[str, dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return {name.casefold(): entry for name, entry in data["encoders"].items()}


def encoder_key(encoder: str) -> str:
    """A hub id or folder as its last part, case-folded: ``intfloat/multilingual-e5-small`` -> ``multilingual-e5-small``."""
    return encoder.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1].casefold()


def encoder_entry(encoder: str | None) -> dict[str, Any] | None:
    """What ``encoder_scales.json`` stores for ``encoder`` (its name, hub id or folder), ``None`` if nothing."""
    return _entries().get(encoder_key(encoder)) if encoder else None


def rescaled(metric: str, value: float | None, floor: float | None) -> float | None:
    """The calibrated reading of ``metric``'s raw ``value`` on the scale whose floor is ``floor`` (``u``);
    ``None`` without a floor, a value or a formula for the metric. The floor is looked up with the
    thresholds, by the loaded encoder's name (:func:`reasoning_metrics.step_thresholds.calibration`)."""
    kind = SCALED.get(metric)
    if kind is None or floor is None or value is None or floor >= 1:
        return None
    out = (value - floor) / (1 - floor) if kind == "similarity" else 1 - (1 - value) / (1 - floor) ** 2
    return round(min(1.0, max(0.0, out)), 4)
