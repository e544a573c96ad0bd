"""What a run is asked to do: :class:`RunOptions`, the choices each option takes, and their checks.

The command line, the demo and the Python API build a :class:`RunOptions`; :mod:`runners.run`
carries it out and :mod:`runners.answering` turns it into prompts. Text from a command line
becomes one of the typed choices through :func:`choose`, which names the option it refuses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from kg.errors import InputError
from runners.batch_plan import BatchSize
from runners.records import LANGS, MODES, STRATEGIES, Lang, Mode, Strategy, mode_info
from runners.selection import SELECTIONS

__all__ = ["LANGS", "MODES", "RELEASED_VARIANTS", "STRATEGIES", "RunOptions", "check_options", "choose"]

Choice = TypeVar("Choice", bound=str)


def choose(value: str, choices: tuple[Choice, ...], option: str) -> Choice:
    """``value`` as one of ``choices``, or an :class:`InputError` naming ``option`` and what it takes."""
    for choice in choices:
        if value == choice:
            return choice
    raise InputError(f"{option} {value!r}: choose one of {', '.join(choices)}")


RELEASED_VARIANTS = ("original", "shuffled", "distractors")


@dataclass(frozen=True)
class RunOptions:
    """Everything ``k12eval run`` takes."""

    data: Path
    model: str
    """The model as the user named it (a catalogue name, hub id, folder or server model): the run's identity."""
    out: Path
    backend: str = "transformers"
    mode: Mode = "zero-shot"
    variant: str = "original"
    strategy: Strategy | None = None
    """``None``: the benchmark's protocol (:mod:`runners.protocol`: generate, or for a local model
    CMMLU's next-token and Xiezhi's rank-options)."""
    lang: Lang = "auto"
    fmt: str | None = None
    mapping: Path | None = None
    subjects: tuple[str, ...] = ()
    types: tuple[str, ...] = ()
    limit: int | None = None
    select: str = "all"
    """A named selection of :mod:`runners.selection` (``reasoning-subset``): part of the run's identity."""
    seed: int | None = None
    """``None``: the benchmark's own (:func:`runners.protocol.with_protocol_defaults`: 42 for Xiezhi, else 0)."""
    shard: str | None = None
    few_shot: Path | None = None
    shots: int | None = None
    """``None``: the benchmark's protocol (5; Xiezhi 3)."""
    token_budget: int | None = None
    """``None``: the template set's ``fewshot_budget`` (CK12 1,024 tokens, CMMLU 2,048)."""
    template_set: str | None = None
    """``None``: the benchmark's own template set (ck12, cmmlu, xiezhi; see :mod:`runners.protocol`)."""
    chat: bool | None = None
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    samples: int = 1
    loop_guard: int | None = None
    """Stop an answer whose last N tokens repeat one piece (:mod:`runners.loop_guard`); 0: off;
    ``None``: :data:`runners.loop_guard.LOOP_WINDOW` for a local model (others are not stopped)."""
    batch_size: BatchSize = "auto"
    """Questions per backend call and per checkpoint, also the generation batch of a backend with a
    micro-batch unless ``-B batch_size=`` sets it; ``auto``: :mod:`runners.batch_plan`."""
    retry_failed: bool = False
    """Ask again the questions whose last record failed (the failed records stay as history)."""
    skip_invalid: bool = False
    """Leave out the bank's invalid records, each named on stderr and in ``run.json``, instead of stopping."""
    backend_options: dict[str, Any] = field(default_factory=dict)
    backend_instance: Any = field(default=None, compare=False, repr=False)
    """A backend object built by the caller (the Python API), used instead of creating ``backend`` by name;
    ``backend`` is then its name, as the run header records it."""
    protocol: dict[str, Any] | None = field(default=None, compare=False)
    """The protocol record ``run.json`` keeps, set by :func:`runners.protocol.with_protocol_defaults`."""
    model_path: str | None = None
    """Where the backend loads ``model`` from, when the caller resolved a catalogue name to its folder
    (``k12eval.models.backend_model``); ``None``: ``model`` as it is."""

    @property
    def run_seed(self) -> int:
        """The seed in force; the run fills in ``seed`` (:func:`runners.protocol.with_protocol_defaults`) first."""
        if self.seed is None:
            raise ValueError("RunOptions.seed is unset: apply runners.protocol.with_protocol_defaults first")
        return self.seed

    @property
    def run_strategy(self) -> Strategy:
        """The strategy in force, filled in like :attr:`run_seed`."""
        if self.strategy is None:
            raise ValueError("RunOptions.strategy is unset: apply runners.protocol.with_protocol_defaults first")
        return self.strategy

    @property
    def run_shots(self) -> int:
        """The shots in force, filled in like :attr:`run_seed`."""
        if self.shots is None:
            raise ValueError("RunOptions.shots is unset: apply runners.protocol.with_protocol_defaults first")
        return self.shots

    @property
    def run_template_set(self) -> str:
        """The template set in force, filled in like :attr:`run_seed`."""
        if self.template_set is None:
            raise ValueError("RunOptions.template_set is unset: apply runners.protocol.with_protocol_defaults first")
        return self.template_set

    @property
    def run_token_budget(self) -> int:
        """The few-shot budget in force, filled in like :attr:`run_seed`."""
        if self.token_budget is None:
            raise ValueError("RunOptions.token_budget is unset: apply runners.protocol.with_protocol_defaults first")
        return self.token_budget


def check_options(options: RunOptions) -> None:
    """Refuse impossible option combinations before anything is loaded."""
    choose(options.mode, MODES, "--mode")
    if options.strategy is not None:
        choose(options.strategy, STRATEGIES, "--strategy")
    choose(options.lang, LANGS, "--lang")
    choose(options.select, tuple(SELECTIONS), "--select")
    if mode_info(options.mode).few_shot and options.few_shot is None:
        raise InputError(
            f"--mode {options.mode} needs --few-shot DEV_DATA (a question bank to take exemplars from, or CK12's few_shot_examples.json)"
        )
    if options.strategy not in (None, "generate") and mode_info(options.mode).cot:
        raise InputError(f"--strategy {options.strategy} scores options directly; use a mode without CoT")
    if options.batch_size != "auto" and (not isinstance(options.batch_size, int) or options.batch_size < 1):
        raise InputError(f"--batch-size {options.batch_size!r}: give a whole number of at least 1, or auto")
    if options.samples < 1:
        raise InputError("--samples must be at least 1")
    if options.loop_guard is not None and options.loop_guard < 0:
        raise InputError(f"--loop-guard {options.loop_guard}: give 0 (off) or a number of tokens")
