"""The calibrated reading of the similarity scores per encoder and language (#23 item 1)."""

from __future__ import annotations

import pytest

from reasoning_metrics import functional as F
from reasoning_metrics.scales import SCALE, SCALED, calibrated, encoder_entry, separation, unrelated_floor

E5 = "multilingual-e5-small"


def test_the_floor_is_stored_per_encoder_and_language_from_development_halves() -> None:
    u = unrelated_floor(E5, "zh")
    assert u is not None and 0.5 < u < 1  # e5's Chinese band: an unrelated question still scores high
    assert "dev" in encoder_entry(E5)["unrelated"]["zh"]["from"]  # type: ignore[index]
    assert unrelated_floor(E5, "en") is None and unrelated_floor("all-mpnet-base-v2", "zh") is None


def test_the_scale_reads_zero_at_an_unrelated_sentence_and_one_at_identity() -> None:
    u = unrelated_floor(E5, "zh")
    assert u is not None
    assert calibrated("faithfulness_step", u, E5, "zh") == 0.0
    assert calibrated("faithfulness_step", 1.0, E5, "zh") == 1.0
    assert calibrated("reasoning_alignment", u - 0.05, E5, "zh") == 0.0  # below the floor: clipped
    mid = calibrated("redundancy", (1 + u) / 2, E5, "zh")
    assert mid == pytest.approx(0.5, abs=1e-3)
    # Hallucination from the reference formula: one step at the floor against both sides reads 0, on a 0-1 scale.
    import numpy as np

    at_floor = F.hallucination(np.array([[u]]), np.array([[u]]))
    assert calibrated("hallucination", at_floor, E5, "zh") == pytest.approx(0.0, abs=1e-3)
    assert calibrated("hallucination", 1.0, E5, "zh") == 1.0


def test_no_reading_without_a_stored_floor_or_for_an_unscaled_metric() -> None:
    assert calibrated("faithfulness_step", 0.95, "unknown-encoder", "zh") is None
    assert calibrated("faithfulness_step", 0.95, E5, "en") is None
    assert calibrated("source_consistency", 0.95, E5, "zh") is None
    assert calibrated("faithfulness_step", None, E5, "zh") is None


def test_the_scale_is_named_in_both_languages() -> None:
    assert SCALE["name"] and "无关" in SCALE["zh"] and "unrelated" in SCALE["en"]


def test_every_page_metric_has_a_measured_separation_on_the_chinese_set() -> None:
    rows = separation(E5, "zh")
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
    from reasoning_metrics.step_detail import StepThresholds
    from reasoning_metrics.step_thresholds import thresholds_for

    u = unrelated_floor("sentence-transformers/all-MiniLM-L6-v2", "en")
    e5 = unrelated_floor(E5, "zh")
    assert u is not None and e5 is not None and u < 0.7 < e5  # the two encoders' bands differ, as the scale says
    assert thresholds_for("all-MiniLM-L6-v2", "en") == StepThresholds()  # --scale-only: not replaced
    assert calibrated("faithfulness_step", 0.95, "all-MiniLM-L6-v2", "en") != calibrated(
        "faithfulness_step", 0.95, E5, "zh"
    )
