"""Every score and detector the meta-evaluation compares, oriented so that higher means "more likely wrong".

One explicit name table (:data:`MEASURED`, each entry's model needs read from its record); the models are computed
once per run and shared (:class:`DetectionContext`). A detector that cannot run
(no encoder, no NLI model, no backend) is reported unavailable, never dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from pathlib import Path

from reasoning_metrics.cache import ArrayCache
from reasoning_metrics.combine.model import Combiner
from reasoning_metrics.guard import CHAIN_BUDGET_S, Outcome, checking
from reasoning_metrics.metaeval.combined import Predictions, predict, set_features, solution_language
from reasoning_metrics.metaeval.data import LabelledSolution
from reasoning_metrics.metric_table import METRICS
from reasoning_metrics.protocols import NLIModel, SentenceEncoder
from reasoning_metrics.reasons import reason
from reasoning_metrics.records import ChainScores, StepDetail
from reasoning_metrics.verify.aggregate_rule import assess_solutions, checks_of, step_score
from reasoning_metrics.verify.detector import Detector, Evidence, Reference
from reasoning_metrics.verify.flags import SolutionAssessment, StepFlag
from reasoning_metrics.verify.judge_log import judge_resumably
from reasoning_metrics.verify.registry import DETECTORS as REGISTRY
from reasoning_metrics.verify.rules.arithmetic import StepCheck
from reasoning_metrics.verify.rules.baseline import BASELINE_METRICS, needs_nli, roscoe_scores
from reasoning_metrics.verify.rules.contradiction import CONTRADICTION_THRESHOLD, step_contradictions
from reasoning_metrics.verify.rules.judge import judge_name
from reasoning_metrics.verify.rules.prm import PRM_THRESHOLD, StepRewardModel, first_below
from reasoning_metrics.verify.rules.rollouts import (
    ROLLOUT_K,
    RolloutResult,
    RolloutTask,
    first_dead_end,
    gold_question,
    rollout_shares,
)
from runners.backends.base import Backend, SamplingParams


class Unavailable(Exception):
    """The detector cannot run with what was given; its argument is the reason code
    (:mod:`reasoning_metrics.reasons`) that the report words."""


@dataclass
class DetectorResult:
    """A detector's scores for every solution of a run."""

    name: str
    family: str
    """``roscoe`` (baseline scores) or ``k12eval`` (our detectors)."""
    orientation: str
    """How the score was oriented: what "higher" means in its own terms."""
    solution_scores: list[float | None]
    step_scores: list[list[float | None]]
    native: Sequence[int | None] | None = None
    """The detector's own first-wrong-step predictions (-1 none, ``None`` no answer), if it makes them."""
    unavailable: str | None = None
    not_checked: dict[int, str] = field(default_factory=dict)
    """Solution index -> why the detector could not check it (an error, over the time budget): its
    scores are ``None`` (left out of AUROC) and it has no first-step prediction."""


