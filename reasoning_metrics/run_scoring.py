"""Score the chains of thought of a run (``runners.records`` format) against its question bank.

The source of each chain is the question's stem (and its options with
``with_options``: a choice question's options are candidates, not facts the steps
should rest on, and the paper's source-based scores leave them out), the reference its
teacher's analysis (CK12 paragraphs as steps), both reloaded from the bank named
in ``run.json`` as the run worded them (:func:`runners.bank.run_bank`: a generated
variant is made again with the run's seed). Scores go to
``RUN_DIR/scores.jsonl``, one :class:`ScoreRecord` per question, resumably. Each
record also carries what the wrong-step detectors found (:mod:`reasoning_metrics.verify`):
per-step flags and the first suspect step, unless they are turned off.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from itertools import islice
from pathlib import Path
from typing import Any, Literal

from kg.errors import InputError, Namer, Problem, SettingError
from kg.records import Question
from reasoning_metrics.cache import ArrayCache
from reasoning_metrics.combine.apply import combine_one, fingerprint
from reasoning_metrics.combine.model import Combiner
from reasoning_metrics.guard import SCORE_BUDGET_S, Outcome
from reasoning_metrics.permetric import ScorePlan
from reasoning_metrics.reasons import reason
from reasoning_metrics.records import Chain, ChainScores
from reasoning_metrics.score_store import SCORES_FILE as SCORES_FILE
from reasoning_metrics.score_store import (
    ScoreConfig,
    append_scores,
    judge_log_path,
    make_config,
    open_scores,
)
from reasoning_metrics.score_store import ScoreRecord as ScoreRecord
from reasoning_metrics.scoring import chain_language, iter_scores, load_models, open_cache
from reasoning_metrics.slots import ModelSlots
from reasoning_metrics.verify.aggregate_rule import checks_of
from reasoning_metrics.verify.detector import Reference
from reasoning_metrics.verify.flags import SolutionAssessment
from reasoning_metrics.verify.rules.arithmetic import StepCheck
from reasoning_metrics.verify.rules.judge import judge_name
from reasoning_metrics.verify.rules.prm import StepRewardModel
from reasoning_metrics.verify.scored import DETECTORS, assess_scored, roscoe_detail, scored_solutions
from reasoning_metrics.work_files import StaleWork, remove_work, stale_work, work_cache_path, write_note
from runners.backends.base import Backend, SamplingParams
from runners.bank import run_bank
from runners.records import HEADER_FILE, MODE_INFO, RECORDS_FILE, RunHeader, RunRecord
from runners.selection import select as select_questions
from runners.store import RunStore

COT_MODES = tuple(m.name for m in MODE_INFO.values() if m.cot)


@dataclass
class RunChains:
    """What a run gives to score."""

    header: RunHeader
    chains: list[tuple[RunRecord, Chain]]
    no_output: int
    """Records without output (the backend failed), not scored."""
    stems: dict[str, str]
    """Question id -> the stem alone (a choice question's options are candidates, not facts)."""
    problems: dict[str, str]
    """Question id -> the question as the model saw it, options included (the detectors' givens)."""
    references: dict[str, Reference]
    """Question id -> its gold answer, teacher's analysis and the record's grading, where the bank has
    an analysis (what the ``reference`` detector compares with)."""


@dataclass
class RunScoring:
    """A scoring job on a run, ready to go."""

    out: Path
    records: Iterator[ScoreRecord]
    """The new records, scored and appended to ``out`` as they are consumed."""
    todo: int
    already: int
    """Chains already in ``out``, skipped."""
    no_output: int
    """Records without output, not scored."""
    stale: list[StaleWork] = field(default_factory=list)
    """Work files beside ``out`` that stopped jobs with other settings left (:func:`~.work_files.stale_work`)."""


def read_run(run_dir: Path) -> tuple[RunHeader, list[RunRecord]]:
    """The header and records of a run, one per question id (the last written, as every reader sees it).

    Bad input raises :class:`InputError` naming file, line and field.
    """
    header, numbered = _read_numbered(run_dir)
    return header, [record for _, record in numbered]


def _read_numbered(run_dir: Path) -> tuple[RunHeader, list[tuple[int, RunRecord]]]:
    store = RunStore(run_dir)  # the run folder's one reader: its torn-line rule, one record per id
    return store.read_header(), store.numbered_records()


def run_chains(
    run_dir: Path,
    data: Path | None = None,
    lang: Literal["zh", "en"] | None = None,
    select: str = "all",
    *,
    with_options: bool = False,
) -> RunChains:
    """Pair every answered CoT record of the run with its question's source and reference.

    ``select`` names a selection of :mod:`runners.selection` (``reasoning-subset``): the records
    of other questions are left out. The source is the stem alone, or the stem and one line per
    option with ``with_options``.
    """
    header, records = _read_numbered(run_dir)
    if header.mode not in COT_MODES:
        raise InputError(
            f"{run_dir / HEADER_FILE}, field 'mode': {header.mode!r} runs have no chains of thought; "
            f"score a {' or '.join(COT_MODES)} run"
        )
    bank = run_bank(run_dir, header, data)
    path, questions = bank.path, bank.questions
    chosen = {q.id for q in select_questions(questions.values(), select)}
    chains: list[tuple[RunRecord, Chain]] = []
    stems: dict[str, str] = {}
    problems: dict[str, str] = {}
    references: dict[str, Reference] = {}
    no_output = 0
    for number, record in records:
        question = questions.get(record.question_id)
        if question is None:
            raise InputError.from_worded_problem(
                _not_in_bank(Problem(run_dir / RECORDS_FILE, number, "question_id", "", record.question_id), path)
            )
        if record.question_id not in chosen:
            continue
        hypothesis = record_chain(record)
        if not hypothesis:
            no_output += 1
            continue
        problem = question_source(question)
        # A judgment with an empty stem is asked by its statements: they are its source (#26 item 2).
        source = problem if with_options or not question.stem.strip() else question.stem
        chain = Chain(record.question_id, source, hypothesis, question.analysis or None, lang)
        chains.append((record, chain))
        stems[chain.id] = question.stem
        problems[chain.id] = problem
        answer = " ".join(str(a) for a in question.answer)
        if question.analysis.strip() or answer.strip():  # the option verdicts need only the gold answer
            references[chain.id] = Reference(answer, question.analysis, record.correct)
    return RunChains(header, chains, no_output, stems, problems, references)


def _not_in_bank(where: Problem, bank: Path) -> Callable[[Namer], Problem]:
    """``where`` saying its question is not in ``bank``, naming the setting that passes the run's bank."""
    return lambda name: replace(
        where, message=f"not in the question bank {bank} (pass the bank the run used with {name('data')})"
    )


def record_chain(record: RunRecord) -> str:
    """The chain of thought of a run record: its ``reasoning`` (a reasoning model's separate
    chain, e.g. ``reasoning_content``) followed by its ``output``, or the output alone.

    Both, rather than the reasoning alone: a reasoning model's visible answer often states the
    final step or the answer itself, which the steps and the final-answer check need; when it
    holds no more than that, it is one last short step. Empty when there is neither.
    """
    parts = [text.strip() for text in (record.reasoning, record.output) if text and text.strip()]
    return "\n\n".join(parts)


def question_source(question: Question) -> str:
    """The question with its options: the stem, then one line per option (the stem alone where it already
    lists them, as GAOKAO-Bench's do; its own prompts show them once, though a run with another template set
    shows them again below the stem)."""
    if question.extra.get("options_in_stem"):
        return question.stem.strip()
    lines = [question.stem] + [f"{o.label}. {o.text}" for o in question.options]
    return "\n".join(line for line in lines if line.strip())


@dataclass(frozen=True)
class ScoreOptions:
    """How :func:`score_run` scores a run, beside its plan and its models: composed once, with them, by
    :func:`k12eval.api.score_job`."""

    data: Path | None = None
    """The question bank, when not the one named in ``run.json``."""
    lang: Literal["zh", "en"] | None = None
    """Every chain's language; ``None``: each chain's own."""
    batch_size: int = 32
    """Texts or NLI pairs handed to a model per call."""
    chunk_size: int = 256
    """Chains scored (and held in memory) at a time."""
    select: str = "all"
    """Score only the chains of a named selection (``reasoning-subset``, CK12 Table 2's set)."""
    source_with_options: bool = False
    """The source-based scores read the options too, not the stem alone (the header records which, so a file is
    never resumed with the other source)."""
    detectors: bool = True
    """Every record also gets the wrong-step detectors' flags and first suspect step."""
    budget_s: float | None = SCORE_BUDGET_S
    """Seconds a long chain's model passes may take (:func:`~reasoning_metrics.scoring.iter_scores`)."""
    combiner: tuple[str, Combiner] | None = None
    """A fitted combiner and its name (:mod:`reasoning_metrics.combine`): its verdict on each record the detectors
    checked, with the record's grade as the grade feature."""
    prm: StepRewardModel | None = None
    """A process reward model (:mod:`~reasoning_metrics.models.prm_model`): the ``prm`` detector runs too, and the
    score header names it and the model."""
    judge: Backend | None = None
    """An LLM judge's backend: the ``judge`` detector runs too, named with its model in the header and in each of
    its flags."""
    judge_params: SamplingParams | None = None
    """The judge's sampling; ``None``: its own."""

    def __post_init__(self) -> None:
        if self.combiner is not None and not self.detectors:
            raise SettingError(
                "detectors", None, "a combiner reads the detectors' findings: it cannot run without them"
            )


def score_run(
    run_dir: Path,
    plan: ScorePlan,
    slots: ModelSlots,
    options: ScoreOptions,
    *,
    out: Path | None = None,
    cache: Any = None,
    progress: Callable[[int], None] | None = None,
) -> RunScoring:
    """Score a run's chains not yet in ``out`` (``RUN_DIR/scores.jsonl``), appending each as it comes.

    ``plan`` (the metrics and each metric's own models), ``slots`` (the job's models) and ``options`` are composed
    once by the job's composer (:func:`k12eval.api.score_job`); the header records each metric's models. With
    ``options.detectors`` every record also gets the wrong-step detectors' flags and first suspect step. Their
    contradiction check uses the NLI model the metrics load, or the one ``slots`` were given when no metric needs
    one; without either it is reported unavailable. Nothing is scored until ``RunScoring.records`` is consumed.
    ``cache``: as :func:`~reasoning_metrics.scoring.open_cache` takes it; ``progress``: told the chains scored.
    """
    out = out or run_dir / SCORES_FILE
    detectors = options.detectors
    chosen = list(plan.metrics)
    thresholds = None  # each language's encoder's own (reasoning_metrics.step_thresholds)
    extra_roles = ("nli",) if detectors and slots.gives("nli") else ()
    run = run_chains(run_dir, options.data, options.lang, options.select, with_options=options.source_with_options)
    # Loaded for every chain of the run, before the header: it states the thresholds and scale of the
    # models that were loaded (by their own names), which are what flag and rescale the records.
    chains = [c for _, c in run.chains]
    loaded = load_models(chains, plan, slots, options.lang, extra_roles)
    languages = {chain_language(c, options.lang) for c in chains}
    config = make_config(chosen, slots, thresholds, options.lang, plan.assigned, languages)
    config = _with_extras(
        _config(config, slots, detectors, extra_roles),
        options.source_with_options,
        options.combiner,
        options.prm if detectors else None,
    )
    judge = options.judge if detectors else None
    if judge is not None:
        models = {**config.models, "judge": dict.fromkeys(("en", "zh"), judge_name(judge))}
        config = config.model_copy(update={"detectors": [*config.detectors, "judge"], "models": models})
    done = open_scores(out, config)
    judge_log = judge_log_path(out, judge_name(judge), repr(options.judge_params)) if judge is not None else None
    todo = [(r, c) for r, c in run.chains if c.id not in done]
    by_id = {c.id: r for r, c in todo}
    problems = {c.id: run.problems[c.id] for _, c in todo}
    nli = _detector_nli(loaded)

    work = work_cache_path(out, config.model_dump_json())
    stale = stale_work(out, work)  # under the score file's lock, which every job writing one beside it holds

    def records() -> Iterator[ScoreRecord]:
        # Without the shared cache (--no-cache) the job keeps its model outputs in a work file of its own until
        # its last record is written: a job stopped inside a chunk (whose records all come at its end) resumes
        # what it had computed, as it would from the shared cache, and never again does the same work.
        store = open_cache(cache)
        if store is None:
            write_note(
                work, config.model_dump(mode="json", include={"metrics", "models"})
            )  # so that a job with other settings can name it
            store = ArrayCache(work, work=True)
        try:
            scores = iter_scores(
                [c for _, c in todo],
                plan,
                slots,
                lang=options.lang,
                batch_size=options.batch_size,
                chunk_size=options.chunk_size,
                cache=store if store is not None else False,
                thresholds=thresholds,
                progress=progress,
                budget_s=options.budget_s,
            )
            while chunk := list(islice(scores, options.chunk_size)):
                # once per chain: the aggregate and the combiner read the same checks
                checks = [checks_of(s) for s in scored_solutions(chunk, problems)] if detectors else None
                found: Sequence[SolutionAssessment | None] = (
                    assess_scored(
                        chunk,
                        problems,
                        nli,
                        premises=run.stems,
                        references=run.references,
                        batch_size=options.batch_size,
                        cache=store,
                        prm=options.prm,
                        judge=judge,
                        judge_params=options.judge_params,
                        checks=checks,
                        judge_log=judge_log,
                    )
                    if detectors
                    else [None] * len(chunk)
                )
                for k, (s, assessment) in enumerate(zip(chunk, found, strict=True)):
                    checked = checks[k] if checks is not None else None
                    yield _score_record(s, by_id[s.id], assessment, run, options.combiner, checked)
        finally:
            if store is not None and store is not cache:
                store.close()
        remove_work(work)  # every record is written: nothing is left to resume

    written: Iterator[Any] = append_scores(out, records(), config)
    return RunScoring(out, written, len(todo), len(run.chains) - len(todo), run.no_output, stale)


def _with_extras(
    config: ScoreConfig, with_options: bool, combiner: tuple[str, Combiner] | None, prm: StepRewardModel | None
) -> ScoreConfig:
    """The header with the chains' source, the combiner's fingerprint and the process reward model."""
    config = config.model_copy(update={"source": "stem+options" if with_options else "stem"})
    if combiner is not None:
        config = config.model_copy(update={"combiner": fingerprint(*combiner)})
    if prm is not None:
        models = {**config.models, "prm": dict.fromkeys(("en", "zh"), prm.name)}
        config = config.model_copy(update={"detectors": [*config.detectors, "prm"], "models": models})
    return config


def _score_record(
    scores: ChainScores,
    record: RunRecord,
    assessment: SolutionAssessment | None,
    run: RunChains,
    combiner: tuple[str, Combiner] | None,
    checks: Outcome[list[StepCheck]] | None = None,
) -> ScoreRecord:
    """One chain's record: its scores, the run record's coordinates, the detectors' and the combiner's verdicts
    (``checks``: the arithmetic checks the detectors read, which the combiner reads too)."""
    combined = None
    if combiner is not None and assessment is not None and checks is not None and checks.value is not None:
        reference = run.references.get(scores.id)
        combined = combine_one(
            combiner[1],
            [step.text for step in scores.steps],
            assessment,
            roscoe_detail(scores),
            record.correct,
            source=run.problems[scores.id],
            analysis=reference.analysis if reference is not None else None,
            checks=checks.value,
        )
    checked = assessment is not None and assessment.status == "checked"
    return ScoreRecord(
        **scores.model_dump(),
        question_id=record.question_id,
        nodes=record.nodes,
        first_suspect=assessment.first_suspect if checked and assessment is not None else None,
        assessment=assessment,
        combined=combined,
    )


def _config(config: ScoreConfig, slots: ModelSlots, detectors: bool, extra_roles: tuple[str, ...]) -> ScoreConfig:
    """The score header with the detectors and the model they load beyond the metrics' ones."""
    if not detectors:
        return config
    models = dict(config.models)
    for role in extra_roles:
        models.setdefault(role, {lg: slots.asked(role, lg) for lg in ("en", "zh")})
    return config.model_copy(update={"detectors": list(DETECTORS), "models": models})


def _detector_nli(loaded: dict[str, Any]) -> dict[str, Any]:
    """Language -> the NLI model the detectors use, or why there is none."""
    if "nli" not in loaded:
        return {lg: reason("nli_not_needed") for lg in ("en", "zh")}
    return {lg: reason("no_model", "nli", lg) if m == "none" else m for lg, m in loaded["nli"].items()}
