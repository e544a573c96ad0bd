"""The report shows the learned combiner's step probabilities, scored through ``ScoreOptions(combiner=...)``
as ``k12eval score --combiner default`` does; score files made without a combiner show as before (#15 item 4)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from kg.errors import InputError
from reasoning_metrics.combine import load_combiner
from reasoning_metrics.score_store import read_score_lines
from reports import write_report
from reports.combiner import combiner_info
from reports.runs import read_run
from tests.reasoning_metrics.fakes import HashEncoder, RuleNLI
from tests.reasoning_metrics.written_runs import score_run_composed, write_bank, write_run

FAKES = {"encoder": HashEncoder(), "nli": RuleNLI()}
WRONG = {"q-eggs": "每天下16个蛋。吃掉3个，用掉4个。所以剩下16-3-4=8个。答案：A"}


def page_data(out: Path) -> dict[str, Any]:
    html = (out / "index.html").read_text(encoding="utf-8")
    match = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)
    assert match, "no data block"
    return json.loads(match.group(1))


def scored_run(root: Path, combiner: bool) -> Path:
    run = write_run(root / "run", write_bank(root / "bank"), outputs=WRONG)
    chosen = ("default", load_combiner("default")) if combiner else None
    list(score_run_composed(run, models=FAKES, cache=False, combiner=chosen).records)
    return run


def test_the_page_carries_each_steps_probability_the_first_suspect_and_the_combiner(tmp_path: Path) -> None:
    run = scored_run(tmp_path, combiner=True)
    write_report([run], tmp_path / "report", plots=False)
    data = page_data(tmp_path / "report")
    combiner = load_combiner("default")
    (entry,) = data["runs"]
    header = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    training = [t["name"] for t in combiner.training]
    assert entry["combiner"] == {"name": "default", "recorded": header["combiner"], "training": training}
    records = {r["question_id"]: r for _, r in read_score_lines(run / "scores.jsonl")}
    order = list(data["questions"]["id"])
    checked = 0
    for i, answer in data["answers"][entry["id"]].items():
        record = records.get(order[int(i)])
        verdict = record and record["combined"]
        if not verdict:
            assert answer["combined"] is None and all("p" not in s for s in answer["steps"])
            continue
        checked += 1
        expected = verdict["first_suspect"] if verdict["first_suspect"] >= 0 else None
        graded_wrong = answer["correct"] is False  # which of the combiner's two rules chose the suspect
        own = combiner.for_language(record["lang"])  # the chain language's combiner
        assert answer["combined"] == {
            "first_suspect": expected,
            "threshold": round(own.threshold, 4),
            "graded_wrong": graded_wrong,
            "locate": own.locate,  # which step a step over the threshold puts forward (#36 item 3)
        }
        assert [s["p"] for s in answer["steps"]] == [round(p, 4) for p in verdict["step_probabilities"]]
    assert checked == 2  # both answered questions; the third failed and has no steps
    wrong = data["answers"][entry["id"]][str(order.index("q-eggs"))]
    assert max(s["p"] for s in wrong["steps"]) > max(
        s["p"] for a in data["answers"][entry["id"]].values() if a is not wrong for s in a["steps"]
    ), "the step with the slip should be the likeliest first wrong step"


def test_a_score_file_from_before_the_combiner_still_renders_as_before(tmp_path: Path) -> None:
    run = scored_run(tmp_path, combiner=False)
    # As an older version wrote them: no `combined` in the records, no `combiner` in the header.
    lines = [json.loads(line) for line in (run / "scores.jsonl").read_text(encoding="utf-8").splitlines()]
    assert lines and all(line.pop("combined", "gone") is None for line in lines)
    (run / "scores.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), "utf-8")
    header = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    assert header.pop("combiner", "gone") is None
    (run / "scores.json").write_text(json.dumps(header), encoding="utf-8")
    write_report([run], tmp_path / "report", plots=False)
    data = page_data(tmp_path / "report")
    assert data["runs"][0]["combiner"] is None
    answers = list(data["answers"][data["runs"][0]["id"]].values())
    assert any(a["steps"] and a["first_suspect"] is not None for a in answers)  # the rule's verdict, as before
    assert all(a["combined"] is None and all("p" not in s for s in a["steps"]) for a in answers)


def test_a_bad_score_header_is_named(tmp_path: Path) -> None:
    run = scored_run(tmp_path, combiner=True)
    (run / "scores.json").write_text('{"metrics": "not a list"}', encoding="utf-8")
    with pytest.raises(InputError, match=r"scores\.json, field 'metrics'"):
        read_run(run)


def test_the_training_data_is_named_only_while_the_combiner_is_the_one_that_scored(tmp_path: Path) -> None:
    from reasoning_metrics.combine.apply import fingerprint

    text = json.loads(load_combiner("default").to_json())
    text["training"] = [{"name": "<img src=x onerror=alert(1)>"}, {"name": "ck12"}]
    path = tmp_path / "combiner.json"
    path.write_text(json.dumps(text), encoding="utf-8")
    recorded = fingerprint(str(path), load_combiner(path))
    info = combiner_info(recorded)
    assert (info.name, info.training) == (str(path), ("<img src=x onerror=alert(1)>", "ck12"))
    text["intercept"] += 1  # refitted after the scoring: its data is not what made the probabilities
    path.write_text(json.dumps(text), encoding="utf-8")
    assert combiner_info(recorded).training is None
    path.unlink()
    assert combiner_info(recorded).training is None and combiner_info(recorded).name == str(path)


def test_a_combiner_that_cannot_run_leaves_the_page_as_without_one(tmp_path: Path) -> None:
    """A combiner reading ROSCOE scores, scored with no encoder (as ``make demo`` could be): no verdicts, and
    the page shows the rule's suspects with no probabilities; nothing fails."""
    raw = json.loads(load_combiner("default").to_json())
    raw["features"].append("roscoe.alignment")
    raw["coefficients"].append(-1.0)
    path = tmp_path / "roscoe-combiner.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    combiner = load_combiner(path)
    assert combiner.uses_roscoe
    run = write_run(tmp_path / "run", write_bank(tmp_path / "bank"), outputs=WRONG)
    job = score_run_composed(
        run, models={"nli": RuleNLI()}, metrics=["source_consistency"], cache=False, combiner=(str(path), combiner)
    )
    records = list(job.records)
    assert records and all(r.assessment is not None and r.combined is None for r in records)
    write_report([run], tmp_path / "report", plots=False)
    data = page_data(tmp_path / "report")
    assert data["runs"][0]["combiner"]["name"] == str(path)  # the header names it: it was asked for
    answers = [a for a in data["answers"][data["runs"][0]["id"]].values() if a["steps"]]
    assert answers and all(a["combined"] is None and all("p" not in s for s in a["steps"]) for a in answers)
