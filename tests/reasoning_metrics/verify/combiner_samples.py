"""Small synthetic step-labelled sets for the combiner tests: wrong solutions carry a false sum at a
known step, correct ones none (built in the tests, nothing copied from licensed data)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any


def chains(name: str, n: int, seed: int, *, graded: bool = False) -> list[dict[str, Any]]:
    """``n`` chains records; about half wrong, the first wrong step a false sum placed at step 1 to 3."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        a, b, c = rng.randint(2, 40), rng.randint(2, 40), rng.randint(2, 9)
        wrong = k % 2 == 1
        at = rng.randint(1, 3) if wrong else -1
        steps = [f"Ann has {a} marbles and Ben has {b} marbles."]
        slip = int(at == 1)
        total = a + b + slip
        steps.append(f"Together {a} + {b} = {total}.")
        for i in (2, 3):
            slip = int(at == i)
            steps.append(f"Times {c}: {total} * {c} = {total * c + slip}.")
            total = total * c + slip
        steps.append(f"The answer is {total}.")
        record: dict[str, Any] = {
            "id": f"{name}-{k}",
            "problem": f"Ann has {a} marbles and Ben has {b}. Each gets {c} times more. How many in all?",
            "steps": steps,
            "first_error": at,
        }
        meta: dict[str, Any] = {"kind": "early" if at == 1 else "late"} if wrong else {}
        if graded:
            meta["graded_correct"] = not wrong
        if meta:
            record["meta"] = meta
        out.append(record)
    return out


def write_chains(path: Path, records: list[dict[str, Any]]) -> Path:
    """Write ``records`` as chains JSONL."""
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path
