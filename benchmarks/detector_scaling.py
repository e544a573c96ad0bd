"""How the detectors and the splitter scale with the length of a chain, as ratios measured in one run.

    python benchmarks/detector_scaling.py [--max-chars 100000]

Prints the time of the whole aggregate (every CPU detector) and of each detector alone on one
chain of n = 500, 1000, 2000, 4000 ordinary calculation steps, and ``t(4n)/t(n)``: about 4 for a
linear detector, 16 for a quadratic one. Then the splitter on runs of one punctuation mark
(``!``, ``.``, ``?``, ``。``, ``…``) and on sentences, up to ``--max-chars`` characters.
The aggregate runs without its per-chain time budget,
so the figures are the algorithms' own.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages, not an installed copy

from benchmarks.verify_speed import synthetic_steps
from reasoning_metrics.split import split_steps
from reasoning_metrics.verify.aggregate_rule import assess_one
from reasoning_metrics.verify.rules.arithmetic import check_steps
from reasoning_metrics.verify.rules.doubt import doubt_cues
from reasoning_metrics.verify.rules.equations import equation_conflicts
from reasoning_metrics.verify.rules.quantities import unsupported_operands, unused_given_numbers

SIZES = (500, 1000, 2000, 4000)
PROBLEM = "A shop sells 120 boxes at $15 each and 35 crates at $48 each. How much money does it make?"


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _row(name: str, times: dict[int, float]) -> str:
    cells = "  ".join(f"{times[n]:8.3f}" for n in times)
    sizes = list(times)
    ratio = times[sizes[-1]] / max(times[sizes[-3]], 1e-9) if len(sizes) >= 3 else float("nan")
    return f"{name:<22} {cells}   t(4n)/t(n) = {ratio:5.1f}"


def _doubt(steps: list[str]) -> None:
    for step in steps:
        doubt_cues(step, PROBLEM)


def detectors() -> None:
    print(f"seconds per chain of n steps ({', '.join(map(str, SIZES))}); ratio is t({SIZES[-1]})/t({SIZES[-3]})")
    rows: dict[str, dict[int, float]] = {}
    for n in SIZES:
        steps = synthetic_steps(n)
        checks = check_steps(steps)
        solution = SimpleNamespace(id="s", problem=PROBLEM, steps=steps)
        parts: dict[str, Callable[[], object]] = {
            "aggregate": partial(assess_one, solution, budget_s=None),
            "arithmetic": partial(check_steps, steps),
            "equations": partial(equation_conflicts, checks),
            "unsupported_numbers": partial(unsupported_operands, PROBLEM, checks),
            "unused_given": partial(unused_given_numbers, PROBLEM, checks),
            "doubt": partial(_doubt, steps),
            "split (joined steps)": partial(split_steps, " ".join(steps), "en"),
        }
        for name, fn in parts.items():
            rows.setdefault(name, {})[n] = timed(fn)
    for name, times in rows.items():
        print(_row(name, times))


def splitter(max_chars: int) -> None:
    sizes = [max_chars // 8, max_chars // 4, max_chars // 2, max_chars]
    print(f"\nsplit_steps seconds on text of n characters ({', '.join(map(str, sizes))}); ratio t(4n)/t(n)")
    texts: dict[str, Callable[[int], str]] = {
        "'!' run": lambda n: "x" + "!" * n,
        "'.' run": lambda n: "x" + "." * n,
        "'?' run": lambda n: "x" + "?" * n,
        "'!' run then Capital": lambda n: "x" + "!" * n + " Then",
        "'. ' repeated": lambda n: "a. " * (n // 3),
        "'。' run (zh)": lambda n: "答" + "。" * n,
        "'…' run": lambda n: "x" + "…" * n,
        "'$' run": lambda n: "$" * n,
        "'\\(' run, no closer": lambda n: "\\(" * (n // 2),
        "'\\n!' run": lambda n: "x" + "\n!" * (n // 2),
        "spaces then '∴'": lambda n: "x" + " " * n + "∴",
        "'1. ' numbering": lambda n: "1. " * (n // 3),
        "sentences": lambda n: "It costs 5. Then 6! " * (n // 20),
    }
    for name, make in texts.items():
        times = {n: timed(partial(split_steps, make(n))) for n in sizes}
        print(_row(name, times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-chars", type=int, default=100_000)
    args = parser.parse_args()
    detectors()
    splitter(args.max_chars)


if __name__ == "__main__":
    main()
