"""The Python API for notebooks and scripts: the command line's steps as functions over typed records.

Each function calls the same library function as its command (``k12eval run`` -> :func:`run`, ...),
takes ``str`` or :class:`~pathlib.Path` for every path, and returns typed records
(:class:`~kg.records.Question`, :class:`~runners.run.RunSummary`, :class:`~reports.runs.Run`)
or, from the ``*_table`` functions, pandas frames. Nothing heavy is imported until a function is
called: the model libraries only when a backend or scoring model is loaded. See docs/python.md.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from kg.records import Question
    from reasoning_metrics.permetric import ScorePlan
    from reasoning_metrics.score_store import ScoreRecord
    from reasoning_metrics.work_files import StaleWork
    from reports.runs import Run
    from reports.writer import ReportResult
    from runners.backends.base import Backend
    from runners.options import RunOptions
    from runners.run import RunSummary

from k12eval.meta_jobs import MetaEvalResult as MetaEvalResult
from k12eval.meta_jobs import calibrate as calibrate
from k12eval.meta_jobs import meta_eval as meta_eval
from k12eval.meta_jobs import meta_eval_flag_rates as meta_eval_flag_rates
from k12eval.meta_jobs import meta_eval_lodo as meta_eval_lodo

PathLike = str | Path
SCORE_BATCH_SIZE = 256
"""Texts or NLI pairs a score job hands a model per call (``score --batch-size``): enough for a GPU's whole
batches; the model adapters cut them into their own (:mod:`reasoning_metrics.models`)."""
"""Any path argument: a ``str`` or a :class:`~pathlib.Path`."""


def sample_bank(name: str = "sample") -> Path:
    """The bundled question bank ``sample`` (63 questions) or ``sample_dev`` (few-shot exemplars).

    Found inside the installed package, so it works from a wheel as from a checkout.
    """
    if name not in ("sample", "sample_dev"):
        raise ValueError(f"no bundled bank {name!r}; choose sample or sample_dev")
    return Path(str(resources.files("k12eval") / "data" / name))


def load_bank(
    path: PathLike,
    fmt: str | None = None,
    *,
    variant: str = "original",
    mapping: PathLike | None = None,
    taxonomy: PathLike | None = None,
    split: str | None = None,
    skip_invalid: bool = False,
) -> list[Question]:
    """The questions of the bank at ``path`` (any format ``k12eval kg`` reads; detected if ``fmt`` is omitted), or
    of a benchmark named as ``k12eval run`` takes it (``ceval``, ``hf://ceval/ceval-exam``, ``cmmlu_agronomy``: that
    subject alone; docs/data.md): every split, or ``split``'s (``dev``, ``val``, ``test``, ``train``). ``taxonomy``: Xiezhi's, when it is not where
    the release keeps it."""
    from k12eval.banks import resolve_data
    from kg.importers import load_questions
    from runners.bank import choose_split

    bank = resolve_data(path)
    loaded = load_questions(
        bank.path, fmt, variant=variant, mapping=mapping, taxonomy=taxonomy, skip_invalid=skip_invalid
    )
    questions = list(bank.in_scope(loaded.questions))
    return questions if split is None else choose_split(questions, split, None)[0]


def run(
    data: PathLike,
    model: str,
    out: PathLike,
    *,
    backend: str | Backend = "transformers",
    subjects: str | Sequence[str] = (),
    types: str | Sequence[str] = (),
    few_shot: PathLike | None = None,
    backend_options: dict[str, Any] | None = None,
    progress: Callable[[int, int, float], None] | None = None,
    **options: Any,
) -> RunSummary:
    """Answer the questions of ``data`` with ``model`` into the run folder ``out`` (resumable, like ``k12eval run``).

    ``backend`` is a name (``transformers``, ``vllm``, ``openai``, ``replay`` or one an installed
    package registers, see docs/python.md) or a backend object you built (of a
    :class:`runners.backends.Backend` subclass). ``subjects`` and
    ``types`` take a list or a comma list. Other keywords are :class:`~runners.options.RunOptions`
    fields (``mode``, ``limit``, ``max_tokens``, ``batch_size``...).
    """
    given: dict[str, Any] = {"subjects": subjects, "types": types, "few_shot": few_shot}
    composed = run_options(data, model, out, backend=backend, backend_options=backend_options, **given, **options)
    return run_job(composed, progress=progress)


def run_options(
    data: PathLike,
    model: str,
    out: PathLike,
    *,
    backend: str | Backend = "transformers",
    subjects: str | Sequence[str] = (),
    types: str | Sequence[str] = (),
    few_shot: PathLike | None = None,
    backend_options: dict[str, Any] | None = None,
    resolve_model: bool = False,
    **options: Any,
) -> RunOptions:
    """The options of a run, composed once (:func:`run` and ``k12eval run`` answer with them).

    Keywords as :func:`run`'s. ``data`` and ``few_shot`` are a path, a benchmark's name or ``hf://org/name``,
    found on this machine (:func:`k12eval.banks.resolve_data`; an lm-eval subtask name such as
    ``ceval-valid_computer_network`` also chooses its subject when ``subjects`` is empty). ``resolve_model``:
    look ``model`` up as ``k12eval run`` does (an installed catalogue model's folder for a local backend,
    :func:`k12eval.models.backend_model`); off for a dry run, which loads no model.
    """
    from k12eval.banks import resolve_data
    from k12eval.models import backend_model
    from kg.errors import SettingError
    from runners.backends import check_backend_class
    from runners.options import RunOptions

    if not isinstance(backend, str) and (problem := check_backend_class(type(backend))) is not None:
        raise SettingError("backend", type(backend).__name__, problem)
    given = {"backend": backend} if isinstance(backend, str) else {"backend": backend.name, "backend_instance": backend}
    if resolve_model and isinstance(backend, str):
        given["model_path"] = backend_model(model, backend)
    bank = resolve_data(data)
    return RunOptions(
        data=bank.path,
        data_named=bank.record(),
        model=model,
        out=Path(out),
        subjects=_names(subjects) or ((bank.subject,) if bank.subject else ()),
        types=_names(types),
        few_shot=resolve_data(few_shot).path if few_shot is not None else None,
        backend_options=dict(backend_options or {}),
        **given,
        **options,
    )


def run_job(options: RunOptions, progress: Callable[[int, int, float], None] | None = None) -> RunSummary:
    """Answer with composed options (:func:`run_options`); ``progress(done, total, seconds)`` after each batch.

    With ``options.tracking``, the run is sent to W&B / MLflow once over (:mod:`k12eval.tracking`), also when
    it stops early: what it holds then is what ``summary.json`` says.
    """
    from k12eval.tracking import check_trackers, log_run
    from runners.run import run_questions
    from runners.summary import SUMMARY_FILE

    check_trackers(options.tracking)
    try:
        return run_questions(options, progress=progress)
    finally:
        if options.tracking and (Path(options.out) / SUMMARY_FILE).is_file():
            log_run(Path(options.out), options.tracking)


def score(
    run_dir: PathLike,
    *,
    metrics: Sequence[str] | None = None,
    models: dict[str, Any] | None = None,
    lang: str | None = None,
    detectors: bool = True,
    data: PathLike | None = None,
    select: str = "all",
    metric_models: dict[str, Any] | None = None,
    source_with_options: bool = False,
    combiner: str | None = None,
) -> list[ScoreRecord]:
    """Score the run's chains of thought (resumable, like ``k12eval score``); returns every chain's scores.

    ``select`` scores only a named selection of the questions (``reasoning-subset``, as ``--select``).

    ``models`` maps a role (``encoder``, ``nli``, ...) to a model name or an adapter object
    (``encode(texts) -> ndarray`` for an encoder); a role left out gets its default model.
    ``metric_models`` gives a metric (or the group ``reference``) its own model, as ``--model-for`` does;
    ``source_with_options`` scores against the stem and its options, as ``--source-with-options``;
    ``combiner`` is ``--combiner`` (the shipped one when not given, unless ``detectors`` is off; ``"none"``).
    """
    from reasoning_metrics.permetric import score_plan
    from reasoning_metrics.score_store import ScoreRecord

    done = score_job(
        run_dir,
        data=data,
        plan=score_plan(list(metrics) if metrics is not None else None, metric_models),
        models=models,
        lang=lang,
        detectors=detectors,
        select=select,
        source_with_options=source_with_options,
        combiner=combiner,
    )
    return [ScoreRecord.model_validate(line) for line in done.lines]


@dataclass
class ScoreJob:
    """What :func:`score_job` did: the score file and every line in it once the job is over."""

    out: Path
    todo: int
    """Chains that were not in ``out`` yet, scored now."""
    already: int
    """Chains already in ``out``, skipped."""
    no_output: int
    """Records without output (the backend failed), not scored."""
    lines: list[dict[str, Any]]
    """Every record of ``out`` after the job, as written."""
    stale: list[StaleWork] = field(default_factory=list)
    """Work files beside ``out`` left by stopped jobs with other settings (size, settings, the command that
    resumes one)."""


def score_job(
    run_dir: PathLike,
    *,
    out: PathLike | None = None,
    data: PathLike | None = None,
    plan: ScorePlan | None = None,
    models: dict[str, Any] | None = None,
    lang: str | None = None,
    detectors: bool = True,
    select: str = "all",
    source_with_options: bool = False,
    combiner: str | None = None,
    prm: Any = None,
    judge: Any = None,
    judge_max_tokens: int | None = None,
    batch_size: int = SCORE_BATCH_SIZE,
    chunk_size: int = 256,
    cache: Any = None,
    on_start: Callable[[int, int, int, Path], None] | None = None,
    on_scored: Callable[[int, int, Any], None] | None = None,
    budget_s: float | None = None,
) -> ScoreJob:
    """The one composition of a score job, for ``k12eval score``, :func:`score` and the demo.

    ``plan``: the metrics and each metric's own models (:func:`reasoning_metrics.permetric.score_plan`, which
    ``k12eval score`` and :func:`score` call once); ``None``: the CK12 paper's five with the roles' models.
    ``models``: a model name or adapter per role, wrapped here in the job's one
    :class:`~reasoning_metrics.slots.ModelSlots`; the other settings become its
    :class:`~reasoning_metrics.run_scoring.ScoreOptions`.
    Refuses a folder that is not a run (before the lock, which would create it), chooses the combiner
    (``combiner``: ``--combiner``; the shipped one unless ``detectors`` is off), holds the score file's lock
    (a second job on it is refused, not interleaved), scores the chains not yet in it and reads the file
    back. ``on_start(todo, already, no_output, out)`` is called once the job knows its size,
    ``on_scored(n, todo, record)`` after each chain; a caller prints progress there. ``budget_s``: seconds
    a long chain's model passes may take (``score --chain-budget``); ``None``: the guard's default,
    :data:`reasoning_metrics.guard.SCORE_BUDGET_S` (imported here lazily, so that ``--help`` loads no scoring).
    ``judge``: an LLM judge's backend (``score --judge-model``), asked for each chain's first wrong step,
    at most ``judge_max_tokens`` tokens each (default: the judge's own, 1024).
    """
    from k12eval.models import metric_model
    from kg.errors import InputError
    from reasoning_metrics.combine import choose_combiner, load_combiner
    from reasoning_metrics.guard import SCORE_BUDGET_S
    from reasoning_metrics.permetric import score_plan
    from reasoning_metrics.run_scoring import ScoreOptions, score_run
    from reasoning_metrics.score_store import SCORES_FILE, check_score_file, read_score_lines, score_path
    from reasoning_metrics.slots import ModelSlots
    from runners.files import lock_file
    from runners.out_folder import check_out_file
    from runners.records import HEADER_FILE, RECORDS_FILE

    run_dir = Path(run_dir)
    if not (run_dir / HEADER_FILE).is_file():
        raise InputError(f"{run_dir}: not a run folder (no {HEADER_FILE})")
    target = score_path(run_dir, None if out is None else Path(out))
    inputs = [run_dir / HEADER_FILE, run_dir / RECORDS_FILE, None if data is None else Path(data)]
    check_out_file(target, inputs, keep=(SCORES_FILE,))
    check_score_file(target)  # before its lock file is made beside it
    chosen = choose_combiner(combiner, detectors)
    options = ScoreOptions(
        data=Path(data) if data is not None else None,
        lang=lang,  # type: ignore[arg-type]
        batch_size=batch_size,
        chunk_size=chunk_size,
        select=select,
        source_with_options=source_with_options,
        detectors=detectors,
        budget_s=SCORE_BUDGET_S if budget_s is None else budget_s,
        combiner=None if chosen is None else (chosen, load_combiner(chosen)),
        prm=prm,
        judge=judge,
        judge_params=None if judge_max_tokens is None else _judge_params(judge_max_tokens),
    )
    slots = ModelSlots(metric_model, name_loaded=True, **(models or {}))  # the job's one set of models
    with lock_file(target):
        job = score_run(run_dir, plan if plan is not None else score_plan(), slots, options, out=target, cache=cache)
        if on_start is not None:
            on_start(job.todo, job.already, job.no_output, job.out)
        for n, record in enumerate(job.records, start=1):  # scored and appended as they are consumed
            if on_scored is not None:
                on_scored(n, job.todo, record)
        lines = [line for _, line in read_score_lines(job.out)]
    return ScoreJob(job.out, job.todo, job.already, job.no_output, lines, job.stale)


@dataclass
class ChainJob:
    """A chain file's scoring, ready to go (see :func:`chain_scoring`)."""

    todo: int
    """Chains to score: those of the file not yet in the output."""
    records: Iterator[Any]
    """Each chain's scores (:class:`~reasoning_metrics.records.ChainScores`), appended to the output as
    they are consumed when there is one."""


@contextlib.contextmanager
def chain_scoring(
    file: PathLike,
    *,
    out: PathLike | None = None,
    plan: ScorePlan | None = None,
    models: dict[str, Any] | None = None,
    lang: str | None = None,
    batch_size: int = SCORE_BATCH_SIZE,
    chunk_size: int = 256,
    cache: Any = None,
    progress: Callable[[int], Callable[[int], None]] | None = None,
) -> Iterator[ChainJob]:
    """Score the chains of a chain file (``k12eval score-chains``), resuming into ``out`` when given.

    With ``out`` the file's lock is held for the ``with`` block, its header must agree with these
    metrics and models, and chains already in it are skipped. ``plan`` and ``models`` as :func:`score_job`
    takes them. ``progress(todo)`` gives the callback that is told how many chains are done.
    """
    from k12eval.models import metric_model
    from reasoning_metrics.chainfile import read_chains
    from reasoning_metrics.permetric import score_plan
    from reasoning_metrics.score_store import append_scores, check_score_file, make_config, open_scores
    from reasoning_metrics.scoring import chain_language, iter_scores, load_models
    from reasoning_metrics.slots import ModelSlots
    from runners.files import lock_file
    from runners.out_folder import check_out_file

    if out is not None:  # before the models load, and before its lock file is made beside it
        check_out_file(Path(out), [Path(file)])
        check_score_file(Path(out))
    chains = read_chains(Path(file))
    plan = plan if plan is not None else score_plan()
    chosen = list(plan.metrics)
    language: Any = lang
    slots = ModelSlots(metric_model, name_loaded=True, **(models or {}))  # header, loading and scoring share it
    with contextlib.ExitStack() as held:
        config = None
        # Every chain's models, before the header, which states what the loaded ones apply; a model that
        # does not load stops here.
        load_models(chains, plan, slots, language)
        if out is not None:
            languages = {chain_language(c, language) for c in chains}
            config = make_config(chosen, slots, None, language, plan.assigned, languages)
            held.enter_context(lock_file(Path(out)))  # a second job on this file is refused, not interleaved
            done = open_scores(Path(out), config)
            chains = [c for c in chains if c.id not in done]
        scores: Iterator[Any] = iter_scores(
            chains,
            plan,
            slots,
            lang=language,
            batch_size=batch_size,
            chunk_size=chunk_size,
            cache=cache,
            progress=progress(len(chains)) if progress is not None else None,
        )
        if out is not None and config is not None:
            scores = append_scores(Path(out), scores, config)
        yield ChainJob(len(chains), scores)


def report(
    run_dirs: PathLike | Iterable[PathLike],
    out: PathLike,
    *,
    data: PathLike | None = None,
    **options: Any,
) -> ReportResult:
    """Write the report folder of the runs (``index.html``, tables, ``nodes.csv``...), like ``k12eval report``.

    Keywords are :func:`reports.write_report`'s (``title``, ``plots``, ``xlsx``, ``k``, ``select``...).
    """
    from reports import write_report

    return write_report(_paths(run_dirs), Path(out), Path(data) if data is not None else None, **options)


def load_runs(run_dirs: PathLike | Iterable[PathLike], *, data: PathLike | None = None) -> list[Run]:
    """The run folders, read: header, one record per question, step scores and the bank's questions.

    Warnings (a bank that moved, a run without answers) are raised as :class:`UserWarning`.
    """
    import warnings

    from reports.runs import load_runs as read_runs

    runs, notes = read_runs(_paths(run_dirs), Path(data) if data is not None else None)
    for note in notes:
        warnings.warn(note, UserWarning, stacklevel=2)
    return runs


def question_table(runs: Sequence[Run]) -> pd.DataFrame:
    """One row per run x answered question (the report's ``questions.csv``): coordinates, correctness, scores."""
    from reports.aggregate import question_frame
    from reports.runs import graph_of

    return question_frame(runs, graph_of(list(runs)))


def node_table(runs: Sequence[Run], k: int = 4) -> pd.DataFrame:
    """One row per run x slice x knowledge point (the report's ``nodes.csv``): accuracy with Wilson intervals."""
    from reports.aggregate import node_table as nodes
    from reports.aggregate import question_frame
    from reports.runs import graph_of

    graph = graph_of(list(runs))
    return nodes(question_frame(runs, graph), graph, k=k)


def _judge_params(max_tokens: int) -> Any:
    """The judge's greedy sampling with room for ``max_tokens`` tokens."""
    from dataclasses import replace

    from reasoning_metrics.verify.rules.judge import JUDGE_SAMPLING

    return replace(JUDGE_SAMPLING, max_tokens=max_tokens)


def _names(value: str | Sequence[str]) -> tuple[str, ...]:
    from k12eval._lists import comma_list

    return comma_list([value] if isinstance(value, str) else list(value))


def _paths(value: PathLike | Iterable[PathLike]) -> list[Path]:
    return [Path(value)] if isinstance(value, str | Path) else [Path(v) for v in value]
