"""False alarms of the ``facts`` and ``reference`` detectors on CK12 teacher analyses read as model steps.

    python benchmarks/reference_facts_false_alarms.py [../shared/data/ck12/original_data/初中] [--show 5]

Each record's ``analysis`` is split the way ``k12eval score`` splits a chain
(:func:`reasoning_metrics.split.split_steps`) and given to both detectors as the steps of a solution to
its own question (``prompt`` and options). The analyses are true, and the analysis is the reference, so
every flag is a false alarm: ``facts`` is asked on each analysis alone; ``reference`` with the record's
gold answer and analysis, ungraded (``correct`` unknown: soft findings count) and graded right (hard
findings only). Also printed: how many statements ``facts`` read at all (a silent checker raises no alarm
either). Prints one line per subject and question type, then the totals, and up to ``--show`` examples.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from reasoning_metrics.guard import checking
from reasoning_metrics.split import split_steps
from reasoning_metrics.verify.detector import Evidence, Reference
from reasoning_metrics.verify.detectors.facts import Facts
from reasoning_metrics.verify.detectors.reference import AgainstReference
from reasoning_metrics.verify.rules.arithmetic import check_steps
from reasoning_metrics.verify.rules.conversions import stated_conversions
from reasoning_metrics.verify.rules.facts import stated_facts
from reasoning_metrics.verify.rules.formulas import stated_formulas

DEFAULT = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "ck12" / "original_data" / "初中"
SUBJECTS = ("数学", "物理", "化学")
TYPES = ("填空", "单选")


def _problem(record: dict) -> str:
    return "\n".join([record.get("prompt", ""), *record.get("answer_option", [])])


def _answer(record: dict) -> str:
    answer = record.get("answer", "")
    return " ".join(map(str, answer)) if isinstance(answer, list) else str(answer)


def main() -> None:
    """Print the false-alarm counts (see the module doc)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--show", type=int, default=5, help="examples of each kind of alarm to print")
    args = parser.parse_args()
    totals: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    started = time.perf_counter()
    for subject in SUBJECTS:
        for kind in TYPES:
            path = args.root / subject / f"{kind}.jsonl"
            if not path.exists():
                continue
            counts: Counter[str] = Counter()
            for line in path.read_text(encoding="utf-8").splitlines():
                record = json.loads(line)
                steps = split_steps(record.get("analysis", ""))
                if not steps:
                    continue
                counts["analyses"] += 1
                counts["statements"] += sum(
                    len(stated_facts(s)) + len(stated_formulas(s)) + len(stated_conversions(s)) for s in steps
                )
                checks = check_steps(steps)
                problem = _problem(record)
                for name, evidence in (
                    ("facts", Evidence(problem, steps, checks)),
                    (
                        "reference",
                        Evidence(problem, steps, checks, reference=Reference(_answer(record), record["analysis"])),
                    ),
                    (
                        "reference_right",
                        Evidence(
                            problem, steps, checks, reference=Reference(_answer(record), record["analysis"], True)
                        ),
                    ),
                ):
                    detector = Facts() if name == "facts" else AgainstReference()
                    outcome = checking(lambda d=detector, e=evidence: d.find(e))
                    if outcome.value is None:
                        counts[f"{name} not checked"] += 1
                        continue
                    flags = [f for step in outcome.value.steps for f in step]
                    if flags:
                        counts[name] += 1
                        shown = examples.setdefault(f"{name}: {flags[0].kind}", [])
                        if len(shown) < args.show:
                            shown.append(f"{subject}/{kind} {record['id']}: {flags[0].message}")
            totals += counts
            print(f"{subject}/{kind}: {_line(counts)}")
    print(f"all: {_line(totals)} ({time.perf_counter() - started:.0f} s)")
    for key, shown in sorted(examples.items()):
        print(f"\n{key}")
        for example in shown:
            print(f"  {example}")


def _line(counts: Counter[str]) -> str:
    n = counts["analyses"]
    parts = [f"{n} analyses", f"{counts['statements']} fact/formula statements read"]
    for name in ("facts", "reference", "reference_right"):
        parts.append(f"{name} flags {counts[name]} ({counts[name] / max(n, 1):.1%})")
        if counts[f"{name} not checked"]:
            parts.append(f"{name} not checked {counts[f'{name} not checked']}")
    return ", ".join(parts)


if __name__ == "__main__":
    main()
