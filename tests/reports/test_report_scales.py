"""The page data carries each score's calibrated reading, the scale's name in both languages, and which
score columns separated nothing on the labelled set, with the reason (#23 item 1)."""

from __future__ import annotations

from pathlib import Path

from reasoning_metrics.runs import score_run
from reasoning_metrics.scales import SCALE, SCALED, separation
from reports import write_report
from tests.reasoning_metrics.fakes import HashEncoder, RuleNLI
from tests.reasoning_metrics.runs import write_bank, write_run
from tests.reports.test_report_combiner import WRONG, page_data

E5 = "multilingual-e5-small"


class _NamedAsE5(HashEncoder):
    name = E5  # a fast stand-in: the page plumbing reads the encoder's name, not its vectors


def test_the_page_carries_calibrated_scores_the_scale_and_the_columns_that_separate_nothing(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", write_bank(tmp_path / "bank"), outputs=WRONG)
    list(score_run(run, models={"encoder": _NamedAsE5(), "nli": RuleNLI()}, cache=False).records)
    write_report([run], tmp_path / "report", plots=False)
    data = page_data(tmp_path / "report")
    assert data["scale"] == SCALE
    (entry,) = data["runs"]
    answers = [a for a in data["answers"][entry["id"]].values() if a["scores"]]
    assert len(answers) >= 2
    for metric in ("faithfulness_step", "reasoning_alignment", "hallucination", "redundancy"):
        pairs = [
            (a["scores"][metric], a["calibrated"].get(metric)) for a in answers if a["scores"].get(metric) is not None
        ]
        assert pairs and all(c is not None and 0.0 <= c <= 1.0 for _, c in pairs), (metric, pairs)
        ordered = sorted(pairs)
        assert [c for _, c in ordered] == sorted(c for _, c in ordered)  # the same order as the raw scores
    for a in answers:
        assert set(a["calibrated"]) <= set(SCALED) and "source_consistency" not in a["calibrated"]
    stored = separation(E5, "zh")
    for metric, column in entry["columns"].items():
        assert column["separates"] == stored[metric]["separates"]
        if column["separates"] is False:
            assert "0.5" in column["en"] and "0.5" in column["zh"] and "AUROC" in column["zh"]
