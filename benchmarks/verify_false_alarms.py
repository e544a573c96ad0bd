"""False alarms of the CPU detectors on solutions labelled correct, and on hand-written LaTeX steps.

    python benchmarks/verify_false_alarms.py ../shared/data/processbench/gsm8k.json [MORE ...] [--format processbench]

For each file: how many correct solutions get a false calculation flagged (arithmetic),
how many get a first suspect from the aggregate rule (all CPU detectors, no encoder; a flagged step or
the fallback rule), and
how many calculations the verifier actually checked in them (a silent verifier raises no
alarm either). Then the same on ``tests/fixtures/metaeval/latex_steps.json``: MATH-style
steps (fractions, roots, powers, factorials, Chinese) that are all true, and their false
twins, which should all be caught.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from reasoning_metrics.metaeval import load_solutions
from reasoning_metrics.verify.aggregate_rule import assess_solutions
from reasoning_metrics.verify.rules.arithmetic import Verdict, check_steps

LATEX_STEPS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "metaeval" / "latex_steps.json"


def on_file(path: Path, fmt: str) -> None:
    """Print the false-alarm rates of one labelled file."""
    correct = [s for s in load_solutions(path, fmt) if s.target == -1]
    if not correct:
        print(f"{path}: no solution labelled correct")
        return
    checks = [check_steps(s.steps) for s in correct]
    arithmetic = sum(any(c.false_claims for c in solution) for solution in checks)
    checked = sum(c.verdict is not Verdict.UNCHECKED for solution in checks for step in solution for c in step.claims)
    rules = Counter(a.suspect_rule for a in assess_solutions(correct))
    suspects = rules["flag"] + rules["fallback"]
    n = len(correct)
    print(
        f"{path}: {n} correct solutions, {checked} calculations checked; "
        f"arithmetic flags {arithmetic} ({arithmetic / n:.1%}); aggregate names a step in {suspects} ({suspects / n:.1%}: "
        f"{rules['flag']} flagged, {rules['fallback']} by the fallback rule)"
    )


def on_latex() -> None:
    """Print how the verifier does on the hand-written LaTeX steps."""
    data = json.loads(LATEX_STEPS.read_text(encoding="utf-8"))
    true_steps = check_steps(data["correct"])
    false_steps = check_steps(data["wrong"])
    alarms = [s for s, c in zip(data["correct"], true_steps, strict=True) if c.false_claims]
    missed = [s for s, c in zip(data["wrong"], false_steps, strict=True) if not c.false_claims]
    checked = sum(c.verdict is not Verdict.UNCHECKED for step in true_steps for c in step.claims)
    print(
        f"LaTeX steps: {len(alarms)} false alarms in {len(true_steps)} true steps ({checked} calculations checked); "
        f"{len(false_steps) - len(missed)} of {len(false_steps)} false steps caught"
    )
    for step in alarms + missed:
        print(f"  {step}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--format", default="processbench", help="processbench, mr-math or chains")
    args = parser.parse_args()
    for path in args.files:
        on_file(path, args.format)
    on_latex()


if __name__ == "__main__":
    main()
