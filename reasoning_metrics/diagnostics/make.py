"""Build a diagnostic set: every reference solution, and each of its perturbations, as chains JSONL.

The output is what ``k12eval meta-eval --format chains`` reads. Each record is
seeded by ``(seed, item id, kind)``, so one item's perturbations do not change
when other items are added or removed, and the same seed gives the same file.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reasoning_metrics.diagnostics.perturb import KINDS, PERTURBATIONS
from reasoning_metrics.diagnostics.sources import SourceItem
from runners.files import atomic_write

SET_VERSION = 1


@dataclass
class DiagnosticSet:
    """The records of a diagnostic set and what could not be made."""

    records: list[dict[str, Any]] = field(default_factory=list)
    made: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    """Kind -> how many items offered nothing to perturb that way."""


def _rng(seed: int, item_id: str, kind: str) -> random.Random:
    return random.Random(f"{seed}:{item_id}:{kind}")  # str seeds hash with SHA-512: stable across runs


def build_diagnostic_set(
    items: Sequence[SourceItem], *, kinds: Sequence[str] = KINDS, seed: int = 0, originals: bool = True
) -> DiagnosticSet:
    """Perturb every item in every kind; ``originals`` adds the unperturbed solutions (no error)."""
    unknown = [k for k in kinds if k not in PERTURBATIONS]
    if unknown:
        raise ValueError(f"unknown perturbation(s) {', '.join(unknown)}; choose from {', '.join(KINDS)}")
    result = DiagnosticSet()
    by_lang: dict[str, list[tuple[str, str]]] = {}
    for item in items:
        by_lang.setdefault(item.lang, []).extend((item.id, step) for step in item.steps)
    for item in items:
        base = {"problem": item.problem, "lang": item.lang}
        meta = {"source_id": item.id, "seed": seed, "version": SET_VERSION, **item.meta}
        if originals:
            labels = [0] * len(item.steps)
            result.records.append(
                {
                    "id": f"{item.id}:original",
                    **base,
                    "steps": list(item.steps),
                    "first_error": -1,
                    "step_labels": labels,
                    "meta": {**meta, "kind": "original"},
                }
            )
            result.made["original"] += 1
        for kind in kinds:
            rng = _rng(seed, item.id, kind)
            pool = _foreign_steps(by_lang.get(item.lang, []), item.id, rng) if kind == "hallucinate" else ()
            perturbation = PERTURBATIONS[kind](list(item.steps), rng, lang=item.lang, pool=pool)
            if perturbation is None:
                result.skipped[kind] += 1
                continue
            result.made[kind] += 1
            result.records.append(
                {
                    "id": f"{item.id}:{kind}",
                    **base,
                    "steps": perturbation.steps,
                    "first_error": perturbation.first_error,
                    "step_labels": perturbation.step_labels,
                    "meta": {**meta, "kind": kind, "change": perturbation.change},
                }
            )
    return result


def _foreign_steps(steps: list[tuple[str, str]], own_id: str, rng: random.Random, sample: int = 20) -> list[str]:
    """Up to ``sample`` steps of other items in the same language, drawn with ``rng``."""
    picked: list[str] = []
    for _ in range(3 * sample if steps else 0):
        source, text = steps[rng.randrange(len(steps))]
        if source != own_id:
            picked.append(text)
            if len(picked) == sample:
                break
    return picked


def write_jsonl(records: Sequence[dict[str, Any]], out: Path) -> None:
    """Write the records, one JSON object a line (UTF-8, Chinese unescaped), replacing ``out`` atomically."""
    out.parent.mkdir(parents=True, exist_ok=True)
    # A temporary file of its own (runners.files.atomic_write), not OUT.tmp: two commands on one output each
    # wrote the same OUT.tmp, and a write stopped midway left it behind.
    atomic_write(out, "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records))
