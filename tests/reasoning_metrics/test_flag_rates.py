"""Does a kind of flag point at errors? Its rate on first wrong steps against right steps (#36 item 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.intervals import wilson_interval
from reasoning_metrics.metaeval.data import LabelledSolution
from reasoning_metrics.metaeval.flag_rates import Counts, flag_rates, rates_json, rates_markdown
from reasoning_metrics.metaeval.halves import half_of
from reasoning_metrics.metaeval.solution import from_first_error
from reasoning_metrics.records import ChainScores, StepDetail
from reasoning_metrics.verify.flags import SolutionAssessment, StepAssessment, StepFlag


def test_the_rule_asks_for_separate_intervals_and_a_ratio_above_one() -> None:
    clear = Counts(wrong=20, wrong_steps=50, right=5, right_steps=500)
    assert clear.points_at_errors()
    ratio = clear.ratio()
    assert ratio is not None and ratio[1] > 1 and ratio[0] == pytest.approx((20 / 50) / (5 / 500))
    # A kind that fires as often on right steps (3 % vs 4 %) is context, however many steps.
    assert not Counts(wrong=6, wrong_steps=203, right=28, right_steps=690).points_at_errors()
    # More often on wrong steps, but the intervals overlap: not shown to point at errors.
    overlap = Counts(wrong=3, wrong_steps=20, right=5, right_steps=100)
    assert wilson_interval(3, 20)[0] < wilson_interval(5, 100)[1] and not overlap.points_at_errors()
    assert Counts(0, 40, 0, 400).ratio() is None and not Counts(0, 40, 0, 400).points_at_errors()


def _scored(sid: str, flags: list[list[str]], kinds: list[list[str]]) -> tuple[ChainScores, SolutionAssessment]:
    steps = [StepDetail(index=i, text=f"步骤{i}", flags=f) for i, f in enumerate(flags)]  # type: ignore[arg-type]
    found = [
        StepAssessment(
            index=i,
            suspicion=0.5 if k else 0.0,
            flags=[StepFlag(kind=kind, severity=0.5, message="m") for kind in k],  # type: ignore[arg-type]
        )
        for i, k in enumerate(kinds)
    ]
    return ChainScores(id=sid, lang="zh", steps=steps), SolutionAssessment(
        id=sid, score=0.5, first_suspect=-1, steps=found
    )


def _in(half: str, prefix: str) -> str:
    """A solution id that the fixed split puts in ``half``."""
    return next(f"{prefix}{k}" for k in range(100) if half_of(f"{prefix}{k}") == half)


def test_each_kind_is_counted_on_first_wrong_steps_and_right_steps_of_each_half() -> None:
    dev_wrong, dev_right, confirm_wrong = _in("dev", "w"), _in("dev", "r"), _in("confirm", "w")
    solutions: list[LabelledSolution] = [
        from_first_error(dev_wrong, "题", ["a", "b", "c", "d"], 1),  # step 0 right, 1 first wrong, 2-3 unknown
        from_first_error(dev_right, "题", ["a", "b"], -1),  # both steps right
        from_first_error(confirm_wrong, "题", ["a", "b"], 0),
    ]
    pairs = [
        _scored(
            dev_wrong, [[], ["repeats_earlier"], ["repeats_earlier"], []], [[], ["arithmetic"], [], ["arithmetic"]]
        ),
        _scored(dev_right, [["repeats_earlier"], []], [[], []]),
        _scored(confirm_wrong, [[], []], [["arithmetic"], []]),
    ]
    rows = {r.kind: r for r in flag_rates(solutions, [p[0] for p in pairs], [p[1] for p in pairs])}
    # arithmetic: the dev first wrong step (1 of 1), no dev right step (0 of 3); after the first error: not counted
    assert rows["arithmetic"].halves["dev"] == Counts(1, 1, 0, 3)
    assert rows["arithmetic"].halves["confirm"] == Counts(1, 1, 0, 0)
    assert rows["repeats_earlier"].halves["dev"] == Counts(1, 1, 1, 3)
    assert rows["repeats_earlier"].source == "similarity" and rows["arithmetic"].source == "detector"
    assert not rows["arithmetic"].points_at_errors  # one step: the intervals overlap
    table = rates_markdown(list(rows.values()), "test")
    assert "| arithmetic | detector | 1/1 = 100 % (21-100 %) | 0/3 = 0 % (0-56 %) |" in table
    data = rates_json(list(rows.values()), command="k12eval meta-eval x --flag-rates")
    assert data["kinds"]["arithmetic"]["dev"]["wrong_rate"] == "1/1 = 100 % (21-100 %)"
    assert data["command"] == "k12eval meta-eval x --flag-rates"


@pytest.mark.slow
@pytest.mark.shared_data
def test_the_command_prints_and_writes_one_measurement(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``k12eval meta-eval --flag-rates`` on real Chinese labelled answers: the JSON it writes (what the page
    reads) and the table it prints hold the same counts, and a --half is refused. The ck12-labels format joins
    the CK12 release's questions: skipped where the shared data is absent."""
    monkeypatch.setenv("K12EVAL_CK12", str(shared_data / "ck12"))
    import json

    from typer.testing import CliRunner

    from k12eval.cli import app

    data = Path(__file__).parents[2] / "data" / "ck12_errors" / "qwen2.5-coder-0.5b-instruct.jsonl"
    args = ["meta-eval", str(data), "--format", "ck12-labels", "--flag-rates", "--nli", "none", "--encoder", "none"]
    out = tmp_path / "evidence.json"
    result = CliRunner().invoke(app, [*args, "--limit", "30", "--boot", "20", "--out", str(out)])
    assert result.exit_code == 0, result.output
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written["solutions"] == 30 and written["format"] == "ck12-labels" and written["kinds"]
    for kind, row in written["kinds"].items():  # each kind's printed row carries the written dev rates
        line = next(x for x in result.stdout.splitlines() if x.startswith(f"| {kind} |"))
        assert row["dev"]["wrong_rate"] in line and row["dev"]["right_rate"] in line, (kind, line)
    refused = CliRunner().invoke(app, [*args, "--half", "dev"])
    assert refused.exit_code != 0 and "--flag-rates reports both halves" in refused.output
