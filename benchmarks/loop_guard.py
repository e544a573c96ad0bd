"""The loop guard's window, chosen on the development half of real answers and checked on the other half.

    python benchmarks/loop_guard.py data/ck12_errors/qwen2.5-coder-0.5b-instruct*.jsonl RUN_DIR... \
        --model qwen2.5-coder-0.5b-instruct

Reads real chain-of-thought answers (run folders, whose records say how many tokens the run allowed,
or ``data/ck12_errors`` files, made with a budget of ``--budget`` tokens), tokenizes each answer with
the model's own tokenizer and splits the answers once, by a hash of the question id, into a
development half and a confirmation half. An answer that ended before its budget ended by itself
(the model's end-of-sequence): the guard must cut none of them. An answer that ran to the budget is
where loops are. For each window of the grid the development half gives the answers it would cut;
the smallest window that cuts no answer that ended by itself is chosen, and the confirmation half
reports it: loops cut, answers that ended by themselves cut, tokens saved, with Wilson intervals.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.intervals import wilson_interval  # noqa: E402
from runners.loop_guard import first_at_least, loop_spans  # noqa: E402

GRID = (24, 32, 48, 64, 96, 128, 192, 256)


@dataclass(frozen=True)
class Answer:
    """One real answer: where it came from, its tokens, and whether it ran to its budget."""

    key: str
    """The question id (the split key)."""
    source: str
    tokens: list[int]
    ran_out: bool
    """It ran to the token budget (no end-of-sequence of its own)."""
    spans: list[int]
    """:func:`runners.loop_guard.loop_spans` of its tokens."""


def dev_half(key: str) -> bool:
    """The split, fixed before any answer is read: an even first byte of the id's SHA-1 is development."""
    return hashlib.sha1(key.encode("utf-8")).digest()[0] % 2 == 0


def read_answers(paths: list[Path], tokenizer: object, budget: int) -> list[Answer]:
    """Every answer with an output in the given run folders and ``ck12_errors``-style files."""
    answers = []
    for path in paths:
        if path.is_dir():
            header = json.loads((path / "run.json").read_text(encoding="utf-8"))
            limit = int(header["sampling"]["max_tokens"])
            lines = (path / "records.jsonl").read_text(encoding="utf-8").splitlines()
        else:
            limit = budget
            lines = path.read_text(encoding="utf-8").splitlines()
        latest = {}
        for line in lines:
            record = json.loads(line)
            key = record.get("ck12_id") or record["question_id"]
            if record.get("output"):
                latest[key] = record
        for key, record in latest.items():
            tokens = tokenizer(record["output"], add_special_tokens=False)["input_ids"]  # type: ignore[operator]
            generated = record.get("completion_tokens") or len(tokens)
            reason = record.get("finish_reason")
            ran_out = reason == "length" if reason in ("stop", "length") else generated >= limit - 2
            answers.append(Answer(key, path.name, tokens, ran_out, loop_spans(tokens)))
    return answers


def cuts(answers: list[Answer], window: int) -> tuple[list[Answer], list[Answer], int]:
    """``(answers that ran out and are cut, answers that ended by themselves and are cut, tokens saved)``."""
    loops, good, saved = [], [], 0
    for answer in answers:
        end = first_at_least(answer.spans, window)
        if end is None:
            continue
        saved += len(answer.tokens) - end
        (loops if answer.ran_out else good).append(answer)
    return loops, good, saved


def _rate(k: int, n: int) -> str:
    if n == 0:
        return f"{k}/0"
    low, high = wilson_interval(k, n)
    return f"{k}/{n} = {k / n:.0%} ({low:.0%}-{high:.0%}, Wilson)"


def report(name: str, answers: list[Answer], window: int) -> None:
    """One line of what the guard does to ``answers``."""
    ran_out = [a for a in answers if a.ran_out]
    ended = [a for a in answers if not a.ran_out]
    loops, good, saved = cuts(answers, window)
    total = sum(len(a.tokens) for a in answers)
    print(
        f"  {name}: {len(answers)} answers; ran to the budget: cut {_rate(len(loops), len(ran_out))}; "
        f"ended by themselves: cut {_rate(len(good), len(ended))}; tokens saved {saved} of {total}"
    )
    for answer in good:
        print(f"    cut an answer that ended by itself: {answer.source} {answer.key}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("paths", nargs="+", type=Path, help="run folders or ck12_errors JSONL files")
    parser.add_argument("--model", default="qwen2.5-coder-0.5b-instruct", help="catalogue name or folder")
    parser.add_argument("--budget", type=int, default=512, help="the token budget of the JSONL files' answers")
    parser.add_argument("--show", type=int, default=0, help="print the cut tail of this many confirmation loops")
    args = parser.parse_args()
    from transformers import AutoTokenizer

    from k12eval.models import backend_model

    tokenizer = AutoTokenizer.from_pretrained(backend_model(args.model, "transformers"))
    answers = read_answers(args.paths, tokenizer, args.budget)
    dev = [a for a in answers if dev_half(a.key)]
    confirm = [a for a in answers if not dev_half(a.key)]
    print(f"{len(answers)} answers: development {len(dev)}, confirmation {len(confirm)}")
    print("development half, by window:")
    chosen = None
    for window in GRID:
        loops, good, saved = cuts(dev, window)
        print(
            f"  window {window:>3}: cuts {len(loops)} that ran out, {len(good)} that ended by themselves, saves {saved}"
        )
        if chosen is None and not good:
            chosen = window
    if chosen is None:
        print("no window of the grid spares every answer that ended by itself")
        return
    print(f"chosen on the development half: window {chosen}")
    report("development", dev, chosen)
    report("confirmation", confirm, chosen)
    for source in sorted({a.source for a in confirm}):
        report(f"confirmation, {source}", [a for a in confirm if a.source == source], chosen)
    if args.show:
        loops, _, _ = cuts(confirm, chosen)
        for answer in loops[: args.show]:
            end = first_at_least(answer.spans, chosen) or 0
            text = tokenizer.decode(answer.tokens[max(0, end - 80) : end])  # type: ignore[attr-defined]
            print(f"--- {answer.key} cut at {end} of {len(answer.tokens)}: ...{text!r}")


if __name__ == "__main__":
    main()