@dataclass
class DetectionContext:
    """The solutions of one run and the models given; shared, lazily computed inputs of the detectors."""

    solutions: Sequence[LabelledSolution]
    encoder: SentenceEncoder | Mapping[str, SentenceEncoder] | None = None
    """One encoder, or one per language (``{"zh": ..., "en": ...}``)."""
    nli: NLIModel | None = None
    backend: Backend | None = None
    """The LLM judge's backend, if any."""
    judge_log: Path | None = None
    """JSONL of the judge's answers, read to resume and appended to (:mod:`~reasoning_metrics.verify.judge_log`)."""
    judge_params: SamplingParams | None = None
    judge_progress: Callable[[int], None] | None = None
    """Called with the number of solutions judged so far."""
    prm: StepRewardModel | None = None
    """A process reward model (:mod:`~reasoning_metrics.models.prm_model`), if any."""
    rollout_backend: Backend | None = None
    """The backend that samples the rollouts' continuations, if any."""
    rollout_k: int = ROLLOUT_K
    rollout_params: SamplingParams | None = None
    batch_size: int = 32
    cache: ArrayCache | Path | str | bool | None = False
    """Embedding cache of the ROSCOE scores, as ``score_chains`` takes it (``False``: none)."""
    budget_s: float | None = CHAIN_BUDGET_S
    """Seconds the CPU detectors may spend on one solution (:mod:`~reasoning_metrics.guard`)."""
    combiner: Combiner | None = None
    """A fitted combiner (``k12eval calibrate``) for the ``combiner`` detector, if any."""

    @cached_property
    def roscoe(self) -> list[ChainScores]:
        """The ROSCOE baseline, as ``k12eval score`` computes it (:func:`~reasoning_metrics.verify.rules.baseline.roscoe_scores`)."""
        if self.encoder is None:
            raise Unavailable(reason("needs", "encoder"))
        return roscoe_scores(self.solutions, self.encoder, self.nli, batch_size=self.batch_size, cache=self.cache)

    @cached_property
    def checks(self) -> list[Outcome[list[StepCheck]]]:
        """Each solution's arithmetic checks, or why it has none (one solution's failure stays its own): computed
        once, read by the detectors measured alone, the aggregate and the combiner's features."""
        return [checks_of(s, self.budget_s) for s in self.solutions]

    def per_solution(
        self, fn: Callable[[LabelledSolution, list[StepCheck]], list[float]]
    ) -> list[Outcome[list[float]]]:
        """``fn(solution, checks)`` for every solution, each under its own budget and never raising."""
        out: list[Outcome[list[float]]] = []
        for s, checked in zip(self.solutions, self.checks, strict=True):
            if checked.value is None:
                out.append(Outcome(None, checked.status, checked.reason))
                continue
            checks = checked.value
            out.append(checking(partial(fn, s, checks), self.budget_s))
        return out

    @cached_property
    def contradictions(self) -> list[list[float]]:
        if self.nli is None:
            raise Unavailable(reason("needs", "nli"))
        return step_contradictions([(s.problem, s.steps) for s in self.solutions], self.nli, self.batch_size)

    @cached_property
    def judged(self) -> list[int | None]:
        if self.backend is None:
            raise Unavailable(reason("needs", "judge"))
        verdicts = judge_resumably(
            self.solutions, self.backend, self.judge_log, params=self.judge_params, progress=self.judge_progress
        )
        return [v.first_error for v in verdicts]

    @cached_property
    def step_rewards(self) -> list[list[float] | None]:
        """The process reward model's P(correct) per step (``None``: a solution it could not score)."""
        if self.prm is None:
            raise Unavailable(reason("needs", "prm"))
        return self.prm.step_probabilities([(s.problem, s.steps) for s in self.solutions])

    @cached_property
    def rollouts(self) -> list[RolloutResult]:
        """Each solution's share of continuations reaching its gold answer, per step (:mod:`~reasoning_metrics.verify.rules.rollouts`)."""
        if self.rollout_backend is None:
            raise Unavailable(reason("needs", "rollouts"))
        return rollout_shares(
            rollout_tasks(self.solutions), self.rollout_backend, k=self.rollout_k, params=self.rollout_params
        )

    @cached_property
    def assessments(self) -> list[SolutionAssessment]:
        roscoe = self.roscoe if self.encoder is not None else None
        contradictions = self.contradictions if self.nli is not None else None
        judged = self.judged if self.backend is not None else None
        return assess_solutions(
            self.solutions,
            roscoe=roscoe,
            judged=judged,
            prm=self.step_rewards if self.prm is not None else None,
            rollouts=[r.shares for r in self.rollouts] if self.rollout_backend is not None else None,
            nli=None,
            contradictions=contradictions,
            references=[reference_of(s) for s in self.solutions],
            budget_s=self.budget_s,
            models=self.verdict_models,
            checks=self.checks,
        )

    @property
    def verdict_models(self) -> dict[str, str]:
        """Whose verdicts the model-made inputs are (the judge's backend and model, the PRM), named in their flags."""
        models = {"judged": judge_name(self.backend)} if self.backend is not None else {}
        if self.prm is not None:
            models["prm"] = self.prm.name
        return models


