"""Helpers shared by the command modules."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import typer

from kg.errors import InputError

P = ParamSpec("P")
R = TypeVar("R")


class UserError(Exception):
    """A bad input or option found by the command line itself; printed like an :class:`InputError`."""


def guarded(fn: Callable[P, R]) -> Callable[P, R]:
    """Print bad-input errors of the command ``fn`` as one ``error: ...`` line and exit with status 2."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except (InputError, UserError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None

    return wrapper
