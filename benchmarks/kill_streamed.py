"""SIGTERM or SIGINT at a random moment of a chain-of-thought `k12eval run`: is every finished answer kept?

    python benchmarks/kill_streamed.py --kills 20 --max-tokens 96      # the tiny random Qwen2 model
    python benchmarks/kill_streamed.py --kills 5 --model qwen2.5-coder-0.5b-instruct --max-tokens 256

A real `k12eval run` (zero-shot-CoT, 32 questions of the bundled sample, the default CPU path:
continuous batching; ``--batch-size 4`` by default, so that answers finish one after another all
through the run rather than together at its end) runs with ``--verbose``, so the transformers backend logs
``finished <id>`` for every answer at the moment the engine hands it over, before its record is
written. One whole run is timed first; then each of ``--kills`` runs, in a fresh folder, is
stopped with SIGTERM or SIGINT (chosen at random) at a random moment between ``--low`` and
``--high`` of that time. After each stop, every id of that session's log of finishes must have a
record in ``records.jsonl``; at the end every folder is resumed to completion and must hold one
whole record per question. Prints the kills, the finishes logged, the finished
answers lost (the goal: 0), duplicates and torn lines.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FINISHED = re.compile(r"\bfinished (\S+):")


def records(out: Path) -> tuple[Counter[str], int]:
    """``(records by question id, torn lines)`` of a run folder."""
    ids: Counter[str] = Counter()
    torn = 0
    path = out / "records.jsonl"
    if not path.exists():
        return ids, 0
    data = path.read_bytes()
    lines = data.split(b"\n")
    for number, raw in enumerate(lines):
        if not raw.strip():
            continue
        try:
            ids[json.loads(raw)["question_id"]] += 1
        except (ValueError, KeyError):
            torn += number < len(lines) - 1  # a last line without its newline is cut on resume, not torn
    return ids, torn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--questions", type=int, default=32)
    parser.add_argument("--model", default=None, help="default: the tiny random Qwen2 test model, built here")
    parser.add_argument("--max-tokens", type=int, default=200)
    parser.add_argument(
        "--batch-size", default="4", help="the run's --batch-size: 4 spreads the finishes over the run (auto: measured)"
    )
    parser.add_argument("--low", type=float, default=0.2, help="earliest signal, as a share of one whole run")
    parser.add_argument("--high", type=float, default=0.95, help="latest signal, as a share of one whole run")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="k12-kill-stream-"))
    model = args.model
    if model is None:
        sys.path.insert(0, str(ROOT))
        from runners.testing.tiny_model import TinyConfig, build_tiny_qwen2

        model = str(build_tiny_qwen2(work / "tiny", TinyConfig(initializer_range=0.3)))
    folders: list[Path] = []
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}

    def command(out: Path) -> list[str]:
        return [
            sys.executable, "-m", "k12eval", "run", str(ROOT / "data" / "sample"), "-m", model, "-o", str(out),
            "--mode", "zero-shot-cot", "--limit", str(args.questions), "--max-tokens", str(args.max_tokens),
            "--batch-size", args.batch_size, "--verbose",
        ]  # fmt: skip

    calibration = work / "calibration"
    began = time.perf_counter()
    subprocess.run(command(calibration), cwd=ROOT, env=env, capture_output=True, check=True)
    whole = time.perf_counter() - began
    print(
        f"one whole run (start-up included): {whole:.0f} s; signals at {args.low:.0%}-{args.high:.0%} of it", flush=True
    )
    kills = logged = lost = 0
    started = time.perf_counter()
    while kills < args.kills:
        out = work / f"run{kills + 1}"
        folders.append(out)
        log = work / f"session{kills + 1}.log"
        delay = rng.uniform(args.low, args.high) * whole
        signum = rng.choice([signal.SIGTERM, signal.SIGINT])
        with log.open("w") as err:
            process = subprocess.Popen(command(out), cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err)
            try:
                process.wait(timeout=delay)
                print(f"  run{kills + 1} finished before its signal ({delay:.0f} s); again", flush=True)
                shutil.rmtree(folders.pop())  # again from nothing: a finished folder would finish at once
                continue
            except subprocess.TimeoutExpired:
                process.send_signal(signum)
                code = process.wait()
        kills += 1
        finished = set(FINISHED.findall(log.read_text(encoding="utf-8")))
        kept, _ = records(out)
        missing = sorted(finished - set(kept))
        unlogged = len(set(kept) - finished)  # a record the log never saw finish: the log would be wrong
        logged += len(finished)
        lost += len(missing)
        print(
            f"kill {kills}: {signal.Signals(signum).name} after {delay:.1f} s, exit {code}; logged "
            f"{len(finished)} finished, {len(kept)} on disk ({unlogged} not in the log), lost {len(missing)}"
            f"{' ' + str(missing[:3]) if missing else ''}  [load {os.getloadavg()[0]:.1f}]",
            flush=True,
        )
    duplicates = torn = incomplete = 0
    for out in folders:
        done = subprocess.run(command(out), cwd=ROOT, env=env, capture_output=True, text=True)
        ids, cut = records(out)
        duplicates += sum(n - 1 for n in ids.values())
        torn += cut
        incomplete += done.returncode != 0 or len(ids) != args.questions
    print(
        f"{kills} kills in {len(folders)} run folder(s), {time.perf_counter() - started:.0f} s: "
        f"{logged} finished answers logged by the sessions that were killed, {lost} lost; "
        f"after resuming: duplicates {duplicates}, torn lines {torn}, runs incomplete {incomplete}"
    )


if __name__ == "__main__":
    main()
