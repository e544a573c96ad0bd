"""``meta-eval --by``: per-group results against the planted set's originals or, for real answers, the correct ones."""

from __future__ import annotations

import re
from pathlib import Path

from reasoning_metrics.metaeval.detectors import DetectorResult
from reasoning_metrics.metaeval.groups import by_group, group_markdown
from reasoning_metrics.metaeval.solution import from_first_error


def _result(scores: list[float]) -> DetectorResult:
    return DetectorResult("d", "k12eval", "higher = wrong", list(scores), [[s, s] for s in scores])


def test_real_answers_are_grouped_by_kind_against_the_correct_solutions() -> None:
    solutions = [
        from_first_error("ok1", "p", ["a", "b"], -1, "zh", {"kind": None}),
        from_first_error("ok2", "p", ["a", "b"], -1, "zh", {"kind": None}),
        from_first_error("w1", "p", ["a", "b"], 0, "zh", {"kind": "false_fact"}),
        from_first_error("w2", "p", ["a", "b"], 1, "zh", {"kind": "wrong_model"}),
        from_first_error("w3", "p", ["a", "b"], 0, "zh", {"kind": "false_fact"}),
    ]
    # The detector separates false facts from correct solutions perfectly and misses the wrong model.
    rows = by_group(solutions, [_result([0.1, 0.2, 0.9, 0.0, 0.8])])
    by_kind = {r.group: r for r in rows}
    assert set(by_kind) == {"false_fact", "wrong_model"}
    assert (by_kind["false_fact"].solutions, by_kind["false_fact"].auroc) == (4, 1.0)
    assert (by_kind["wrong_model"].solutions, by_kind["wrong_model"].auroc) == (3, 0.0)
    assert "vs correct solutions" in group_markdown(rows)


def test_a_planted_set_is_still_compared_with_its_originals() -> None:
    solutions = [
        from_first_error("o", "p", ["a", "b"], -1, None, {"kind": "original"}),
        from_first_error("e", "p", ["a", "b"], 1, None, {"kind": "swap"}),
        from_first_error("c", "p", ["a", "b"], -1, None, {"kind": "reworded"}),
    ]
    rows = by_group(solutions, [_result([0.2, 0.9, 0.1])])
    assert [(r.group, r.solutions) for r in rows] == [("swap", 2), ("reworded", 2)]


