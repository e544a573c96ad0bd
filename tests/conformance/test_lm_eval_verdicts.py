"""lm-eval's own verdicts kept on replay (#34 item 2), on real ``--log_samples`` files and their ``results_*.json``.

The files (tests/conformance/lm_eval/, listed in the README with source, commit and licence) are
replayed onto banks written from their own documents (:mod:`tests.conformance.lm_eval_bank`). For each:

- ``--grader harness`` gives the figure lm-eval printed in the ``results_*.json`` it wrote beside the
  samples, value and standard error, in ``results.json`` under lm-eval's own ``metric,filter`` key (a
  file trimmed to its first documents: the mean of the verdicts its lines hold);
- k12eval's own grading keeps the harness's verdicts on each record, and the report's agreement table
  counts the answers on which the two differ, each listed in the disagreements table.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from runners.store import RunStore
from tests.conformance.lm_eval_bank import bank_from_samples

HERE = Path(__file__).parent / "lm_eval"
CASES = [
    # folder, samples file, strategy, the (metric, filter) lm-eval reports, answers only k12eval / only lm-eval grades right
    ("llama3.1-pro16-nc-chat", "samples_winogrande_2024-12-23T13-55-42.730635.jsonl", "generate",
     "exact_match,get-answer", (0, 2)),
    ("llama3.1-pro16-nc-chat", "samples_leaderboard_mmlu_pro_2024-12-23T09-13-20.697490.jsonl", "generate",
     "exact_match,get-answer", (5, 0)),
    ("llama3.1-pro16-nc-chat-loglikelihood", "samples_winogrande_2024-12-23T13-17-27.691350.jsonl", "rank-options",
     "acc,none", (0, 0)),
    ("solar-10.7b-instruct", "samples_leaderboard_math_prealgebra_hard_2024-11-14T16-01-56.818889.jsonl", "generate",
     "exact_match,none", (4, 0)),
]  # fmt: skip


def _run(bank: Path, samples: Path, out: Path, strategy: str, *extra: str) -> dict[str, object]:
    result = CliRunner().invoke(
        app, ["run", str(bank), "-b", "replay", "-m", str(samples), "-o", str(out), "--strategy", strategy, *extra]
    )
    assert result.exit_code == 0, result.output
    return json.loads((out / "results.json").read_text(encoding="utf-8"))


def _lm_eval_figure(samples: Path, key: str) -> tuple[float, float]:
    """What lm-eval printed for the file: its results_*.json, or for a trimmed file the mean of its lines'
    verdicts with lm-eval's standard error."""
    task = samples.name.removeprefix("samples_").rsplit("_2024-", 1)[0]
    date = samples.name.rsplit("_", 1)[1].removesuffix(".jsonl")
    results = json.loads((samples.parent / f"results_{date}.json").read_text(encoding="utf-8"))
    written = results["results"][task]
    metric, filter_name = key.split(",")
    lines = [json.loads(line) for line in samples.read_text(encoding="utf-8").splitlines()]
    if results["n-samples"][task]["effective"] == len(lines):
        return written[key], written[f"{metric}_stderr,{filter_name}"]
    values = [float(line[metric]) for line in lines]
    mean = sum(values) / len(values)
    return mean, (sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5 / len(values) ** 0.5


@pytest.mark.slow
@pytest.mark.parametrize(("folder", "name", "strategy", "key", "only"), CASES, ids=[c[1][8:30] for c in CASES])
def test_the_harness_grader_gives_lm_evals_figure_and_the_report_counts_the_disagreements(
    tmp_path: Path, folder: str, name: str, strategy: str, key: str, only: tuple[int, int]
) -> None:
    samples = HERE / folder / name
    bank = bank_from_samples([samples], tmp_path / "bank")
    task = samples.name.removeprefix("samples_").rsplit("_2024-", 1)[0]

    graded = _run(bank, samples, tmp_path / "harness", strategy, "--grader", "harness")
    value, stderr = _lm_eval_figure(samples, key)
    metric, filter_name = key.split(",")
    assert graded["results"][task][key] == pytest.approx(value, abs=1e-12)
    assert graded["results"][task][f"{metric}_stderr,{filter_name}"] == pytest.approx(stderr, abs=1e-12)

    own = _run(bank, samples, tmp_path / "own", strategy)
    records = RunStore(tmp_path / "own").records()
    assert all(r.harness and r.harness["verdicts"] and r.harness["target"] is not None for r in records)
    summary = json.loads((tmp_path / "own" / "summary.json").read_text(encoding="utf-8"))
    low, high = summary["all"]["accuracy_interval"]
    assert low <= summary["all"]["accuracy"] <= high
    assert own["n-samples"][task] == {"original": len(records), "effective": summary["all"]["scored"]}

    report = tmp_path / "report"
    shown = CliRunner().invoke(app, ["report", str(tmp_path / "own"), "-o", str(report), "--no-plots"])
    assert shown.exit_code == 0, shown.output
    with (report / "tables" / "harness_agreement.csv").open(encoding="utf-8") as handle:
        (row,) = list(csv.DictReader(handle))
    assert (row["task"], row["metric"], int(row["n"])) == (task, key, len(records))
    assert (int(row["only_k12eval_right"]), int(row["only_harness_right"])) == only
    with (report / "tables" / "harness_disagreements.csv").open(encoding="utf-8") as handle:
        listed = list(csv.DictReader(handle))
    assert len(listed) == sum(only) == len(records) - int(row["agree"])
    by_id = {r.question_id: r for r in records}
    for item in listed:  # each listed answer is one the two graders really differ on
        record = by_id[item["question"]]
        harness_right = float(record.harness["verdicts"][0]["metrics"][metric]) == 1.0  # type: ignore[index]
        assert record.correct is not harness_right and item["k12eval"] == ("right" if record.correct else "wrong")
