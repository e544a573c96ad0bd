"""The ``k12eval`` command line: one module per command group, each command calls one library function.

Only light modules are imported here; anything that needs torch, transformers,
sentence-transformers or vllm is imported inside the command that uses it.
"""

from __future__ import annotations

import typer

from k12eval._version import __version__
from k12eval.cli import calibrate as calibrate_cli
from k12eval.cli import data as data_cli
from k12eval.cli import demo as demo_cli
from k12eval.cli import diagnostics as diagnostics_cli
from k12eval.cli import kg as kg_cli
from k12eval.cli import metaeval as metaeval_cli
from k12eval.cli import models as models_cli
from k12eval.cli import report as report_cli
from k12eval.cli import run as run_cli
from k12eval.cli import score as score_cli

app = typer.Typer(
    name="k12eval",
    help="Find where a language model's knowledge and reasoning break down, knowledge point by knowledge point.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(kg_cli.app, name="kg")
run_cli.register(app)
app.add_typer(models_cli.app, name="models")
app.add_typer(data_cli.app, name="data")
app.add_typer(report_cli.app, name="report")
app.add_typer(score_cli.app)
app.add_typer(metaeval_cli.app)
app.add_typer(calibrate_cli.app)
app.add_typer(diagnostics_cli.app, name="diagnostics")
app.add_typer(demo_cli.app)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"k12eval {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
) -> None:
    """Find where a language model's knowledge and reasoning break down."""


def main() -> None:
    """Console-script entry point."""
    app()
