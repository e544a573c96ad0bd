"""The metric table: names, aliases, directions, the default set."""

from __future__ import annotations

import inspect

import pytest

from reasoning_metrics.metric_table import DEFAULT_METRICS, INPUT_MODEL, METRICS, resolve


def test_default_set_is_the_ck12_papers_five_with_both_source_consistencies() -> None:
    assert [m.paper_name for m in resolve(None)] == [
        "Faithfulness-Step",
        "Source-Consistency",
        "Source-Consistency (CK12 paper, lower is better)",
        "Reasoning Alignment",
        "Hallucination",
        "Redundancy",
    ]
    assert list(DEFAULT_METRICS) == [m.name for m in resolve(["default"])]


def test_roscoe_keys_and_paper_names_resolve_to_the_same_metric() -> None:
    assert [m.name for m in resolve(["discourse_representation", "Source-Consistency", "source_consistency"])] == [
        "source_consistency"
    ]
    assert resolve(["external_hallucination"])[0].name == "hallucination"
    assert resolve(["coherence_step_vs_step"])[0].name == "self_consistency"
    assert resolve(["Faithfulness-Token"])[0].roscoe_key == "faithfulness_ww"


def test_all_and_unknown() -> None:
    assert len(resolve(["all"])) == len(METRICS) == 21
    with pytest.raises(ValueError, match=r"unknown metric.*bogus"):
        resolve(["faithfulness", "bogus"])


def test_only_the_papers_contradiction_max_is_lower_is_better() -> None:
    assert [m.name for m in METRICS.values() if m.direction == "lower"] == ["source_contradiction_max"]


def test_every_metric_function_takes_exactly_its_inputs() -> None:
    for metric in METRICS.values():
        assert len(inspect.signature(metric.fn).parameters) == len(metric.inputs), metric.name
        assert all(i in INPUT_MODEL for i in metric.inputs)
        assert metric.description and metric.paper_name


def test_reference_based_metrics() -> None:
    needs = {m.name for m in METRICS.values() if m.needs_reference}
    assert needs == {
        "reasoning_alignment",
        "hallucination",
        "redundancy",
        "commonsense",
        "missing_step",
        "semantic_coverage_step",
        "semantic_coverage_chain",
    }


def test_each_metric_declares_its_direction_and_titles_on_its_record() -> None:
    from reports.payload import metric_entry

    for metric in METRICS.values():
        assert metric.direction in ("higher", "lower")
        assert metric.labels["zh"] and metric.labels["en"], metric.name
        arrow = "↑" if metric.direction == "higher" else "↓"
        entry = metric_entry(metric.name)  # the page reads the record, no second table
        assert (entry["zh"], entry["en"]) == (f"{metric.labels['zh']} {arrow}", f"{metric.labels['en']} {arrow}")
    contradiction = METRICS["source_contradiction_max"]
    assert (contradiction.direction, contradiction.labels) == (
        "lower",
        {"zh": "与题目矛盾（最大概率）", "en": "Source-Contradiction-Max"},
    )
