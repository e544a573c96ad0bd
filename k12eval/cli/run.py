"""``k12eval run`` and ``k12eval merge``: answer a question bank with a model, resumably."""

from __future__ import annotations

import signal
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from k12eval.cli._common import BACKEND_HELP, BackendHelp, comma_list, guarded, log_to_stderr, parse_pairs
from k12eval.cli._config import load_config
from kg.errors import InputError

if TYPE_CHECKING:
    from runners.options import RunOptions
    from runners.run import Progress as ProgressFn
    from runners.run import RunSummary
    from runners.summary import FailureLimit


def _load_config(ctx: typer.Context, _param: Any, value: Path | None) -> Path | None:
    """Options from a TOML file become the defaults; options on the command line still win."""
    if value is None:
        return None
    try:
        defaults = load_config(value, run, "run")
    except InputError as exc:  # raised while parsing, before @guarded is in charge
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    ctx.default_map = {**(ctx.default_map or {}), **defaults}
    return value


def run(
    data: Annotated[Path, typer.Argument(help="Question bank (file or folder; any format `kg stats` reads).")],
    model: Annotated[str, typer.Option("--model", "-m", help="Hub id, local path or name from `k12eval models list`.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Run folder; the same command resumes it.")],
    backend: Annotated[str, typer.Option("--backend", "-b", help=f"{BACKEND_HELP}.")] = "transformers",
    mode: Annotated[str, typer.Option(help="zero-shot, few-shot, zero-shot-cot or few-shot-cot.")] = "zero-shot",
    variant: Annotated[
        str, typer.Option(help="original, shuffled, distractors (CK12's released files when present) or options-N.")
    ] = "original",
    strategy: Annotated[
        str | None,
        typer.Option(
            help="generate, next-token, rank-options, perplexity (CMMLU's: the lowest perplexity of the prompt "
            "followed by the option) or instruct-rank (Xiezhi's API models: asked in words to rank every option). "
            "Default: the benchmark's protocol outside CoT modes: for a local model (transformers, vllm) "
            "next-token for CMMLU and C-Eval, rank-options for Xiezhi; for the openai backend instruct-rank for "
            "Xiezhi; generate otherwise."
        ),
    ] = None,
    lang: Annotated[
        str,
        typer.Option(
            help="Prompt language: zh, en, or auto (each benchmark's protocol: Chinese for CK12, CMMLU and C-Eval; otherwise the stem's language)."
        ),
    ] = "auto",
    fmt: Annotated[
        str | None, typer.Option("--format", "-f", help="Question-bank format; detected if omitted.")
    ] = None,
    mapping: Annotated[Path | None, typer.Option(help="Mapping file for your own JSONL/CSV.")] = None,
    subjects: Annotated[
        list[str] | None, typer.Option("--subjects", "-s", help="Only these subjects (repeat, or a comma list).")
    ] = None,
    types: Annotated[
        list[str] | None, typer.Option("--types", "-t", help="Only these question types (repeat, or a comma list).")
    ] = None,
    limit: Annotated[int | None, typer.Option(help="At most N questions (after filters).")] = None,
    select: Annotated[
        str,
        typer.Option(
            "--select",
            help="A named selection of the bank: all, or reasoning-subset (CK12 Table 2: math questions whose "
            "analysis has more than two steps). Part of the run's identity.",
        ),
    ] = "all",
    seed: Annotated[
        int | None,
        typer.Option(
            help="Seed for variants, exemplar choice and sampling. Default: the benchmark's own "
            "(42 for Xiezhi, 0 otherwise); run.json records the one used."
        ),
    ] = None,
    shard: Annotated[
        str | None, typer.Option(help="Run shard i/n of the questions (merge with `k12eval merge`).")
    ] = None,
    few_shot: Annotated[
        Path | None, typer.Option("--few-shot", help="Exemplar bank for few-shot modes (a dev split).")
    ] = None,
    shots: Annotated[
        int | None,
        typer.Option(
            help="Exemplars per prompt. Default: the benchmark's protocol (5; Xiezhi 3). Over the budget CK12's "
            "templates fall back to 3, then 1; CMMLU's and Xiezhi's drop the longest."
        ),
    ] = None,
    token_budget: Annotated[
        int | None,
        typer.Option(
            help="Prompt budget in the model's tokens for few-shot. Default: the template set's (ck12 1,024; "
            "cmmlu 2,048, as CMMLU's released code); run.json records the one used."
        ),
    ] = None,
    template_set: Annotated[
        str | None,
        typer.Option(
            "--templates",
            help="Prompt template set: ck12, cmmlu, ceval, xiezhi, or a TOML file. Default: the bank's own (ck12 for CK12 "
            "and your own banks, cmmlu for CMMLU, ceval for C-Eval, xiezhi for Xiezhi); run.json's protocol says which "
            "protocol the run followed and what you overrode.",
        ),
    ] = None,
    chat: Annotated[
        bool | None, typer.Option("--chat/--base", help="Treat the model as a chat or base model; detected if omitted.")
    ] = None,
    temperature: Annotated[float | None, typer.Option(help="Default: 0 for chat models, 0.8 for base models.")] = None,
    top_p: Annotated[float | None, typer.Option(help="Default: 1 for chat models, 0.95 for base models.")] = None,
    max_tokens: Annotated[
        int | None, typer.Option(help="Generated tokens per answer (default 512, 1024 for CoT).")
    ] = None,
    samples: Annotated[int, typer.Option("--samples", "-n", help="Samples per question.")] = 1,
    batch_size: Annotated[
        str,
        typer.Option(
            help="Questions per backend call and per checkpoint, also the generation batch of a local model "
            "(unless -B batch_size= sets it). auto: on a GPU the largest batch that fits in memory; on a CPU 1 "
            "(an interrupted run loses at most the answer in flight); 16 for a server. run.json records it."
        ),
    ] = "auto",
    retry_failed: Annotated[
        bool,
        typer.Option(
            "--retry-failed",
            help="Ask again the questions whose requests failed; their failed records stay as history.",
        ),
    ] = False,
    skip_invalid: Annotated[
        bool,
        typer.Option(
            "--skip-invalid",
            help="Leave out the bank's invalid questions, naming each (file, line, field) on stderr and in run.json, "
            "instead of stopping; score and report skip them too.",
        ),
    ] = False,
    backend_option: Annotated[
        list[str] | None,
        typer.Option("--backend-option", "-B", help="KEY=VALUE passed to the backend (e.g. base_url=..., dtype=...)."),
    ] = None,
    max_failures: Annotated[
        str,
        typer.Option(
            "--max-failures",
            help="Failed questions the run may hold and still exit 0: a count (3) or a share (5%). "
            "Over it, the command exits 1.",
        ),
    ] = "0",
    as_json: Annotated[
        bool, typer.Option("--json", help="Print summary.json to stdout (and nothing else there).")
    ] = False,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Print the exact prompts of the first --limit questions (default 3) as the backend would receive "
            "them, then stop: no model is loaded and --out is not written.",
        ),
    ] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Log more (each request's retry, debug lines).")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress; only warnings and errors.")] = False,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="TOML file with any of these options (a \\[run] table or top-level keys; paths relative to the file).",
            callback=_load_config,
            is_eager=True,
        ),
    ] = None,
) -> None:
    """Answer every selected question with a model and write one record per question to --out.

    Progress goes to stderr: a bar on a terminal, else plain lines (one as each batch starts and
    ends). The run's numbers go to --out/summary.json, and to stdout. Exit status: 0 when done,
    1 when more questions failed than --max-failures allows (the last line says how many), 2 on
    bad input, 130 on Ctrl-C and 143 on SIGTERM (summary.json is written then too, saying so).
    """
    from k12eval.models import backend_model
    from runners.batch_plan import parse_batch_size
    from runners.options import LANGS, MODES, STRATEGIES, RunOptions, choose
    from runners.run import run_questions
    from runners.stopping import Terminated, sigterm_raises
    from runners.summary import FailureLimit

    limit_failures = FailureLimit.parse(max_failures)

    options = RunOptions(
        data=data,
        model=model,
        model_path=None if dry_run else backend_model(model, backend),
        out=out,
        backend=backend,
        mode=choose(mode, MODES, "--mode"),
        variant=variant,
        strategy=None if strategy is None else choose(strategy, STRATEGIES, "--strategy"),
        lang=choose(lang, LANGS, "--lang"),
        fmt=fmt,
        mapping=mapping,
        subjects=comma_list(subjects),
        types=comma_list(types),
        limit=limit,
        select=select,
        seed=seed,
        shard=shard,
        few_shot=few_shot,
        shots=shots,
        token_budget=token_budget,
        template_set=template_set,
        chat=chat,
        temperature=temperature,
        top_p=top_p,
        max_tokens=max_tokens,
        samples=samples,
        batch_size=parse_batch_size(batch_size),
        retry_failed=retry_failed,
        skip_invalid=skip_invalid,
        backend_options=parse_pairs(backend_option or [], "--backend-option"),
    )
    if dry_run:
        _print_dry_run(options)
        return
    try:
        with log_to_stderr(quiet=quiet, verbose=verbose) as plain, sigterm_raises():
            if quiet:
                summary = run_questions(options)
            elif plain:
                summary = run_questions(options, progress=_plain_progress())
            else:
                summary = _with_progress(lambda progress: run_questions(options, progress=progress))
    except (KeyboardInterrupt, Terminated) as exc:  # summary.json was written; an error escaping is a bug: traceback
        name = exc.signal_name if isinstance(exc, Terminated) else "KeyboardInterrupt"
        code = 128 + (exc.signum if isinstance(exc, Terminated) else signal.SIGINT)
        typer.echo(
            f"error: interrupted ({name}); what was answered is kept in {out}; the same command resumes", err=True
        )
        raise typer.Exit(code) from None
    if as_json:
        assert summary.results is not None  # set by every finished run_questions
        sys.stdout.write(summary.results.model_dump_json(indent=2) + "\n")
    else:
        _print_summary(summary)
    _check_failures(summary, limit_failures)