def rollout_tasks(solutions: Sequence[LabelledSolution]) -> list[RolloutTask]:
    """The rollouts' view of each solution: its gold answer (``meta["gold"]``, graded as ``meta["type"]``,
    fill-in by default, against ``meta["options"]``, ``[label, text]`` pairs) as a question, ``None``
    where it has none (ProcessBench gives none)."""
    tasks = []
    for s in solutions:
        gold = s.meta.get("gold")
        golds = [gold] if isinstance(gold, str) else gold if isinstance(gold, list) else []
        qtype = str(s.meta.get("type") or "fill_in_blank")
        options = [
            (str(o[0]), str(o[1])) for o in s.meta.get("options") or [] if isinstance(o, list | tuple) and len(o) == 2
        ]
        question = gold_question(s.id, s.problem, [str(g) for g in golds], qtype, options) if golds else None
        tasks.append(RolloutTask(s.problem, s.steps, question))
    return tasks


def _step_part(step: StepDetail, part: str) -> float | None:
    """A step's share of a ROSCOE score (its record's ``step_part``), oriented like the negated score (higher =
    more suspect).

    ``alignment``: minus the best similarity to a source sentence; ``repetition``: the largest
    similarity to an earlier step; ``source_contradiction`` / ``earlier_contradiction``: the largest
    P(contradiction) against a source sentence / an earlier step. A scored step with no earlier
    step gets 0; a step the models did not see (blank) gets ``None``.
    """
    if part == "alignment":
        return None if step.source_similarity is None else -step.source_similarity
    if part == "repetition":
        return step.repeat_similarity if step.repeat_similarity is not None else _zero_if(step.source_similarity)
    if part == "source_contradiction":
        return step.contradiction
    return step.earlier_contradiction if step.earlier_contradiction is not None else _zero_if(step.contradiction)


def _zero_if(seen: float | None) -> float | None:
    return None if seen is None else 0.0


def _roscoe(metric: str) -> Callable[[DetectionContext], DetectorResult]:
    """A ROSCOE score (higher = better) negated; its per-step part oriented the same way."""

    def run(ctx: DetectionContext) -> DetectorResult:
        if needs_nli(metric) and ctx.nli is None:
            raise Unavailable(reason("needs", "nli"))
        scored = ctx.roscoe
        solution = [None if (v := c.scores.get(metric)) is None else -v for c in scored]
        if all(v is None for v in solution):
            reasons = [c.unavailable[metric] for c in scored if metric in c.unavailable]
            raise Unavailable(reasons[0] if reasons else reason("not_computed", metric))
        part = METRICS[metric].step_part
        assert part is not None  # every baseline score has one (BASELINE_METRICS)
        steps = [[_step_part(step, part) for step in c.steps] for c in scored]
        return DetectorResult(metric, "roscoe", f"-{metric} (ROSCOE: higher is better)", solution, steps)

    return run


def _count(flags: list[StepFlag]) -> float:
    """How many flags a step has."""
    return float(len(flags))


def _heaviest(flags: list[StepFlag]) -> float:
    """The largest severity of a step's flags, 0 without any."""
    return max((f.severity for f in flags), default=0.0)


def _counts(
    name: str, orientation: str, measure: Callable[[list[StepFlag]], float]
) -> Callable[[DetectionContext], DetectorResult]:
    """The registered detector ``name`` alone: its step score is ``measure`` of its flags on the step,
    its solution score their sum; it predicts the first step with any.

    A solution it could not check (:attr:`DetectorResult.not_checked`) has no scores and no prediction.
    """
    detector = REGISTRY[name]

    def run(ctx: DetectionContext) -> DetectorResult:
        per_step = partial(_per_step, detector, measure)
        solution: list[float | None] = []
        steps: list[list[float | None]] = []
        native: list[int | None] = []
        not_checked: dict[int, str] = {}
        for k, (s, outcome) in enumerate(zip(ctx.solutions, ctx.per_solution(per_step), strict=True)):
            if outcome.value is None:
                not_checked[k] = outcome.reason
                solution.append(None)
                steps.append([None] * len(s.steps))
                native.append(None)
                continue
            found = outcome.value
            solution.append(float(sum(found)))
            steps.append(list(found))
            native.append(next((i for i, v in enumerate(found) if v > 0), -1))
        return DetectorResult(name, "k12eval", orientation, solution, steps, native, not_checked=not_checked)

    return run


