"""Start-up time and peak memory of `k12eval --help` against a bare interpreter, measured in one run.

python benchmarks/bench_startup.py [--repeat 10]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time


def _time(cmd: list[str], repeat: int) -> tuple[list[float], float]:
    """Wall times of ``repeat`` runs of ``cmd`` and the largest peak resident memory (MB) of any of them."""
    times, peak = [], 0.0
    for _ in range(repeat):
        start = time.perf_counter()
        child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)  # the child's own rusage (ru_maxrss in KiB on Linux)
        times.append(time.perf_counter() - start)
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} exited with {child.returncode}")
        peak = max(peak, usage.ru_maxrss / 1024)
    return times, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    bare, bare_mb = _time([sys.executable, "-c", "pass"], args.repeat)
    helped, helped_mb = _time([sys.executable, "-m", "k12eval", "--help"], args.repeat)
    for label, times, mb in (("python -c pass", bare, bare_mb), ("k12eval --help", helped, helped_mb)):
        print(
            f"{label:<20}  median {statistics.median(times) * 1000:7.1f} ms  min {min(times) * 1000:7.1f} ms  "
            f"peak RSS {mb:5.1f} MB"
        )
    print(f"ratio (median)        {statistics.median(helped) / statistics.median(bare):.1f}x a bare interpreter")


if __name__ == "__main__":
    main()
