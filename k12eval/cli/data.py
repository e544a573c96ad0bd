"""``k12eval data``: the benchmarks k12eval knows by name, fetching them, and where they are on this machine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from k12eval.cli._common import guarded

app = typer.Typer(
    help="Benchmarks by name: list them, fetch them (hub, mirror, publisher's archive, a local copy), find them.",
    no_args_is_help=True,
)

HomeOpt = Annotated[
    Path | None,
    typer.Option("--home", help="Cache folder (default: $K12EVAL_HOME, else ~/.cache/k12eval).", show_default=False),
]


@app.command("list")
@guarded
def list_benchmarks(
    home: HomeOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON array.")] = False,
) -> None:
    """Show the known benchmarks: where each is published, its licence, the names it answers to, and whether it
    is on this machine (looked up offline: what `data pull` left, and the Hugging Face hub cache)."""
    from k12eval.banks import BENCHMARKS, find_local

    rows: list[dict[str, Any]] = []
    for b in BENCHMARKS:
        here = find_local(b, home)
        rows.append(
            {
                "name": b.name,
                "title": b.title,
                "format": b.fmt,
                "published": b.published,
                "licence": b.licence,
                "homepage": b.homepage,
                "eval_split": b.eval_split,
                "aliases": list(b.aliases),
                "modelscope": b.modelscope,
                "path": str(here) if here is not None else None,
            }
        )
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False))
        return
    for row in rows:
        where = row["path"] or f"not here: k12eval data pull {row['name']}"
        typer.echo(f"{row['name']:<8} {row['title']}")
        typer.echo(f"         {row['published']}; licence {row['licence']}; also: {', '.join(row['aliases'])}")
        typer.echo(f"         {where}")


@app.command("pull")
@guarded
def pull(
    name: Annotated[str, typer.Argument(help="A benchmark (k12eval data list), an lm-eval name, or hf://ORG/NAME.")],
    source: Annotated[
        str | None,
        typer.Option(
            "--from",
            help="Take the files from a local zip, a local folder (e.g. a ModelScope download) or a URL instead.",
        ),
    ] = None,
    revision: Annotated[str | None, typer.Option("--revision", help="Hub branch, tag or commit.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Fetch again even when a copy is here.")] = False,
    home: HomeOpt = None,
) -> None:
    """Fetch a benchmark's files: from the Hugging Face hub (HF_ENDPOINT and HF_HUB_CACHE / HF_HOME honoured),
    else the publisher's GitHub archive; a copy already here is left as it is."""
    from k12eval.banks import pull as pull_bank

    result = pull_bank(
        name, source=source, revision=revision, force=force, root=home, report=lambda m: typer.echo(m, err=True)
    )
    at = f" at {result.revision}" if result.revision else ""
    if result.already:
        typer.echo(f"{result.name}: already here ({result.origin}) at {result.path}")
    else:
        typer.echo(f"{result.name}: {result.origin}{at} -> {result.path}")


@app.command("path")
@guarded
def path(
    name: Annotated[str, typer.Argument(help="A benchmark, an lm-eval name, hf://ORG/NAME, or a folder.")],
    home: HomeOpt = None,
) -> None:
    """Print the folder a question-bank argument reads (offline; an error line says how to fetch it if absent)."""
    from k12eval.banks import resolve_data

    typer.echo(str(resolve_data(name, home).path))
