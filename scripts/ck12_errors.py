"""Make the hand-labelled Chinese sets of real model errors (data/ck12_errors/, data/gaokao_errors/; docs/detectors.md).

Two steps around the labelling by hand:

    python scripts/ck12_errors.py packets RUN_DIR... --out PACKET_DIR [--per-packet 40]
        writes labelling sheets (Markdown, outside the repository: they hold CK12 text) with the
        question, gold answer, teacher's analysis and the model's numbered steps, and an empty
        labels file per sheet to fill in: {"id", "first_error", "kind", "note"} per solution, with
        "answered": false for a non-answer (docs/labelling.md);
    python scripts/ck12_errors.py build RUN_DIR... --labels PACKET_DIR --out data/ck12_errors/FILE.jsonl
        joins the filled labels with the run records into the stored set (no CK12 text: the model's
        output, its steps, its grade and the labels, keyed by CK12 id).

For the GAOKAO-Bench set, the run replays the release's GPT-4 answers (``k12eval run GAOKAO/Data -b replay
-B path=GAOKAO/Results/gpt_4_0314_obj -B format=gaokao --mode zero-shot-cot``), ``packets`` takes ``--bank
GAOKAO/Data --only SAMPLE.json`` (the sample drawn before any answer was read) and ``build`` takes ``--results
Results/gpt_4_0314_obj``: the stored set keeps the labels and the answer's hash, not the release's text.
An answer made here (a model run on GAOKAO-Bench questions) is built with ``--form gaokao-labels`` and no
``--results``: its output and steps are kept, as for CK12.

The steps are the model output split by ``reasoning_metrics.split.split_steps``, which ``k12eval
score`` uses, so a label's step index is the index every detector sees.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kg.jsonl import jsonl_objects
from reasoning_metrics.metaeval.ck12_labels import KINDS, ck12_questions, ck12_root, problem_text
from reasoning_metrics.metaeval.gaokao_labels import output_hash
from reasoning_metrics.split import split_steps


def _records(run: Path) -> list[dict]:
    """Answered records of a run (one per question), in run order; requests that failed are left out."""
    records = (record for _, record in jsonl_objects(run / "records.jsonl"))
    return [r for r in records if not r.get("error") and (r.get("output") or "").strip()]


def _solution_id(record: dict, model: str) -> str:
    return f"{record['question_id']}/{model}"


def _model(run: Path) -> str:
    meta = json.loads((run / "run.json").read_text(encoding="utf-8"))
    return Path(str(meta.get("model", "model"))).name


def _questions(args: argparse.Namespace) -> dict:
    """The questions the runs answered: the bank given with --bank, else the CK12 release."""
    if args.bank:
        from kg.importers import load_questions

        return {q.id: q for q in load_questions(args.bank).questions}
    return ck12_questions(ck12_root().resolve())


def packets(args: argparse.Namespace) -> None:
    questions = _questions(args)
    rows = [(r, _model(run)) for run in args.runs for r in _records(run)]
    if args.only:  # a sample drawn before any solution was read: its question ids, in its order
        order = {qid: i for i, qid in enumerate(json.loads(args.only.read_text(encoding="utf-8")))}
        rows = sorted(
            (row for row in rows if row[0]["question_id"] in order), key=lambda row: order[row[0]["question_id"]]
        )
    if args.skip_labelled:  # the run grew since its first sheets were made
        done = {label["id"] for file in args.skip_labelled.rglob("*.labels.jsonl") for _, label in jsonl_objects(file)}
        rows = [(r, m) for r, m in rows if _solution_id(r, m) not in done]
    args.out.mkdir(parents=True, exist_ok=True)
    for start in range(0, len(rows), args.per_packet):
        chunk = rows[start : start + args.per_packet]
        name = f"packet{start // args.per_packet + 1:02d}"
        lines = [f"# {name}: label the first wrong step of each solution", ""]
        for record, model in chunk:
            q = questions[record["question_id"]]
            steps = split_steps(record["output"])
            lines += [
                f"## {_solution_id(record, model)}",
                f"subject {q.subject}, type {q.type.value}; graded {'RIGHT' if record['correct'] else 'WRONG'}"
                f" (extracted {record.get('extracted')}, gold {q.answer})",
                "",
                "### question",
                problem_text(q),
                "",
                "### teacher's analysis",
                q.analysis.strip() or "(none)",
                "",
                "### model steps",
                *[f"[{i}] {step}" for i, step in enumerate(steps)],
                "",
            ]
        (args.out / f"{name}.md").write_text("\n".join(lines), encoding="utf-8")
        template = [{"id": _solution_id(r, m), "first_error": None, "kind": None, "note": ""} for r, m in chunk]
        (args.out / f"{name}.labels.jsonl").write_text(
            "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in template), encoding="utf-8"
        )
    print(f"{len(rows)} solutions in {-(-len(rows) // args.per_packet)} packets under {args.out}")


def sample(args: argparse.Namespace) -> None:
    """Draw the solutions to label once, before any is read: per group of questions (a question id's prefix,
    e.g. ``gaokao/2010-2022_Math_I_MCQs``), ``--wrong`` graded wrong and ``--right`` graded right, seeded."""
    import random

    by: dict[tuple[str, bool], set[str]] = {}  # a question in two runs (shards that overlap) is drawn once
    for run in args.runs:
        for _, record in jsonl_objects(run / "records.jsonl"):
            group = record["question_id"].rsplit("/", 1)[0]
            if group in args.groups:
                by.setdefault((group, bool(record.get("correct"))), set()).add(record["question_id"])
    rng = random.Random(args.seed)
    drawn: list[str] = []
    for group in args.groups:
        for graded, wanted, option in ((False, args.wrong, "--wrong"), (True, args.right, "--right")):
            pool = sorted(by.get((group, graded), set()))
            if len(pool) < wanted:
                sys.exit(
                    f"group {group}: {len(pool)} solutions graded {'right' if graded else 'wrong'} in the runs, "
                    f"fewer than {option} {wanted}"
                )
            drawn += rng.sample(pool, wanted)
    args.out.write_text(json.dumps(drawn, indent=0) + "\n", encoding="utf-8")
    print(f"{len(drawn)} solutions drawn -> {args.out}")


def build(args: argparse.Namespace) -> None:
    labels: dict[str, dict] = {}
    for file in sorted(args.labels.rglob("*.labels.jsonl")):
        for where, label in jsonl_objects(file):
            if label.get("first_error") is None:
                continue  # not labelled (yet)
            first = label["first_error"]
            if first >= 0 and label.get("kind") not in KINDS:
                sys.exit(f"{file}, {where}: kind {label.get('kind')!r} is not one of {', '.join(KINDS)}")
            if label.get("answered", True) is not True and (label.get("answered") is not False or first >= 0):
                sys.exit(f"{file}, {where}: answered must be false (a non-answer, first_error -1) or left out")
            labels[label["id"]] = label
    out = []
    for run in args.runs:
        model = _model(run)
        for record in _records(run):
            sid = _solution_id(record, model)
            label = labels.get(sid)
            if label is None:
                continue
            steps = split_steps(record["output"])
            if not -1 <= label["first_error"] < len(steps):
                sys.exit(f"{sid}: first_error {label['first_error']} is outside its {len(steps)} steps")
            key = "question_id" if args.results or args.form == "gaokao-labels" else "ck12_id"
            text: dict = {key: record["question_id"], "model": model, "mode": "zero-shot-cot"}
            text |= {"subject": record["subject"], "type": record["type"]}
            if args.results:  # gaokao-labels: the release's answer is joined at read time, kept here by its hash
                text |= {"results": args.results, "output_sha256": output_hash(record["output"]), "steps": len(steps)}
            else:  # an answer made here: kept with its steps
                text |= {"output": record["output"], "steps": steps}
            out.append(
                {
                    "id": sid,
                    **text,
                    "extracted": record.get("extracted"),
                    "graded_correct": bool(record.get("correct")),
                    **({"answered": False} if label.get("answered") is False else {}),  # a non-answer
                    # The loop guard's verdict: read as a non-answer unless the label says it answered.
                    **({"finish_reason": record["finish_reason"]} if record.get("finish_reason") else {}),
                    "first_error": label["first_error"],
                    "kind": label.get("kind") if label["first_error"] >= 0 else None,
                    "note": label.get("note", ""),
                }
            )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out), encoding="utf-8")
    wrong = sum(r["first_error"] >= 0 for r in out)
    none = sum(r.get("answered") is False for r in out)
    print(
        f"{len(out)} labelled solutions ({wrong} with a wrong step, {none} non-answers, "
        f"{len(out) - wrong - none} correct) -> {args.out}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(required=True)
    p = sub.add_parser("packets")
    p.add_argument("runs", nargs="+", type=Path)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--per-packet", type=int, default=40)
    p.add_argument("--skip-labelled", type=Path, help="leave out solutions already on a sheet below this folder")
    p.add_argument("--bank", type=Path, help="the question bank the runs answered (default: the CK12 release)")
    p.add_argument("--only", type=Path, help="a JSON list of question ids: sheets for these alone, in this order")
    p.set_defaults(func=packets)
    d = sub.add_parser("sample")
    d.add_argument("runs", nargs="+", type=Path)
    d.add_argument("--groups", nargs="+", required=True, help="question id prefixes, drawn in this order")
    d.add_argument("--wrong", type=int, required=True)
    d.add_argument("--right", type=int, required=True)
    d.add_argument("--seed", type=int, required=True)
    d.add_argument("--out", type=Path, required=True)
    d.set_defaults(func=sample)
    b = sub.add_parser("build")
    b.add_argument("runs", nargs="+", type=Path)
    b.add_argument("--labels", type=Path, required=True)
    b.add_argument("--out", type=Path, required=True)
    b.add_argument("--form", choices=("ck12-labels", "gaokao-labels"), default="ck12-labels")
    b.add_argument(
        "--results",
        help="(gaokao-labels) the runs replay this result folder of the GAOKAO-Bench release "
        "(Results/gpt_4_0314_obj): keep the answer's hash, not its text",
    )
    b.set_defaults(func=build)
    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
