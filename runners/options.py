"""What a run is asked to do: :class:`RunOptions`, the choices each option takes, and their checks.

The command line, the demo and the Python API build a :class:`RunOptions`; :mod:`runners.run`
carries it out and :mod:`runners.answering` turns it into prompts. Text from a command line
becomes one of the typed choices through :func:`choose`, which names the option it refuses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from kg.errors import SettingError
from runners.backends.base import SamplingParams
from runners.backends.harness_verdicts import Grader
from runners.batch_plan import BatchSize
from runners.gen_kwargs import with_gen_kwargs
from runners.ranking import RANK_NORMS, RankNorm
from runners.records import LANGS, MODES, STRATEGIES, Lang, Mode, Strategy, mode_info
from runners.selection import SELECTIONS
from runners.variants import VariantError, parse_variant

__all__ = ["LANGS", "MODES", "RANK_NORMS", "RELEASED_VARIANTS", "STRATEGIES", "RunOptions", "check_options", "choose"]

Choice = TypeVar("Choice", bound=str)


def choose(value: str, choices: tuple[Choice, ...], setting: str) -> Choice:
    """``value`` as one of ``choices``, or a :class:`SettingError` naming ``setting`` and what it takes."""
    for choice in choices:
        if value == choice:
            return choice
    raise SettingError(setting, value, f"choose one of {', '.join(choices)}")


RELEASED_VARIANTS = ("original", "shuffled", "distractors")


@dataclass(frozen=True)
class RunOptions:
    """Everything ``k12eval run`` takes."""

    data: Path
    data_named: dict[str, Any] | None = field(default=None, compare=False, kw_only=True)
    """What the user named ``data`` by, when a benchmark's name or hub id (``k12eval.banks.DataRef.record``): the
    name as typed, the benchmark, its revision and origin; ``run.json`` keeps it beside the folder."""
    model: str
    """The model as the user named it (a catalogue name, hub id, folder or server model): the run's identity."""
    out: Path
    backend: str = "transformers"
    mode: Mode = "zero-shot"
    variant: str | None = None
    """``None``: the benchmark's protocol (``options-50`` for Xiezhi, else ``original``; :mod:`runners.protocol`)."""
    strategy: Strategy | None = None
    """``None``: the benchmark's protocol (:mod:`runners.protocol`: generate, or for a local model
    CMMLU's next-token and Xiezhi's rank-options)."""
    lang: Lang = "auto"
    fmt: str | None = None
    mapping: Path | None = None
    taxonomy: Path | None = None
    """Xiezhi's discipline taxonomy (``subjects_tree_chn.json`` or its folder); ``None``: found beside the data."""
    split: str | None = None
    """The split to score (``dev``, ``val``, ``test``, ``train``, or ``all``); ``None``: the benchmark's evaluation
    split (CMMLU ``test``, C-Eval ``val``, Xiezhi ``test``), the whole bank when its questions carry none."""
    rank_norm: RankNorm | None = None
    """How ``rank-options`` scores an option (:data:`runners.ranking.RankNorm`); ``None``: the protocol's."""
    subjects: tuple[str, ...] = ()
    types: tuple[str, ...] = ()
    limit: int | float | None = None
    """At most this many questions (after filters), or a fraction of them (``0 < limit < 1``, rounded up, as
    lm-eval's ``--limit 0.1``): :func:`limited`."""
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
    gen_kwargs: dict[str, Any] = field(default_factory=dict)
    """Generation settings as lm-eval's ``--gen_kwargs`` (:mod:`runners.gen_kwargs`), applied after
    ``temperature``, ``top_p`` and ``max_tokens``."""
    tracking: dict[str, dict[str, str]] = field(default_factory=dict, compare=False)
    """Experiment trackers the run is sent to once over, with their arguments (``{"wandb": {"project": ...}}``;
    :mod:`k12eval.tracking`); not part of the run's identity."""
    system_prompt: str | None = None
    """The system message every prompt starts with, instead of the template set's (``""``: none); part of the
    run's identity (:attr:`runners.records.RunHeader.template_hash`)."""
    grader: str = "k12eval"
    """Whose verdict counts: ``k12eval`` or ``harness[:METRIC[,FILTER]]`` (a replay of lm-eval's samples;
    :class:`runners.backends.harness_verdicts.Grader`)."""
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
    def run_variant(self) -> str:
        """The variant in force, filled in like :attr:`run_seed`."""
        if self.variant is None:
            raise ValueError("RunOptions.variant is unset: apply runners.protocol.with_protocol_defaults first")
        return self.variant

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


