"""``k12eval calibrate``: learn how every detector's findings combine into a step's probability of being
the first wrong one (docs/detectors.md, "The learned combiner")."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer

from k12eval.cli._combiner_options import MinCorrectOpt
from k12eval.cli._common import OwnOutput, UserError, check_counts, guarded, output_file
from k12eval.cli._wording import worded
from runners.files import atomic_write

app = typer.Typer()


OWN = OwnOutput("k12eval calibrate", (re.compile(r'\A\{\s*"features": '),))
"""How the ``combiner.json`` ``calibrate`` writes begins (:func:`k12eval.cli._common.output_file`)."""


@app.command("calibrate")
@guarded
def calibrate(
    labelled: Annotated[
        list[str],
        typer.Argument(
            help="Labelled sets: PATH (with --format), FORMAT:PATH, or NAME=FORMAT:PATH,PATH... (several files as one "
            "set). Teacher verdicts downloaded from the report are chains files."
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Where to write combiner.json.")],
    fmt: Annotated[
        str | None,
        typer.Option("--format", "-f", help="Format of sets given without FORMAT: (processbench, mr-math, chains)."),
    ] = None,
    half: Annotated[
        str, typer.Option("--half", help="Which half of each set to fit on: dev (default), confirm or all.")
    ] = "dev",
    encoder: Annotated[
        str,
        typer.Option(
            "--encoder",
            "--embedder",
            help="Sentence encoder whose ROSCOE step scores become features too, chosen per set as `meta-eval "
            "--encoder` chooses it ('default': all-MiniLM-L6-v2 for English sets, multilingual-e5-small for "
            "Chinese ones; any other applies to all); 'none' (default) fits on the CPU detectors alone.",
        ),
    ] = "none",
    no_grade: Annotated[
        bool, typer.Option("--no-grade", help="Do not use the final answer's grade, even where the data gives it.")
    ] = False,
    folds: Annotated[int, typer.Option("--folds", help="Cross-validation folds (grouped by question).")] = 5,
    min_correct: MinCorrectOpt = 0.0,
    per_language: Annotated[
        list[str] | None,
        typer.Option(
            "--per-language",
            help="A language (zh, en; repeat for several) that also gets a combiner fitted on its own sets "
            "alone; its solutions are then scored by it, the others by the pooled one.",
        ),
    ] = None,
    language_min_correct: Annotated[
        float | None,
        typer.Option(
            "--language-min-correct",
            min=0.0,
            max=1.0,
            help="--min-correct for the per-language combiners (default: --min-correct).",
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the folds.")] = 0,
) -> None:
    """Fit a regularised logistic regression over every detector's step findings; write combiner.json."""
    from k12eval import api
    from reasoning_metrics.metaeval.halves import HALVES

    if half not in HALVES:
        raise UserError(f"--half {half!r}: choose one of {', '.join(HALVES)}")
    if folds < 2:
        raise UserError("--folds must be >= 2")
    check_counts(seed=seed)
    output_file(out, *labelled, own=OWN)  # before the fit: never over a labelled set, nor a user's file
    with worded():
        combiner = api.calibrate(
            labelled,
            fmt,
            half=half,
            encoder=encoder,
            grade=not no_grade,
            folds=folds,
            seed=seed,
            min_correct=min_correct,
            per_language=per_language or (),
            language_min_correct=language_min_correct,
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(out, combiner.to_json())
    sizes = ", ".join(f"{t['name']} {t['half']} ({t['solutions']})" for t in combiner.training)
    cv = combiner.cv
    typer.echo(
        f"wrote {out}: {len(combiner.features)} features, C = {combiner.C}, threshold {combiner.threshold:.3f} "
        f"(a solution over it gets its {combiner.locate} step); "
        f"trained on {sizes}; cross-validated exact first step {cv.get('acc_error')}, "
        f"correct called correct {cv.get('acc_correct')}, F1 {cv.get('f1')}"
    )
    for name, used in [
        ("", combiner.cv.get("folds")),
        *((f" ({lang})", own.cv.get("folds")) for lang, own in combiner.languages.items()),
    ]:
        if used is not None and used != folds:
            # never a silent clamp: the folds a fit could use are at most its question groups
            typer.echo(
                f"note: --folds {folds}: the training data{name} has {used} questions to group by, so it was "
                f"cross-validated with {used} folds",
                err=True,
            )
    for lang, own in combiner.languages.items():
        cv = own.cv
        typer.echo(
            f"  {lang} solutions: their own combiner, C = {own.C}, threshold {own.threshold:.3f} ({own.locate}), trained on "
            f"{', '.join(str(t['name']) for t in own.training)}; cross-validated exact first step "
            f"{cv.get('acc_error')}, correct called correct {cv.get('acc_correct')}"
        )
