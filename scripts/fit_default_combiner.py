"""Fit the combiner shipped with the package (reasoning_metrics/combine/default_combiner.json).

It is fitted on the development halves of ProcessBench GSM8K, MR-GSM8K (both generators) and each
file of the project's Chinese set of real model errors (data/ck12_errors/: all answers, and answers
graded right; CK12 questions joined from the release in the shared data), CPU detectors only (no
encoder), with the final answer's grade as a feature, folds and seed 5 / 0. Chinese solutions get their
own combiner, fitted on the two Chinese files alone, whose threshold calls at least 90 % of their correct
(graded-right) answers correct out of fold: the at most 10 % false alarms on right answers that issue #36
asks of a step verdict a teacher acts on (chosen on the development halves):

    python scripts/fit_default_combiner.py [--shared ../shared/data] [--out PATH]

Running it again on the same data and package gives the same file.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from k12eval._version import __version__  # noqa: E402
from reasoning_metrics.metaeval.calibration import calibrate  # noqa: E402
from reasoning_metrics.metaeval.sets import SetSpec  # noqa: E402

OUT = REPO / "reasoning_metrics" / "combine" / "default_combiner.json"
LANGUAGE_MIN_CORRECT = 0.9
"""Share of a language's correct training answers its own combiner's threshold must call correct."""


def _relative(path: Path, shared: Path) -> str:
    path = path.resolve()
    return str(path.relative_to(shared) if path.is_relative_to(shared) else path.relative_to(REPO))


def main() -> None:
    """Fit and write the default combiner."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_shared = os.environ.get("K12EVAL_SHARED_DATA") or str(REPO / ".." / "shared" / "data")
    parser.add_argument("--shared", type=Path, default=Path(default_shared))
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    shared = args.shared.resolve()
    mr = shared / "mr-gsm8k"
    specs = [
        SetSpec("processbench-gsm8k", "processbench", (shared / "processbench" / "gsm8k.json",)),
        SetSpec("mr-gsm8k", "mr-math", (mr / "Claude_eval_results.json", mr / "llama2_70b_eval_results.json")),
    ]
    os.environ.setdefault("K12EVAL_CK12", str(shared / "ck12"))
    specs += [
        SetSpec(f"ck12-zh:{p.stem}", "ck12-labels", (p,))
        for p in sorted((REPO / "data" / "ck12_errors").glob("*.jsonl"))
    ]
    combiner = calibrate(
        specs,
        half="dev",
        encoder=None,
        grade=True,
        folds=5,
        seed=0,
        package_version=__version__,
        by_language=("zh",),
        language_min_correct=LANGUAGE_MIN_CORRECT,
    )
    for own in (combiner, *combiner.languages.values()):
        for entry in own.training:  # paths relative to the shared data folder or the repository
            entry["paths"] = [_relative(Path(p), shared) for p in entry["paths"]]
    args.out.write_text(combiner.to_json(), encoding="utf-8")
    print(
        f"wrote {args.out}: threshold {combiner.threshold:.3f} ({combiner.locate}), C = {combiner.C}, cv {combiner.cv}"
    )
    for lang, own in combiner.languages.items():
        print(f"  {lang}: threshold {own.threshold:.3f} ({own.locate}), C = {own.C}, cv {own.cv}")


if __name__ == "__main__":
    main()
