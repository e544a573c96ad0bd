"""Options shared by the commands that fit a combiner (``calibrate``, ``meta-eval --lodo``): one declaration,
one help text."""

from __future__ import annotations

from typing import Annotated

import typer

MinCorrectOpt = Annotated[
    float,
    typer.Option(
        "--min-correct",
        min=0.0,
        max=1.0,
        help="A fitted combiner's step threshold is the best-F1 one among those calling at least this share of "
        "the correct training solutions correct (out of fold); in meta-eval, for the combiners of --lodo.",
    ),
]
