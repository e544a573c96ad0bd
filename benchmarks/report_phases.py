"""Where `k12eval report`'s memory goes: resident memory before, after and at the peak of each phase (#32 item 5).

    python benchmarks/report_phases.py RUN OUT

Runs :func:`reports.writer.write_report` on the run folder ``RUN`` into ``OUT`` (replaced) with the report's
library functions wrapped: each prints its seconds, its resident memory before and after, and the highest a
sampling thread saw while it ran (every 5 ms, from /proc/self/statm; Linux only). Nested calls are indented.
A diagnosis beside ``bench_scale.py``, whose peak (``os.wait4`` of the user's command) is the figure of the goal.
"""

from __future__ import annotations

import functools
import importlib
import os
import resource
import sys
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PHASES = {
    "reports.runs": ("load_runs", "graph_of", "read_questions", "full_records"),
    "reports.aggregate": (
        "question_frame",
        "counted_rows",
        "statement_rows",
        "scope_frame",
        "node_table",
        "weakest_points",
    ),
    "reports.writer": ("selection_mask", "_write_table", "_write_csv_in_parts", "build_tables", "_summary"),
    "reports.payload": ("build_payload",),
    "reports.html": ("write_page",),
    "reports.plots": ("write_plots",),
}
"""The functions timed, by module: reading, the frames, the tables, the page."""

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_mb() -> float:
    """This process's resident memory now, in MB."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * PAGE / 2**20


class Sampler:
    """The highest resident memory seen since the last :meth:`reset`, sampled by a daemon thread."""

    def __init__(self) -> None:
        self.peak = 0.0
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while True:
            self.peak = max(self.peak, rss_mb())
            time.sleep(0.005)

    def reset(self) -> float:
        self.peak = rss_mb()
        return self.peak


def wrap(module_name: str, name: str, sampler: Sampler, depth: list[int]) -> None:
    """Replace ``module_name.name`` by a wrapper that prints its phase line."""
    module = importlib.import_module(module_name)
    function = getattr(module, name)

    @functools.wraps(function)
    def timed(*args: Any, **kwargs: Any) -> Any:
        before, start = sampler.reset(), time.perf_counter()
        depth[0] += 1
        try:
            return function(*args, **kwargs)
        finally:
            depth[0] -= 1
            peak = sampler.peak
            print(
                f"{'  ' * depth[0]}{module_name}.{name}: {time.perf_counter() - start:6.1f} s  RSS {before:6.0f} -> "
                f"{rss_mb():6.0f} MB, peak {peak:6.0f} MB (+{peak - before:.0f})",
                flush=True,
            )

    setattr(module, name, timed)


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    run, out = Path(sys.argv[1]), Path(sys.argv[2])
    import shutil

    import pandas  # noqa: F401  (the baseline counts what every report imports)

    from reports.writer import write_report

    sampler = Sampler()
    print(f"interpreter and imports: {rss_mb():.0f} MB", flush=True)
    depth = [0]
    for module_name, names in PHASES.items():
        for name in names:
            wrap(module_name, name, sampler, depth)
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    write_report([run], out)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
    print(f"total {time.perf_counter() - start:.1f} s, peak RSS of the process {peak:.0f} MB")


if __name__ == "__main__":
    main()
