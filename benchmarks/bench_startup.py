"""Start-up time of `k12eval --help` against a bare interpreter, measured in one run.

python benchmarks/bench_startup.py [--repeat 10]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


def _time(cmd: list[str], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    bare = _time([sys.executable, "-c", "pass"], args.repeat)
    helped = _time([sys.executable, "-m", "k12eval", "--help"], args.repeat)
    print(f"python -c pass        median {statistics.median(bare) * 1000:7.1f} ms  min {min(bare) * 1000:7.1f} ms")
    print(f"k12eval --help        median {statistics.median(helped) * 1000:7.1f} ms  min {min(helped) * 1000:7.1f} ms")
    print(f"ratio (median)        {statistics.median(helped) / statistics.median(bare):.1f}x a bare interpreter")


if __name__ == "__main__":
    main()