def _print_dry_run(options: RunOptions) -> None:
    """The prompts of ``run --dry-run``, each under a line naming its question (escaped for a terminal)."""
    from runners.dryrun import dry_run, show

    result = dry_run(options)
    sent = "chat messages (JSON)" if result.chat else "text"
    how = "; change with --base" if result.chat else "; change with --chat"
    budget = ", the few-shot budget counted in characters (no tokenizer loaded)" if result.budget_in_chars else ""
    typer.echo(
        f"# dry run: {len(result.prompts)} prompt(s) as {sent}{how}{budget}; protocol {_protocol_name(result.options)}, "
        f"seed {result.options.seed}, templates {result.options.template_set}, shots {result.options.shots}, "
        f"strategy {result.options.strategy}; no model loaded, {options.out} not written"
    )
    for number, prompt in enumerate(result.prompts, start=1):
        typer.echo(f"\n## {number}/{len(result.prompts)} {_show_id(prompt.question_id)} ({prompt.type})")
        typer.echo(show(prompt))


def _protocol_name(options: RunOptions) -> str:
    """The protocol's name, with the fields the options override (``cmmlu, --templates ck12``)."""
    record = options.protocol or {}
    given = {"template_set": "--templates", "shots": "--shots", "token_budget": "--token-budget", "seed": "--seed",
             "strategy": "--strategy", "language": "--lang"}  # fmt: skip
    overrides = [f"{given.get(k, k)} {v['given']}" for k, v in record.get("overrides", {}).items()]
    return ", ".join([str(record.get("name", "?")), *overrides]) if overrides else str(record.get("name", "?"))