def parse_limit(text: float | None) -> int | float | None:
    """``--limit``: a count (``100``) or a fraction of the questions (``0.1``); an :class:`InputError` otherwise."""
    if text is None:
        return None
    value = float(text)
    if 0 < value < 1:
        return value
    if value >= 1 and math.isfinite(value) and value == int(value):
        return int(value)
    raise SettingError(
        "limit",
        f"{text:g}",
        quoted=False,
        problem="give a count of questions (100) or a fraction of them between 0 and 1 (0.1)",
    )


def limited(count: int, limit: int | float | None) -> int:
    """How many of ``count`` selected questions ``limit`` keeps: a fraction rounds up, as lm-eval's does."""
    if limit is None:
        return count
    if isinstance(limit, float) and limit < 1:
        return math.ceil(count * limit)
    return min(count, int(limit))


def check_options(options: RunOptions) -> None:
    """Refuse impossible option combinations before anything is loaded."""
    choose(options.mode, MODES, "mode")
    if options.strategy is not None:
        choose(options.strategy, STRATEGIES, "strategy")
    if options.rank_norm is not None:
        choose(options.rank_norm, RANK_NORMS, "rank_norm")
    choose(options.lang, LANGS, "lang")
    choose(options.select, tuple(SELECTIONS), "select")
    if mode_info(options.mode).few_shot and options.few_shot is None:
        raise SettingError(
            "mode",
            options.mode,
            lambda name: (
                f"needs {name('few_shot')} (a question bank to take exemplars from, or CK12's few_shot_examples.json)"
            ),
        )
    if options.strategy not in (None, "generate") and mode_info(options.mode).cot:
        raise SettingError("strategy", options.strategy, "scores options directly; use a mode without CoT")
    if options.batch_size != "auto" and (not isinstance(options.batch_size, int) or options.batch_size < 1):
        raise SettingError("batch_size", options.batch_size, "give a whole number of at least 1, or auto")
    if options.samples < 1:
        raise SettingError("samples", options.samples, "must be at least 1")
    parse_limit(options.limit)
    with_gen_kwargs(SamplingParams(), options.gen_kwargs)  # refused before any model is loaded
    if Grader.parse(options.grader).name == "harness" and options.backend != "replay":
        raise SettingError(
            "grader",
            options.grader,
            lambda name: (
                "reads the verdicts lm-eval recorded beside its answers: replay its samples_*.jsonl with "
                f"{name('backend', 'replay')}"
            ),
        )
    _check_ranges(options)
    if options.loop_guard is not None and options.loop_guard < 0:
        raise SettingError("loop_guard", options.loop_guard, "give 0 (off) or a number of tokens")
    try:
        if options.variant is not None:  # None: the protocol's, filled in later
            parse_variant(options.variant)
    except VariantError as exc:
        raise SettingError("variant", None, str(exc)) from None


_RANGES: tuple[tuple[str, float, float, bool], ...] = (
    ("shots", 0, float("inf"), True),
    ("token_budget", 1, float("inf"), True),
    ("max_tokens", 1, float("inf"), True),
    ("temperature", 0, float("inf"), True),
    ("top_p", 0, 1, False),
)
"""``(setting, low, high, low allowed)`` of each number a run takes: outside, it is refused by name,
never clamped (``--shots -1`` took every exemplar; ``--limit`` is checked by :func:`parse_limit`)."""


def _check_ranges(options: RunOptions) -> None:
    for name, low, high, low_allowed in _RANGES:
        value = getattr(options, name)
        if value is None:
            continue
        if value != value or value > high or value < low or (value == low and not low_allowed):
            bound = f"of at least {low:g}" if low_allowed else f"above {low:g}"
            upper = "" if high == float("inf") else f" and at most {high:g}"
            raise SettingError(name, value, f"give a number {bound}{upper}")
