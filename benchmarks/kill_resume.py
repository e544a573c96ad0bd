"""kill -9 during `k12eval run`, again and again, then count what was lost, duplicated or torn.

A real `k12eval run` (OpenAI-compatible backend) asks the real HTTP test server on 127.0.0.1, which
answers every prompt after a short delay. The run is killed with SIGKILL at a random moment, then
started again with the same options, until it finishes. Afterwards every question must have exactly
one record, and every line of records.jsonl must be whole JSON.

    python benchmarks/kill_resume.py --kills 20 --questions 60

Prints the number of kills, records, duplicates, torn lines and missing questions.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import cast

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from runners.backends.base import GenerationRequest, GenerationResult  # noqa: E402
from runners.backends.transformers import TransformersBackend  # noqa: E402
from runners.testing.openai_server import Faults, OpenAIServer  # noqa: E402
from tests._runs import question, write_bank  # noqa: E402


class Answers:
    """Stands behind the server: answers every prompt with option A."""

    model = "answers"

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        return [GenerationResult(r.id, texts=["正确答案是：A"], finish_reasons=["stop"]) for r in requests]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="k12-kill-"))
    out = work / "run"
    questions = [
        question(f"q{i}", "数学", "函数", "一次函数", stem=f"第 {i} 题：下列说法正确的是")
        for i in range(args.questions)
    ]
    bank = write_bank(work / "bank", questions)
    faults = Faults(delay_s=0.1)
    with OpenAIServer(cast(TransformersBackend, Answers()), faults) as server:
        cmd = [sys.executable, "-m", "k12eval", "run", str(bank), "-m", "answers"]
        cmd += ["-b", "openai", "-B", f"base_url={server.base_url}", "-o", str(out), "--batch-size", "4"]
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        kills = 0
        while kills < args.kills:
            process = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            time.sleep(rng.uniform(0.3, 2.5))  # start-up takes about a second: kill before, during and after it
            if process.poll() is not None:
                break  # finished before the kill
            process.send_signal(signal.SIGKILL)
            process.wait()
            kills += 1
        finished = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
    lines = (out / "records.jsonl").read_bytes().split(b"\n")
    torn = 0
    ids: Counter[str] = Counter()
    for raw in lines:
        if not raw.strip():
            continue
        try:
            ids[json.loads(raw)["question_id"]] += 1
        except (ValueError, KeyError):
            torn += 1
    missing = args.questions - len(ids)
    duplicates = sum(n - 1 for n in ids.values())
    print(f"kills {kills}, final run exit {finished.returncode}")
    print(
        f"records {sum(ids.values())} of {args.questions} questions: duplicates {duplicates}, torn {torn}, missing {missing}"
    )


if __name__ == "__main__":
    main()