def _show_id(question_id: str) -> str:
    """A question id for a terminal line (ids come from the bank: escaped like the prompts)."""
    from runners.dryrun import terminal_safe

    return terminal_safe(question_id)


def merge(
    runs: Annotated[list[Path], typer.Argument(help="Run folders (shards) of one run.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Merged run folder.")],
) -> None:
    """Merge shards of one run: records are keyed by question id, so shards merge without coordination."""
    from runners.store import merge_runs

    written, dropped = merge_runs(runs, out)
    typer.echo(f"merged {written} record(s) into {out}; {dropped} duplicate(s) skipped")


def _check_failures(summary: RunSummary, limit: FailureLimit) -> None:
    """Exit 1 with a last line saying how many failed when the run holds more failures than allowed."""
    failed = sum(r.parse_status == "failed" for r in summary.records)
    if not failed:
        return
    total = len(summary.records)
    _echo_unmatched(summary)
    where = f"their errors are in {summary.out / 'records.jsonl'}; ask them again with --retry-failed"
    if limit.allows(failed, total):
        typer.echo(
            f"warning: {failed} of {total} question(s) failed (within --max-failures {limit}); {where}", err=True
        )
        return
    typer.echo(f"error: {failed} of {total} question(s) failed (--max-failures {limit}); {where}", err=True)
    raise typer.Exit(1)


