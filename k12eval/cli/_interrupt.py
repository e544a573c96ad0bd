"""What a command says when Ctrl-C stops it: one line saying what is kept and how to finish, and status 130.

Typer turns a ``KeyboardInterrupt`` into status 130 and says nothing; a user who pressed Ctrl-C while a
run's summary or a report was being written could not tell whether the work was lost. Each command wraps
its stages in :func:`on_interrupt` with the line that is true at that stage; :func:`k12eval.cli._common.guarded`
says the general one for anything outside them.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import typer

INTERRUPTED = 128 + signal.SIGINT
"""The exit status after Ctrl-C, as a shell reports a process SIGINT ended."""
ANYWHERE = (
    "what it wrote is kept whole (each file is replaced whole or appended line by line); run the same command again"
)
"""The line for a stage no command wrapped."""


def interrupted(said: str) -> typer.Exit:
    """Print ``error: interrupted (KeyboardInterrupt); SAID`` on stderr; the exit to raise."""
    typer.echo(f"error: interrupted (KeyboardInterrupt); {said}", err=True)
    return typer.Exit(INTERRUPTED)


@contextlib.contextmanager
def on_interrupt(said: str | Callable[[], str]) -> Iterator[None]:
    """Within the block, Ctrl-C ends the command with :func:`interrupted`'s line; ``said`` may be a function,
    asked once the interrupt came (to count what was written by then)."""
    try:
        yield
    except KeyboardInterrupt:
        raise interrupted(said() if callable(said) else said) from None


def file_id(path: Path) -> tuple[int, int] | None:
    """The device and inode at ``path`` (``None``: nothing there): a file or folder replaced whole (an atomic write,
    a report's swap) gets a new one, so comparing them tells whether the new one was put in place."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def replaced_since(path: Path, before: tuple[int, int] | None) -> bool:
    """Whether something other than what :func:`file_id` saw as ``before`` is at ``path`` now."""
    now = file_id(path)
    return now is not None and now != before