def _per_step(
    detector: Detector, measure: Callable[[list[StepFlag]], float], s: LabelledSolution, checks: list[StepCheck]
) -> list[float]:
    evidence = Evidence(s.problem, s.steps, checks, reference=reference_of(s))
    if not evidence.has(detector.needs):
        return [0.0] * len(s.steps)
    return [measure(flags) for flags in detector.find(evidence).steps]


def reference_of(solution: LabelledSolution) -> Reference | None:
    """The gold answer, teacher's analysis and grade a labelled set carries (``ck12-labels`` does), else ``None``.

    Read from ``meta``: ``gold`` (a list or text), ``analysis`` and ``graded_correct``; a gold answer without an
    analysis is a reference too (the option verdicts need only the answer; 28 of the first Chinese file's
    159 development-half questions have no analysis).
    """
    analysis = solution.meta.get("analysis")
    analysis = analysis if isinstance(analysis, str) else ""
    gold = solution.meta.get("gold")
    answer = " ".join(str(g) for g in gold) if isinstance(gold, list) else str(gold or "")
    if not analysis.strip() and not answer.strip():
        return None
    correct = solution.meta.get("graded_correct")
    return Reference(answer, analysis, correct if isinstance(correct, bool) else None)


def _contradiction(ctx: DetectionContext) -> DetectorResult:
    steps = ctx.contradictions
    native = [next((i for i, p in enumerate(s) if p >= CONTRADICTION_THRESHOLD), -1) for s in steps]
    solution: list[float | None] = [max(s, default=0.0) for s in steps]
    step_scores: list[list[float | None]] = [list(s) for s in steps]
    return DetectorResult("contradiction", "k12eval", "max P(contradiction) of a step", solution, step_scores, native)


def _judge(ctx: DetectionContext) -> DetectorResult:
    """No verdict (a failed request, an unreadable answer) is no score: left out of AUROC, wrong in F1."""
    judged = ctx.judged
    solution: list[float | None] = [None if j is None else float(j >= 0) for j in judged]
    steps: list[list[float | None]] = [
        [None if j is None else float(i == j) for i in range(len(s.steps))]
        for s, j in zip(ctx.solutions, judged, strict=True)
    ]
    missing = sum(j is None for j in judged)
    orientation = (
        f"1 if the judge names a wrong step; {missing} of {len(judged)} without a verdict "
        "(left out of AUROC, counted wrong by ProcessBench F1)"
    )
    return DetectorResult("judge", "k12eval", orientation, solution, steps, list(judged))


def _prm(ctx: DetectionContext) -> DetectorResult:
    """Step score 1 - P(correct); solution score its largest; first wrong step the first below the threshold."""
    scored = ctx.step_rewards
    not_checked = {
        k: "the process reward model could not score it (too long)" for k, p in enumerate(scored) if p is None
    }
    solution: list[float | None] = [None if p is None else max((1 - x for x in p), default=0.0) for p in scored]
    steps: list[list[float | None]] = [
        [None] * len(s.steps) if p is None else [1 - x for x in p] for s, p in zip(ctx.solutions, scored, strict=True)
    ]
    native: list[int | None] = [None if p is None else first_below(p) for p in scored]
    orientation = f"1 - P(correct) of the process reward model; first wrong step: the first below {PRM_THRESHOLD}"
    return DetectorResult("prm", "k12eval", orientation, solution, steps, native, not_checked=not_checked)