def _echo_unmatched(summary: RunSummary) -> None:
    """For a replay of another harness's files, how many questions found no record, by kind."""
    from runners.backends.harness_match import FAILURES

    kinds = Counter(
        next((kind for kind in FAILURES if (r.error or "").startswith(kind)), None)
        for r in summary.records
        if r.parse_status == "failed"
    )
    shown = ", ".join(f"{kinds[kind]} {kind}" for kind in FAILURES if kinds[kind])
    if shown:
        typer.echo(f"replayed files: {shown} (never another question's answer)", err=True)


def _plain_progress() -> ProgressFn:
    """Where a log gets no bar: one line saying what is left (the batch lines come from the log)."""
    said: list[bool] = []

    def progress(done: int, total: int, rate: float) -> None:
        if not said:
            said.append(True)
            typer.echo(f"{total - done} of {total} question(s) to answer, {done} already in the run folder", err=True)

    return progress


def _with_progress(job: Any) -> RunSummary:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    from rich.console import Console

    bar = Progress(*columns, transient=False, console=Console(stderr=True))
    task = bar.add_task("answering", total=None, rate="")

    def progress(done: int, total: int, rate: float) -> None:
        if not bar.live.is_started:  # only once the backend is loaded: a loading error prints alone
            bar.start()
        bar.update(task, completed=done, total=total, rate=f"{rate:.2f} q/s")

    try:
        summary: RunSummary = job(progress)
    finally:
        if bar.live.is_started:
            bar.stop()
    return summary


def _print_summary(summary: RunSummary) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{summary.model} · {summary.mode} · {summary.variant}  ({summary.out})")
    for column in ("type", "n", "accuracy", "unparsed", "failed"):
        table.add_column(column, justify="left" if column == "type" else "right")
    for row in summary.rows():
        table.add_row(
            row["type"], str(row["n"]), f"{row['accuracy']:.1%}", f"{row['unparsed']:.1%}", str(row["failed"])
        )
    console = Console()
    console.print(table)
    console.print(
        f"{summary.new} new answer(s) this time, {summary.resumed} already in the run folder; "
        f"unparsed rate {summary.unparsed_rate:.1%}"
    )


def register(app: typer.Typer) -> None:
    """Add ``run`` and ``merge`` to the top-level app."""
    app.command("run", cls=BackendHelp)(guarded(run))
    app.command("merge")(guarded(merge))
