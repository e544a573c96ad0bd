"""Memory and time of `k12eval report` and `k12eval kg stats` on a synthetic bank of N questions (#32 item 5).

    python benchmarks/bench_scale.py --questions 100000 1000000 [--work DIR] [--keep]

For each N, writes a CK12-layout bank of N questions (the bundled sample's 63 questions copied with new ids and
knowledge points, about 20 questions a level-2 point) and a run folder that answered every question (each copy's
record made by the real extraction and grading from the sample question's own analysis, or from a wrong or an
unreadable answer), then runs the user's commands in child processes::

    k12eval kg stats BANK --json
    k12eval report RUN --out OUT

and prints each one's wall time and peak resident memory (``os.wait4``: that child alone), with the ratio to the
goals of #32: report <= 0.5 GB per 100,000 questions, `kg stats` on 1M questions < 2 minutes. The load average is
printed beside the times (peak memory does not depend on it). Nothing from ../shared/data is read.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

SAMPLE = REPO / "k12eval" / "data" / "sample"
REPORT_GOAL_GB_PER_100K = 0.5
STATS_GOAL_S_PER_1M = 120.0
PER_POINT = 20
"""About this many questions per level-2 knowledge point (the CK12 release has 15)."""


def _templates() -> list[dict[str, Any]]:
    """The bundled sample's raw CK12 records, in file order."""
    rows = []
    for file in sorted(SAMPLE.rglob("*.jsonl")):
        rows += [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows


def _outcomes(raw: dict[str, Any]) -> list[dict[str, Any]]:
    """Three records of the sample question ``raw`` as a run writes them: its analysis as the answer (mostly
    right), a wrong-looking answer and an unreadable one; graded by the real extraction and grading."""
    from kg.importers.ck12 import parse_record
    from kg.records import Question
    from runners.errortypes import error_type
    from runners.extract import extract
    from runners.grading import grade
    from runners.records import make_record

    question = parse_record(raw, Path("sample.jsonl"), 1)
    assert isinstance(question, Question), question
    options = "\n".join(f"{o.label}. {o.text}" for o in question.options)
    prompt = f"以下是中国考试的{raw['task_type']}题，请一步一步思考并给出答案。\n\n{raw['prompt']}\n{options}\n答案："
    out = []
    for output in (raw["analysis"] or "故选A。", "这道题我认为是：\n故选D。", "不知道。"):
        found = extract(question, output)
        verdict = grade(question, found.answer)
        record = make_record(
            question,
            prompt,
            output=output,
            extracted=found.answer,
            parse_status=found.status,
            correct=verdict.correct,
            partial=verdict.partial,
            error_type=error_type(output, found.status, verdict.correct),
            shots=0,
            prompt_tokens=len(prompt),
            completion_tokens=len(output),
            latency_s=0.5,
        )
        out.append(json.loads(record.model_dump_json()))
    return out


def build(root: Path, questions: int, seed: int = 0) -> tuple[Path, Path]:
    """Write ``root/bank`` (CK12 layout) and ``root/run`` (every question answered); returns both."""
    from kg.graph import level1_id, level2_id, subject_id
    from runners.records import RunHeader

    rng = random.Random(seed)
    templates = _templates()
    outcomes = [_outcomes(raw) for raw in templates]
    copies = -(-questions // len(templates))
    points = max(1, copies // PER_POINT)
    bank, run = root / "bank", root / "run"
    run.mkdir(parents=True)
    files: dict[Path, Any] = {}
    header = RunHeader(
        model="synthetic",
        backend="replay",
        mode="zero-shot-cot",
        data={"path": str(bank), "format": "ck12", "questions": questions},
    )
    (run / "run.json").write_text(header.model_dump_json(indent=2), encoding="utf-8")
    with (run / "records.jsonl").open("w", encoding="utf-8") as records:
        for i in range(questions):
            t, copy = i % len(templates), i // len(templates)
            raw = dict(templates[t])
            domain = list(raw["knowledge_domain"])
            domain[3] = f"{domain[3]}{copy % 10}"
            domain[4] = f"{domain[4]}{copy % points}"
            raw["id"] = f"{raw['id'][:20]}{i:012d}"
            raw["knowledge_domain"] = domain
            file = bank / "original_data" / raw["task_grade"] / raw["task_subject"] / f"{raw['task_type']}.jsonl"
            if file not in files:
                file.parent.mkdir(parents=True, exist_ok=True)
                files[file] = file.open("w", encoding="utf-8")
            files[file].write(json.dumps(raw, ensure_ascii=False) + "\n")
            draw = rng.random()
            record = dict(outcomes[t][0 if draw < 0.6 else 1 if draw < 0.95 else 2])
            subject = raw["task_subject"]
            record["question_id"] = raw["id"]
            record["nodes"] = {
                "subject": subject_id(subject),
                "level1": level1_id(subject, domain[3]),
                "level2": level2_id(subject, domain[3], domain[4]),
                "question": f"q:{raw['id']}",
            }
            records.write(json.dumps(record, ensure_ascii=False) + "\n")
    for handle in files.values():
        handle.close()
    return bank, run


def measure(command: list[str], limit_gb: float) -> tuple[float, float, float, int, str]:
    """``(wall s, CPU s, peak RSS in GB, exit status, last line of output)`` of ``command`` run as a child.

    Its address space is capped at ``limit_gb`` (the machine is shared: a command that outgrows it stops with
    a MemoryError instead of taking the others' memory)."""

    def cap() -> None:
        limit = int(limit_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=REPO, preexec_fn=cap)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        out.seek(0)
        tail = out.read().decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss / 2**20, os.waitstatus_to_exitcode(status), tail[0][:160]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--questions", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--work", type=Path, help="Folder for the banks, runs and reports (default: a temporary one).")
    parser.add_argument("--keep", action="store_true", help="Keep the banks, runs and reports.")
    parser.add_argument("--reuse", action="store_true", help="Measure the banks and runs already in --work.")
    parser.add_argument("--limit-gb", type=float, default=14.0, help="Address-space cap of each measured command.")
    args = parser.parse_args()
    k12eval = str(Path(sys.executable).with_name("k12eval"))
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-scale-"))
    rows = []
    for n in args.questions:
        root = work / f"n{n}"
        bank, run = root / "bank", root / "run"
        if not (args.reuse and (run / "records.jsonl").is_file()):
            if root.exists():
                shutil.rmtree(root)
            start = time.perf_counter()
            build(root, n)
            print(f"{n:,} questions: bank and run written in {time.perf_counter() - start:.0f} s", flush=True)
        shutil.rmtree(root / "report", ignore_errors=True)
        size = (run / "records.jsonl").stat().st_size / 2**30
        print(f"{n:,} questions (records.jsonl {size:.2f} GiB)", flush=True)
        for name, command in (
            ("kg stats", [k12eval, "kg", "stats", str(bank), "--json"]),
            ("report", [k12eval, "report", str(run), "--out", str(root / "report")]),
        ):
            load = os.getloadavg()[0]
            wall, cpu, peak, code, tail = measure(command, args.limit_gb)
            if name == "report":
                goal = REPORT_GOAL_GB_PER_100K * n / 100_000
                ratio = f"peak / goal {peak / goal:.2f} (goal {goal:.2f} GB)"
            else:
                goal = STATS_GOAL_S_PER_1M * n / 1_000_000
                ratio = f"CPU / goal {cpu / goal:.2f}, wall / goal {wall / goal:.2f} (goal {goal:.0f} s, 2 min per 1M)"
            rows.append((n, name, wall, cpu, peak, load, ratio, code))
            print(f"  {name:8s} exit {code}  wall {wall:7.1f} s  CPU {cpu:7.1f} s  peak RSS {peak:5.2f} GB  "
                  f"load {load:.1f}  {ratio}")  # fmt: skip
            if code:
                print(f"    {tail}")
            sys.stdout.flush()
        if not args.keep:
            shutil.rmtree(root)
    print("\n| questions | command | wall | CPU (user + sys) | peak RSS | load (1 min, at start) | against the goal |")
    print("|---|---|---|---|---|---|---|")
    for n, name, wall, cpu, peak, load, ratio, code in rows:
        flag = "" if code == 0 else f" (exit {code})"
        print(f"| {n:,} | `{name}`{flag} | {wall:.1f} s | {cpu:.1f} s | {peak:.2f} GB | {load:.1f} | {ratio} |")
    if not args.keep and args.work is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