def _rollouts(ctx: DetectionContext) -> DetectorResult:
    """Step score 1 - share reaching the gold answer; first wrong step the first with share 0."""
    results = ctx.rollouts
    not_checked = {k: r.reason or "not rolled out" for k, r in enumerate(results) if r.shares is None}
    solution: list[float | None] = []
    steps: list[list[float | None]] = []
    native: list[int | None] = []
    for s, r in zip(ctx.solutions, results, strict=True):
        if r.shares is None:
            solution.append(None)
            steps.append([None] * len(s.steps))
            native.append(None)
            continue
        step = [None if x is None else 1 - x for x in r.shares]
        steps.append(step)
        solution.append(max((x for x in step if x is not None), default=None))
        native.append(first_dead_end(r.shares))
    orientation = "1 - share of continuations reaching the gold answer; first wrong step: the first with share 0"
    return DetectorResult("rollouts", "k12eval", orientation, solution, steps, native, not_checked=not_checked)


def _aggregate(ctx: DetectionContext) -> DetectorResult:
    """A solution the aggregate did not check (``status`` error or too long) has no scores and no prediction."""
    assessments = ctx.assessments
    not_checked = {k: a.flags[0].message for k, a in enumerate(assessments) if a.status != "checked"}
    solution: list[float | None] = [None if k in not_checked else a.score for k, a in enumerate(assessments)]
    steps: list[list[float | None]] = [
        [None if k in not_checked else step_score(s) for s in a.steps] for k, a in enumerate(assessments)
    ]
    native: list[int | None] = [None if k in not_checked else a.first_suspect for k, a in enumerate(assessments)]
    orientation = "combined flag severity (docs/detectors.md)"
    return DetectorResult("aggregate", "k12eval", orientation, solution, steps, native, not_checked=not_checked)


def _aggregate_flags(ctx: DetectionContext) -> DetectorResult:
    """The aggregate without its fallback rule: a first suspect only where a step is flagged.

    Same scores as ``aggregate``; set beside it, it shows what the fallback adds and costs.
    """
    result = _aggregate(ctx)
    native = [
        None if k in result.not_checked else a.first_suspect if a.suspect_rule == "flag" else -1
        for k, a in enumerate(ctx.assessments)
    ]
    orientation = "combined flag severity, first suspect only where a step is flagged (no fallback)"
    return DetectorResult(
        "aggregate_flags",
        "k12eval",
        orientation,
        result.solution_scores,
        result.step_scores,
        native,
        not_checked=result.not_checked,
    )


def _aggregate_cv(ctx: DetectionContext) -> DetectorResult:
    """The aggregate's scores with the baselines' treatment: a step threshold fitted by cross-validation.

    Same solution and step scores as ``aggregate``; only the first-wrong-step rule differs (no fixed
    :data:`~reasoning_metrics.verify.aggregate_rule.FLAG_THRESHOLD`), so the two compare the rule itself.
    """
    result = _aggregate(ctx)
    orientation = "combined flag severity, step threshold fitted by cross-validation"
    return DetectorResult(
        "aggregate_cv",
        "k12eval",
        orientation,
        result.solution_scores,
        result.step_scores,
        not_checked=result.not_checked,
    )


def _combiner(ctx: DetectionContext) -> DetectorResult:
    """The learned combination (:mod:`reasoning_metrics.combine`) of every detector's findings."""
    combiner = ctx.combiner
    if combiner is None:
        raise Unavailable(reason("needs_combiner"))
    if combiner.uses_roscoe and ctx.encoder is None:
        raise Unavailable(reason("combiner_needs_encoder"))
    roscoe = ctx.roscoe if combiner.uses_roscoe else None
    rows = set_features(ctx.solutions, ctx.assessments, ctx.checks, roscoe)
    p = predict(combiner, ctx.assessments, rows, [solution_language(s) for s in ctx.solutions])
    parts = [_fitted(own, lang) for lang, own in [("", combiner), *combiner.languages.items()]]
    return combiner_result("combiner", f"largest step P(first wrong step), learned ({' | '.join(parts)})", p)


def _fitted(combiner: Combiner, language: str) -> str:
    """A combiner's threshold and training sets, as the report's orientation line names them."""
    fitted_on = ", ".join(f"{t.get('name', '?')} {t.get('half', '')}".strip() for t in combiner.training)
    head = f"{language} solutions: " if language else ""
    return f"{head}threshold {combiner.threshold:.3f}" + (
        f"; fitted on {fitted_on}: not held out there" if fitted_on else ""
    )


