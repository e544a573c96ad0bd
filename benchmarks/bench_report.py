"""Where a report's time goes, per phase, on synthetic runs of a CK12-sized bank, measured in one run.

python benchmarks/bench_report.py [--questions 13000] [--runs 3]

Writes a synthetic bank and runs under a temporary folder (nothing from ../shared/data),
then times each phase of `k12eval report` and prints its share of the total, the
size of index.html per answered question and the process's peak resident memory.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kg.graph import node_ids
from kg.records import Knowledge, Option, Question, QuestionType, Stage
from runners.records import RunHeader, RunRecord
from runners.store import RunStore

SUBJECTS = ["语文", "数学", "英语", "物理", "化学", "生物", "历史", "政治", "地理"]


def synthetic(root: Path, questions: int, runs: int, seed: int = 0) -> list[Path]:
    """Run folders (with step scores on the first) over ``questions`` synthetic questions."""
    rng = random.Random(seed)
    bank = []
    for i in range(questions):
        subject = SUBJECTS[i % len(SUBJECTS)]
        bank.append(
            Question(
                id=f"q{i}",
                source="bench",
                stage=Stage.MIDDLE,
                subject=subject,
                group="science" if subject in ("数学", "物理", "化学", "生物") else "arts",
                type=QuestionType.SINGLE,
                stem=f"已知 $$x^{{2}}={i}$$，下列说法不正确的是（第 {i} 题）" * 2,
                options=[Option(label=c, text=f"选项 {c} $$\\frac{{1}}{{{i % 7 + 2}}}$$") for c in "ABCD"],
                answer=["A"],
                analysis="【分析】先化简。\n【解答】代入得 $$\\sqrt{2}\\times 3$$。\n故选A。",
                knowledge=Knowledge(level1=f"一级{i % 60}", level2=f"二级{i % 300}"),
                difficulty=rng.choice(["易", "中档", "难"]),
            )
        )
    dirs = []
    for r in range(runs):
        store = RunStore(root / f"run{r}")
        store.open(RunHeader(model=f"model{r % 2}", backend="replay", mode=["few-shot-cot", "few-shot"][r % 2]))
        records, scores = [], []
        for q in bank:
            right = rng.random() < 0.6
            output = "代入 x=2。\n" * 4 + ("故选A。" if right else "故选D。")
            records.append(
                RunRecord(
                    question_id=q.id,
                    nodes=node_ids(q),
                    subject=q.subject,
                    type=q.type.value,
                    stage="middle",
                    prompt="p",
                    output=output,
                    extracted=["A" if right else "D"],
                    gold=q.answer,
                    correct=right,
                )
            )
            if r == 0:
                steps = [
                    {
                        "index": k,
                        "text": "代入 x=2。",
                        "flags": ["unsupported"] if k == 2 and not right else [],
                        "best_source": {"index": 0, "text": "已知 x²", "similarity": 0.7},
                    }
                    for k in range(5)
                ]
                scores.append({"question_id": q.id, "scores": {"faithfulness": rng.random()}, "steps": steps})
        store.append(records)
        (store.root / "scores.jsonl").write_text("".join(json.dumps(s, ensure_ascii=False) + "\n" for s in scores))
        dirs.append(store.root)
    return dirs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--questions", type=int, default=13000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from reports.aggregate import SCORE_PREFIX, node_table, question_frame, score_columns
    from reports.html import render
    from reports.payload import build_payload
    from reports.runs import graph_of, load_runs
    from reports.writer import build_tables

    with tempfile.TemporaryDirectory() as tmp:
        dirs = synthetic(Path(tmp), args.questions, args.runs)
        phases: list[tuple[str, float]] = []
        start = time.perf_counter()

        def lap(name: str) -> None:
            nonlocal start
            now = time.perf_counter()
            phases.append((name, now - start))
            start = now

        runs, _ = load_runs(dirs)
        lap("read runs and scores")
        graph = graph_of(runs)
        lap("build graph")
        frame = question_frame(runs, graph)
        lap("question frame")
        nodes = node_table(frame, graph)
        lap("node table (all slices)")
        build_tables(frame, graph, 4, None, None)
        lap("paper tables and analyses")
        metrics = [c.removeprefix(SCORE_PREFIX) for c in score_columns(frame)]
        payload = build_payload(runs, graph, metrics, nodes, [], {"title": "bench", "version": "", "generated": ""})
        lap("page data")
        html = render(payload)
        lap("render html")
    total = sum(t for _, t in phases)
    answered = args.questions * args.runs
    print(f"{args.questions} questions x {args.runs} runs ({len(nodes)} node rows), total {total:.2f} s")
    for name, seconds in phases:
        print(f"  {name:28s} {seconds:7.2f} s  {100 * seconds / total:5.1f}%")
    size = len(html.encode("utf-8"))
    print(f"index.html {size / 1e6:.1f} MB, {size / answered:.0f} bytes per answered question")
    # ru_maxrss is in KiB on Linux; it covers the synthetic data as well as the report.
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB (whole process)")


if __name__ == "__main__":
    main()