def test_the_markdown_file_holds_the_by_table_the_terminal_shows(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from k12eval.cli import app

    chains = tmp_path / "chains.jsonl"
    rows = [
        {"id": "o", "problem": "3 + 4?", "steps": ["3 + 4 = 7", "The answer is 7."], "first_error": -1,
         "meta": {"kind": "original"}},
        {"id": "e", "problem": "3 + 4?", "steps": ["3 + 4 = 8", "The answer is 8."], "first_error": 0,
         "meta": {"kind": "number"}},
    ]  # fmt: skip
    chains.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "report.md"
    args = ["meta-eval", str(chains), "--format", "chains", "--encoder", "none", "--by", "kind", "--boot", "0"]
    result = CliRunner().invoke(app, [*args, "-d", "arithmetic", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "## By kind" in result.output and "## By kind" in out.read_text(encoding="utf-8")


def test_a_rate_between_none_and_all_is_never_printed_as_0_or_100_percent() -> None:
    """One flag of 902 right steps printed ``0 % (0-1 %)`` and none of them ``0 % (0-0 %)``, an interval of no
    width; 1/200 is 0.5 %, not 0 % (round half to even)."""
    from kg.intervals import percent, rate_text, wilson_interval

    assert rate_text(1, 902) == "1/902 = 0.1 % (0.02-1 %)"
    assert rate_text(0, 902) == "0/902 = 0 % (0-0.4 %)"
    assert rate_text(1, 200) == "1/200 = 0.5 % (0.1-3 %)"
    assert rate_text(102, 103) == "102/103 = 99 % (95-99.8 %)"
    assert rate_text(40, 40) == "40/40 = 100 % (91-100 %)"
    # kg stats' shares print one decimal, on the same rule: 1 of 500's Wilson low 0.035 % is not 0.0 %.
    assert (percent(1 / 500, 1), percent(wilson_interval(1, 500)[0], 1), percent(0.0, 1)) == ("0.2", "0.04", "0.0")
    for k, n in ((1, 10_000), (9_999, 10_000), (3, 919), (1, 2)):
        printed = re.fullmatch(rf"{k}/{n} = ([\d.]+) % \(([\d.]+)-([\d.]+) %\)", rate_text(k, n))
        assert printed, rate_text(k, n)
        for share, text in zip((k / n, *wilson_interval(k, n)), printed.groups(), strict=True):
            assert float(text) not in (0.0, 100.0) or share in (0.0, 1.0), (k, n, text)


def test_every_rate_is_quoted_with_its_count_and_interval() -> None:
    """#26 item 9: ``56/146 = 38 % (31-46 %)``, not a bare 0.384, in the main table and the groups'."""
    from kg.intervals import rate_text
    from reasoning_metrics.metaeval.harness import meta_evaluate
    from reasoning_metrics.metaeval.report_writer import to_markdown

    assert rate_text(56, 146) == "56/146 = 38 % (31-46 %)"
    assert rate_text(0, 0) == "0/0"
    solutions = [
        from_first_error("ok1", "p", ["a", "b"], -1, "zh", {"kind": None}),
        from_first_error("ok2", "p", ["a", "b"], -1, "zh", {"kind": None}),
        from_first_error("w1", "p", ["a", "b"], 0, "zh", {"kind": "false_fact"}),
        from_first_error("w2", "p", ["a", "b"], 1, "zh", {"kind": "wrong_model"}),
    ]
    result = DetectorResult("d", "k12eval", "higher = wrong", [0.1, 0.2, 0.9, 0.8], [[0.1], [0.2], [0.9], [0.8]])
    result.native = [-1, -1, 0, 0]  # finds w1's step, calls w2 wrong at the wrong step
    report = meta_evaluate(solutions, [result], n_boot=50)
    row = next(line for line in to_markdown(report).splitlines() if line.startswith("| d |"))
    assert f"| {rate_text(1, 2)} | {rate_text(2, 2)} |" in row, row
    assert "1/2 = 50 % (9-91 %)" in row
    table = group_markdown(by_group(solutions, [result], n_boot=50))
    assert "1/1 = 100 % (21-100 %)" in table and "0/1 = 0 % (0-79 %)" in table, table


def test_the_headline_comparison_quotes_counts_and_intervals_too() -> None:
    from reasoning_metrics.metaeval.harness import meta_evaluate
    from reasoning_metrics.metaeval.report_writer import to_markdown

    solutions = [
        from_first_error("ok1", "p", ["a", "b"], -1, "zh", {}),
        from_first_error("ok2", "p", ["a", "b"], -1, "zh", {}),
        from_first_error("w1", "p", ["a", "b"], 0, "zh", {}),
        from_first_error("w2", "p", ["a", "b"], 1, "zh", {}),
    ]
    head = DetectorResult("aggregate", "k12eval", "higher = wrong", [0.1, 0.2, 0.9, 0.8], [[0, 0]] * 4)
    head.native = [-1, 0, 0, 1]  # both first steps found, one correct solution called wrong
    roscoe = DetectorResult(
        "roscoe.x", "roscoe", "-x", [0.3, 0.1, 0.2, 0.9], [[0.1, 0.2], [0.3, 0.1], [0.9, 0.1], [0.1, 0.8]]
    )
    text = to_markdown(meta_evaluate(solutions, [head, roscoe], n_boot=20, folds=2))
    line = next(x for x in text.splitlines() if "Exact first wrong step" in x)
    assert "erroneous solutions: 2/2 = 100 % (34-100 %) vs " in line, line
    assert not __import__("re").search(r"solutions: \d\.\d{3} vs", line)