def combiner_result(name: str, orientation: str, p: Predictions) -> DetectorResult:
    """A fitted combiner's predictions as the result of a detector named ``name``."""
    return DetectorResult(
        name, "k12eval", orientation, p.solution_scores, p.step_scores, p.first_suspects, not_checked=p.not_checked
    )


_MEASURES: dict[str, Callable[[list[StepFlag]], float]] = {"count": _count, "heaviest": _heaviest}


@dataclass(frozen=True)
class Measured:
    """One score or detector meta-eval measures: how it runs on a context, and the model roles it needs."""

    run: Callable[[DetectionContext], DetectorResult]
    needs: frozenset[str]
    """The model roles it reads (``encoder``, ``nli``, ``judge``, ``prm``, ``rollouts``), from its record: a
    detector's :attr:`~reasoning_metrics.verify.detector.Detector.roles`, a ROSCOE score's metric's models."""
    family: str = "k12eval"
    """``roscoe`` (baseline scores) or ``k12eval`` (our detectors)."""


def _counted(detector: Detector) -> Measured:
    """A registered detector that declares an ``orientation``, scored alone by its flags (``step_measure``)."""
    assert detector.orientation is not None
    run = _counts(detector.name, detector.orientation, _MEASURES[detector.step_measure])
    return Measured(run, detector.roles)


_OWN_SCORES: dict[str, Callable[[DetectionContext], DetectorResult]] = {
    "contradiction": _contradiction,
    "judge": _judge,
    "prm": _prm,
    "rollouts": _rollouts,
}
"""The registered detectors measured by their own score rather than by counting their flags."""
_EVERYTHING = frozenset({role for d in REGISTRY.values() for role in d.optional_roles}) | {
    role for metric in BASELINE_METRICS for role in METRICS[metric].models
}
"""Every model the aggregate can read: what a registered detector or the ROSCOE baseline reads when given."""

MEASURED: dict[str, Measured] = {
    **{
        f"roscoe.{metric}": Measured(_roscoe(metric), frozenset({"encoder", *METRICS[metric].models}), "roscoe")
        for metric in BASELINE_METRICS
    },
    **{name: _counted(detector) for name, detector in REGISTRY.items() if detector.orientation},
    **{name: Measured(run, REGISTRY[name].roles) for name, run in _OWN_SCORES.items()},
    "aggregate": Measured(_aggregate, _EVERYTHING),
    "aggregate_flags": Measured(_aggregate_flags, _EVERYTHING),
    "aggregate_cv": Measured(_aggregate_cv, _EVERYTHING),
    "combiner": Measured(_combiner, frozenset()),  # its models are its own (``Combiner.uses_roscoe``)
}
"""What meta-eval measures, by name, with the models each needs, read from the records: ``roscoe.<name>`` are
the baseline scores (:data:`~reasoning_metrics.verify.rules.baseline.BASELINE_METRICS`), named as
``k12eval score`` names them; then the registered detectors (:data:`~reasoning_metrics.verify.registry.DETECTORS`),
in the registry's order; then the aggregate's variants and the learned combiner."""


def needed_models(names: Sequence[str]) -> frozenset[str]:
    """The model roles the measured scores and detectors ``names`` need (:attr:`Measured.needs`)."""
    return frozenset().union(*(MEASURED[name].needs for name in names if name in MEASURED))


def run_detectors(ctx: DetectionContext, names: Sequence[str] | None = None) -> list[DetectorResult]:
    """Run the named detectors (all by default) on ``ctx``; unavailable ones come back marked so."""
    results = []
    default = [n for n in MEASURED if n != "combiner" or ctx.combiner is not None]
    for name in names or default:
        if name not in MEASURED:
            raise KeyError(name)
        try:
            result = MEASURED[name].run(ctx)
            result.name = name
        except Unavailable as exc:
            n = len(ctx.solutions)
            result = DetectorResult(name, MEASURED[name].family, "", [None] * n, [[] for _ in range(n)], None, str(exc))
        results.append(result)
    return results
