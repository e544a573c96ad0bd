"""The jobs that measure the detectors, composed once for ``k12eval meta-eval``, ``calibrate`` and Python.

:func:`meta_eval` reads a labelled set, loads the models its detectors need, runs them and computes the
report; :func:`meta_eval_lodo` is the leave-one-dataset-out table; :func:`calibrate` fits a combiner. Each
takes what the user named (paths, model names as :class:`~k12eval.models.loading.ModelChoice`) and returns
typed results; a bad setting is a :class:`~kg.errors.SettingError` naming it, an English-only encoder for
Chinese solutions an :class:`~reasoning_metrics.models.languages.EnglishOnlyEncoderWarning`. Re-exported by
:mod:`k12eval.api`; nothing heavy is imported until a job runs.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.errors import InputError, SettingError

if TYPE_CHECKING:
    from k12eval.models.loading import ModelChoice
    from reasoning_metrics.combine.model import Combiner
    from reasoning_metrics.metaeval import MetaEvalReport
    from reasoning_metrics.metaeval.detectors import DetectorResult

PathLike = str | Path


@dataclass
class MetaEvalResult:
    """What :func:`meta_eval` measured: the report, each detector's scores and the per-group table when asked."""

    report: MetaEvalReport
    results: list[DetectorResult]
    """Each detector's scores, as the report was computed from them."""
    by_group: str = ""
    """``## By <field>`` and its table when ``by`` was given, else empty."""

    def markdown(self, word: Callable[[str], str] | None = None) -> str:
        """The report as Markdown, the per-group table after it; ``word`` words an unavailable detector's reason
        code (default: in English, naming no option; the command line names its flags)."""
        from reasoning_metrics.metaeval import to_markdown

        return to_markdown(self.report, word) + self.by_group

    @property
    def json(self) -> str:
        """The report as one JSON object (without the per-group table)."""
        from reasoning_metrics.metaeval import to_json

        return to_json(self.report)


@dataclass
class FlagRatesResult:
    """What :func:`meta_eval_flag_rates` measured: the JSON the page reads and the tables the command prints."""

    json: dict[str, Any]
    """``reasoning_metrics/flag_evidence.json``'s shape: each kind's rates, the rule's verdict, the separation."""
    markdown: str


def labelled_set(data: PathLike, fmt: str) -> list[Any]:
    """The step-labelled solutions of ``data``: a file that exists is read as named (its path may hold ',' or
    '='); else ``data`` lists several files as one set (:func:`reasoning_metrics.metaeval.sets.parse_set`)."""
    from reasoning_metrics.metaeval import load_solutions
    from reasoning_metrics.metaeval.sets import load_set, parse_set

    path = Path(data)
    return load_solutions(path, fmt) if path.exists() else load_set(parse_set(str(data), fmt))


def meta_eval_flag_rates(
    data: PathLike,
    fmt: str,
    *,
    encoder: str = "default",
    nli: str = "none",
    limit: int | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    command: str | None = None,
    on_scoring: Callable[[int], None] | None = None,
) -> FlagRatesResult:
    """Every kind of step flag ``k12eval score`` writes, its rate on first wrong steps against right steps on
    each half (``k12eval meta-eval --flag-rates``), and the page scores' separation, scoring ``data`` as
    ``score`` scores a run. ``command`` is recorded beside the figures; ``on_scoring(n)`` is called before
    the ``n`` solutions are scored."""
    from k12eval.models.loading import encoders_for, load_metric_model
    from reasoning_metrics.metaeval.flag_rates import (
        flag_rates,
        rates_json,
        rates_markdown,
        score_as_run,
        separation,
        separation_markdown,
    )
    from reasoning_metrics.slots import model_name
    from reasoning_metrics.step_thresholds import ENCODER_FLAGS
    from reasoning_metrics.verify.registry import DETECTORS as REGISTRY

    solutions = labelled_set(data, fmt)[:limit]
    encoders, specs = encoders_for(encoder, solutions)
    nli_model = load_metric_model("nli", nli, "nli")
    if on_scoring is not None:
        on_scoring(len(solutions))
    scored, assessed = score_as_run(solutions, encoders if encoders is not None else "none", nli_model)
    ran = {name for a in assessed if a is not None for name in a.detectors}  # what `score` runs here, as it ran
    kinds = {str(kind): "detector" for name in ran if name in REGISTRY for kind in REGISTRY[name].kinds}
    kinds |= dict.fromkeys((*ENCODER_FLAGS, *(("contradicts_source",) if nli_model is not None else ())), "similarity")
    rows = flag_rates(solutions, scored, assessed, kinds)
    names = {lg: model_name(model) for lg, model in (encoders or {}).items()}
    separates = separation(solutions, scored, n_boot=n_boot, seed=seed)
    report = rates_json(
        rows,
        data=str(data),
        format=fmt,
        encoder=names,
        asked=specs,
        nli=nli,
        command=command,
        solutions=len(solutions),
        separation=separates,
    )
    markdown = rates_markdown(rows, f"{data} ({fmt}), encoder " + ", ".join(f"{k} {v}" for k, v in names.items()))
    return FlagRatesResult(report, markdown + separation_markdown(separates))


