"""``k12eval score`` on pathological chains of thought, as docs/reliability.md reports them (#28 item 3).

    python benchmarks/long_chains.py [--out DIR] [--timeout 300] [--budget 10]

Builds four run folders, one question each, whose answer is one long Chinese output of distinct
sentences (each carries its number, so no cache or de-duplication makes it cheap): a
20,000-character line, 5,000 steps, a 200,000-character line and a 2 MB line. Then times
``k12eval score RUN --nli none --no-cache`` on each in a subprocess (detectors on, the default
Chinese encoder) and prints seconds, peak memory and what the chain was recorded as.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests._runs import Answer, question, write_bank, write_run  # noqa: E402


def sentences(chars: int) -> str:
    """Distinct Chinese sentences, ``chars`` characters or a few more."""
    out, n, i = [], 0, 0
    while n < chars:
        text = f"第{i}次：因为一次函数的图像是一条直线，所以斜率等于二。"
        out.append(text)
        n, i = n + len(text), i + 1
    return "".join(out)


CASES = {
    "line20k": lambda: sentences(20_000),
    "steps5000": lambda: "\n".join(f"第{i}步：因为一次函数的图像是一条直线，所以斜率等于二" for i in range(5_000)),
    "line200k": lambda: sentences(200_000),
    "line2mb": lambda: sentences(740_000),  # 2 MB of UTF-8
}


def build(root: Path, name: str, text: str) -> Path:
    q = question(
        "q1", "数学", "函数", "一次函数", stem="已知一次函数的图像经过点(0,1)和(1,3)，求斜率。", analysis="斜率为二。"
    )
    bank = write_bank(root / name / "bank", [q])
    answers = {"q1": Answer(True, output=text + "\n正确答案是：A")}
    return write_run(root / name / "run", {"q1": q}, answers, bank=bank, mode="zero-shot-cot")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=None, help="Folder for the runs (default: a temporary one).")
    parser.add_argument("--timeout", type=float, default=300.0, help="Seconds before a score is stopped.")
    parser.add_argument("--budget", type=float, default=10.0, help="score --chain-budget.")
    args = parser.parse_args()
    root = args.out or Path(tempfile.mkdtemp(prefix="long-chains-"))
    for name, make in CASES.items():
        text = make()
        run = build(root, name, text)
        command = [sys.executable, "-m", "k12eval", "score", str(run), "--nli", "none", "--no-cache",
                   "--chain-budget", str(args.budget)]  # fmt: skip
        start = time.perf_counter()
        try:
            subprocess.run(command, cwd=REPO, capture_output=True, timeout=args.timeout, check=False)
            took = f"{time.perf_counter() - start:.1f} s"
        except subprocess.TimeoutExpired:
            took = f"over {args.timeout:g} s (stopped)"
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # the largest child so far
        lines = (
            (run / "scores.jsonl").read_text(encoding="utf-8").splitlines() if (run / "scores.jsonl").exists() else []
        )
        record = json.loads(lines[-1]) if lines else {}
        why = next(iter(record.get("unavailable", {}).values()), "scored" if record else "no record")
        status = (record.get("assessment") or {}).get("status", "-")
        size = len(text.encode("utf-8"))
        print(
            f"{name:10} {len(text):>9,} chars {size:>10,} bytes  {took:>22}  peak {peak:.0f} MiB  {why}; detectors {status}"
        )


if __name__ == "__main__":
    main()
