"""``k12eval diagnostics``: plant known errors in reference solutions to test the detectors."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer

from k12eval.cli._common import OwnOutput, UserError, check_counts, guarded, output_file

app = typer.Typer(help="Diagnostic sets: reference solutions with one known error each.", no_args_is_help=True)


OWN = OwnOutput("k12eval diagnostics make", (re.compile(r'\A\{"id": "(?:[^"\\\n]|\\.)*", "problem": '),))
"""How the chain file ``diagnostics make`` writes begins (:func:`k12eval.cli._common.output_file`)."""


@app.command("make")
@guarded
def make(
    data: Annotated[Path, typer.Argument(help="GSM8K JSONL, or a question bank with analyses (CK12 ...).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Chains JSONL to write (for meta-eval --format chains).")],
    seed: Annotated[int, typer.Option("--seed", help="Seed of every random choice.")] = 0,
    kinds: Annotated[
        str | None,
        typer.Option("--kinds", help="Comma-separated perturbations; all if omitted."),
    ] = None,
    fmt: Annotated[
        str | None,
        typer.Option("--format", "-f", help="gsm8k, or a question-bank format; detected if omitted."),
    ] = None,
    subjects: Annotated[
        str | None, typer.Option("--subjects", help="Comma-separated subjects to keep (question banks).")
    ] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="Only the first N questions.")] = None,
    no_originals: Annotated[
        bool, typer.Option("--no-originals", help="Leave out the unperturbed solutions (label: no error).")
    ] = False,
) -> None:
    """Write the reference solutions and their perturbations, each labelled with what changed and where."""
    from reasoning_metrics.diagnostics import KINDS, build_diagnostic_set, load_source, write_jsonl

    check_counts(seed=seed, limit=limit)
    output_file(out, data, own=OWN)
    chosen = tuple(k.strip() for k in kinds.split(",") if k.strip()) if kinds else KINDS
    unknown = [k for k in chosen if k not in KINDS]
    if unknown:
        raise UserError(f"unknown perturbation(s) {', '.join(unknown)}; choose from {', '.join(KINDS)}")
    wanted = tuple(s.strip() for s in subjects.split(",") if s.strip()) if subjects else ()
    items = load_source(data, fmt, wanted)[:limit]
    result = build_diagnostic_set(items, kinds=chosen, seed=seed, originals=not no_originals)
    write_jsonl(result.records, out)
    made = ", ".join(f"{kind} {count}" for kind, count in result.made.items())
    typer.echo(f"wrote {out}: {len(result.records)} solutions from {len(items)} questions ({made})")
    if result.skipped:
        skipped = ", ".join(f"{kind} {count}" for kind, count in result.skipped.items())
        typer.echo(f"nothing to perturb (skipped): {skipped}", err=True)
