"""A compressed replay file with one enormous line, read as ``k12eval run -b replay`` reads it (#27 item 10).

    python benchmarks/huge_line.py [--chars 100000000]

Writes ``samples_cmmlu_agronomy_<date>.jsonl.gz`` (lm-eval's ``--log_samples`` name) whose second
line is one answer of ``--chars`` Chinese characters, then opens it with the replay backend in a
subprocess and prints what happened, the seconds and the peak memory (RSS) of that process.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROBE = """
import resource, sys, time
from runners.backends.replay import ReplayBackend
start = time.perf_counter()
try:
    ReplayBackend(sys.argv[1])
    what = "accepted"
except Exception as exc:
    what = f"{type(exc).__name__}: {str(exc)[:160]}"
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{what}\\n{time.perf_counter() - start:.1f} s, peak RSS {peak:.0f} MiB")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--chars", type=int, default=100_000_000, help="Characters of the one long answer.")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="huge-line-"))
    path = folder / "samples_cmmlu_agronomy_2024-01-01T00-00-00.jsonl.gz"
    chunk = "答案是A。" * 100_000
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write(json.dumps({"doc_id": 0, "doc": {"Question": "x"}, "resps": [["A"]]}) + "\n")
        handle.write('{"doc_id": 1, "resps": [["')
        for _ in range(args.chars // len(chunk)):
            handle.write(chunk)
        handle.write('"]]}\n')
    print(f"{path} ({path.stat().st_size:,} bytes compressed, a {args.chars:,}-character line 2)")
    subprocess.run([sys.executable, "-c", PROBE, str(path)], cwd=REPO, check=False)


if __name__ == "__main__":
    main()