def detector_names(detectors: Sequence[str] | None) -> list[str]:
    """The meta-eval detectors asked for (all but the combiner when ``None``); ``roscoe.<alias>`` accepts any
    name ``k12eval score`` accepts. An unknown name is an :class:`InputError` listing the choices."""
    from reasoning_metrics.metaeval import MEASURED
    from reasoning_metrics.metric_table import resolve

    if not detectors:
        return [n for n in MEASURED if n != "combiner"]  # added when a combiner is loaded
    names = []
    for raw in (n.strip() for n in detectors):
        if raw.startswith("roscoe.") and raw not in MEASURED:
            with contextlib.suppress(ValueError):  # an unknown name is reported below
                raw = f"roscoe.{resolve([raw.removeprefix('roscoe.')])[0].name}"
        if raw:
            names.append(raw)
    unknown = [n for n in names if n not in MEASURED]
    if unknown:
        raise InputError(f"unknown detector(s) {', '.join(unknown)}; choose from {', '.join(MEASURED)}")
    return names


def meta_eval(
    data: PathLike,
    fmt: str,
    *,
    detectors: Sequence[str] | None = None,
    encoder: str = "default",
    nli: str = "none",
    cache: bool = True,
    judge: ModelChoice | None = None,
    judge_log: PathLike | None = None,
    judge_max_tokens: int = 1024,
    prm: ModelChoice | None = None,
    rollouts: ModelChoice | None = None,
    rollout_k: int = 4,
    rollout_max_tokens: int = 512,
    n_boot: int = 1000,
    seed: int = 0,
    folds: int = 5,
    limit: int | None = None,
    by: str | None = None,
    half: str = "all",
    combiner: str | None = None,
    on_judged: Callable[[int, int], None] | None = None,
    on_rollouts: Callable[[int, int, int], None] | None = None,
) -> MetaEvalResult:
    """Measure the detectors on the step-labelled solutions of ``data`` (``k12eval meta-eval``).

    ``data`` is one file, or several comma-separated as one set; ``fmt`` its format (``processbench``,
    ``mr-math``, ``chains``, ``ck12-labels``, ``gaokao-labels``). ``detectors``: names (all when ``None``); ``encoder``: the
    ROSCOE encoder (``default``: one per language, ``none``: no ROSCOE); ``nli``: an NLI model or ``none``;
    ``judge``, ``prm``, ``rollouts``: the strong judges' models, loaded only when an asked detector reads them.
    ``combiner``: ``default``, a ``combiner.json`` or ``none`` (the shipped one when all detectors are asked).
    ``half`` (``dev``, ``confirm``, ``all``) and ``limit`` choose the solutions. ``on_judged(done, total)``
    reports the judge's progress; ``on_rollouts(generations, with_gold, total)`` the rollouts' size before
    their backend loads.
    """
    from k12eval.models.loading import encoders_for, load_backend, load_metric_model, load_prm
    from reasoning_metrics.combine import choose_combiner, load_combiner
    from reasoning_metrics.metaeval import DetectionContext, meta_evaluate, run_detectors
    from reasoning_metrics.metaeval.detectors import needed_models, rollout_tasks
    from reasoning_metrics.metaeval.halves import in_half
    from reasoning_metrics.verify.rules.rollouts import generation_count
    from runners.backends.base import SamplingParams

    names = detector_names(detectors)
    wanted = choose_combiner(combiner) if combiner is not None or not detectors or "combiner" in names else None
    fitted = load_combiner(wanted) if wanted else None
    if fitted is not None and "combiner" not in names:
        names.append("combiner")
    solutions = in_half(labelled_set(data, fmt), half)[:limit]
    roles = needed_models(names)  # read from the detectors' and metrics' records, not from their names
    needs_encoder = "encoder" in roles or bool(fitted is not None and fitted.uses_roscoe)
    encoders, chosen = encoders_for(encoder, solutions) if needs_encoder else (None, {})
    models: dict[str, Any] = {f"encoder.{lg}": spec for lg, spec in chosen.items()}
    nli_model = load_metric_model("nli", nli, "nli") if "nli" in roles else None
    if nli_model is not None:
        models["nli"] = nli
    backend = None
    if judge is not None and "judge" in roles:
        backend = load_backend(judge, "judge")
        models["judge"] = judge.model
    reward_model = load_prm(prm) if prm is not None and "prm" in roles else None
    if reward_model is not None:
        models["prm"] = reward_model.name  # its backend too: a served PRM is not the same run as an in-process one
    continuer = None
    if rollouts is not None and "rollouts" in roles:
        if on_rollouts is not None:
            tasks = rollout_tasks(solutions)
            with_gold = sum(t.question is not None for t in tasks)
            on_rollouts(generation_count(tasks, rollout_k), with_gold, len(tasks))
        continuer = load_backend(rollouts, "rollouts")
    total = len(solutions)
    context = DetectionContext(
        solutions,
        encoder=encoders,
        nli=nli_model,
        backend=backend,
        judge_log=Path(judge_log) if judge_log is not None else None,
        judge_params=SamplingParams(temperature=0.0, max_tokens=judge_max_tokens),
        judge_progress=(lambda done: on_judged(done, total)) if on_judged is not None else None,
        prm=reward_model,
        rollout_backend=continuer,
        rollout_k=rollout_k,
        rollout_params=SamplingParams(temperature=0.7, top_p=0.95, max_tokens=rollout_max_tokens),
        cache=None if cache else False,
        combiner=fitted,
    )
    results = run_detectors(context, names)
    report = meta_evaluate(
        solutions, results, data=str(data), fmt=fmt, n_boot=n_boot, seed=seed, folds=folds, models=models
    )
    report = replace(report, half=half, limit=limit)  # the header says which solutions these are
    groups = ""
    if by:
        from reasoning_metrics.metaeval.groups import by_group, group_markdown

        rows = by_group(solutions, results, key=by, seed=seed, folds=folds, n_boot=n_boot)
        groups = f"\n## By {by}\n\n" + group_markdown(rows)
    return MetaEvalResult(report, results, groups)


def meta_eval_lodo(
    sets: Sequence[str],
    fmt: str | None = None,
    *,
    encoder: str = "default",
    folds: int = 5,
    seed: int = 0,
    by: str | None = None,
    min_correct: float = 0.0,
    n_boot: int = 1000,
    on_set: Callable[[str], None] | None = None,
) -> str:
    """The leave-one-dataset-out table as Markdown (``k12eval meta-eval --lodo``): a combiner fitted on the
    other sets' dev halves, reported on each set's dev and confirm halves.

    ``sets``: ``FORMAT:PATH`` or ``NAME=FORMAT:PATH,PATH`` (``fmt`` for those without ``FORMAT:``); at least two,
    with distinct names. ``on_set(name)`` is called before each set is scored.
    """
    from k12eval.models.loading import encoders_for
    from reasoning_metrics.metaeval.lodo import leave_one_out, lodo_markdown, score_set
    from reasoning_metrics.metaeval.sets import load_set, parse_set

    specs = [parse_set(spec, fmt) for spec in sets]
    if len(specs) < 2:
        raise SettingError("sets", None, "leave-one-dataset-out needs at least two labelled sets")
    if len({s.name for s in specs}) < len(specs):
        raise SettingError("sets", None, "two sets have the same name; name them NAME=FORMAT:PATH")
    loaded: dict[str, Any] = {}  # one model scoring several sets is loaded once
    scored = []
    for spec in specs:
        if on_set is not None:
            on_set(spec.name)
        solutions = load_set(spec)
        model, chosen = encoders_for(encoder, solutions, loaded)
        scored.append(score_set(spec, solutions, model, encoder_names=chosen))
    roscoe = any(s.encoder for s in scored)
    return lodo_markdown(
        leave_one_out(scored, folds=folds, seed=seed, roscoe=roscoe, by=by, min_correct=min_correct, n_boot=n_boot)
    )


def calibrate(
    sets: Sequence[str],
    fmt: str | None = None,
    *,
    half: str = "dev",
    encoder: str = "none",
    grade: bool = True,
    folds: int = 5,
    seed: int = 0,
    min_correct: float = 0.0,
    per_language: Sequence[str] = (),
    language_min_correct: float | None = None,
) -> Combiner:
    """A combiner fitted on ``half`` of each labelled set (``k12eval calibrate``); write it with ``.to_json()``.

    ``sets`` as :func:`meta_eval_lodo` takes them. ``encoder`` (``none``: the CPU detectors alone) is chosen per
    set as :func:`meta_eval` chooses it, so the combiner is fitted on the features it is later applied to.
    ``per_language``: languages that also get a combiner of their own (``language_min_correct``, default
    ``min_correct``).
    """
    from k12eval._version import __version__
    from k12eval.models.loading import encoders_for
    from reasoning_metrics.metaeval.calibration import calibrate as fit
    from reasoning_metrics.metaeval.sets import parse_set

    specs = [parse_set(spec, fmt) for spec in sets]
    loaded: dict[str, Any] = {}  # one model scoring several sets is loaded once
    return fit(
        specs,
        half=half,
        pick_encoder=lambda solutions: encoders_for(encoder, solutions, loaded),
        grade=grade,
        folds=folds,
        seed=seed,
        package_version=__version__,
        min_correct=min_correct,
        by_language=tuple(per_language),
        language_min_correct=language_min_correct,
    )
