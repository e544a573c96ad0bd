"""``k12eval run`` and ``k12eval merge``: answer a question bank with a model, resumably."""

from __future__ import annotations

import signal
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from k12eval.cli._common import PluginHelp, comma_list, guarded, log_to_stderr, parse_pairs
from k12eval.cli._config import load_config
from k12eval.cli._interrupt import on_interrupt
from k12eval.cli._run_options import (
    AsJsonOpt,
    BackendOpt,
    BackendOptionOpt,
    BatchSizeOpt,
    ChatOpt,
    CircularOpt,
    DataArg,
    DryRunOpt,
    FewShotOpt,
    FmtOpt,
    GenKwargsOpt,
    GraderOpt,
    LangOpt,
    LimitOpt,
    LoopGuardOpt,
    MappingOpt,
    MaxFailuresOpt,
    MaxTokensOpt,
    MlflowArgsOpt,
    ModelOpt,
    ModeOpt,
    OutOpt,
    PullOpt,
    QuietOpt,
    RankNormOpt,
    RetryFailedOpt,
    SamplesOpt,
    SeedOpt,
    SelectOpt,
    ShardOpt,
    ShotsOpt,
    SkipInvalidOpt,
    SplitOpt,
    StrategyOpt,
    SubjectsOpt,
    SystemPromptOpt,
    TaxonomyOpt,
    TemperatureOpt,
    TemplateSetOpt,
    TokenBudgetOpt,
    TopPOpt,
    TypesOpt,
    VariantOpt,
    VerboseOpt,
    WandbArgsOpt,
)
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


ConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--config",
        help="TOML file with any of these options (a \\[run] table or top-level keys; paths relative to the file).",
        callback=_load_config,
        is_eager=True,
    ),
]


def run(
    data: DataArg,
    model: ModelOpt,
    out: OutOpt = None,
    pull: PullOpt = False,
    backend: BackendOpt = "transformers",
    mode: ModeOpt = "zero-shot",
    variant: VariantOpt = None,
    circular: CircularOpt = False,
    strategy: StrategyOpt = None,
    rank_norm: RankNormOpt = None,
    lang: LangOpt = "auto",
    fmt: FmtOpt = None,
    mapping: MappingOpt = None,
    taxonomy: TaxonomyOpt = None,
    split: SplitOpt = None,
    subjects: SubjectsOpt = None,
    types: TypesOpt = None,
    limit: LimitOpt = None,
    select: SelectOpt = "all",
    seed: SeedOpt = None,
    shard: ShardOpt = None,
    few_shot: FewShotOpt = None,
    shots: ShotsOpt = None,
    token_budget: TokenBudgetOpt = None,
    template_set: TemplateSetOpt = None,
    chat: ChatOpt = None,
    temperature: TemperatureOpt = None,
    top_p: TopPOpt = None,
    max_tokens: MaxTokensOpt = None,
    samples: SamplesOpt = 1,
    loop_guard: LoopGuardOpt = None,
    batch_size: BatchSizeOpt = "auto",
    retry_failed: RetryFailedOpt = False,
    skip_invalid: SkipInvalidOpt = False,
    backend_option: BackendOptionOpt = None,
    max_failures: MaxFailuresOpt = "0",
    grader: GraderOpt = "k12eval",
    system_prompt: SystemPromptOpt = None,
    gen_kwargs: GenKwargsOpt = None,
    wandb_args: WandbArgsOpt = None,
    mlflow_args: MlflowArgsOpt = None,
    as_json: AsJsonOpt = False,
    dry_run: DryRunOpt = False,
    verbose: VerboseOpt = False,
    quiet: QuietOpt = False,
    config: ConfigOpt = None,
) -> None:
    """Answer every selected question with a model and write one record per question to --out.

    Progress goes to stderr: a bar on a terminal, else plain lines (one as each batch starts and
    ends). The run's numbers go to --out/summary.json, and to stdout. Exit status: 0 when done,
    1 when more questions failed than --max-failures allows (the last line says how many), 2 on
    bad input, 130 on Ctrl-C and 143 on SIGTERM (summary.json is written then too, saying so).
    """
    from runners.batch_plan import parse_batch_size
    from runners.gen_kwargs import parse_gen_kwargs
    from runners.options import LANGS, MODES, RANK_NORMS, STRATEGIES, choose, parse_limit
    from runners.summary import FailureLimit

    if out is None and not dry_run:  # a dry run writes nothing: lm-eval's --write_out needs no --output_path
        raise InputError("--out: missing; name the run folder (only --dry-run goes without one)")
    limit_failures = FailureLimit.parse(max_failures)
    if circular and variant not in (None, "original", "circular"):
        raise InputError(f"--circular rotates the original options; it cannot be combined with --variant {variant}")
    variant = "circular" if circular else variant
    as_given: dict[str, Any] = {"variant": variant, "fmt": fmt, "mapping": mapping, "select": select}
    as_given["limit"] = parse_limit(limit)
    as_given |= {"seed": seed, "shard": shard, "few_shot": few_shot, "shots": shots, "token_budget": token_budget}
    as_given |= {"template_set": template_set, "chat": chat, "temperature": temperature, "top_p": top_p}
    as_given |= {"max_tokens": max_tokens, "samples": samples, "retry_failed": retry_failed}
    as_given |= {"skip_invalid": skip_invalid, "grader": grader, "system_prompt": text_or_file(system_prompt)}
    as_given |= {"taxonomy": taxonomy, "split": split, "loop_guard": loop_guard}
    as_given["gen_kwargs"] = parse_gen_kwargs(gen_kwargs)
    as_given["tracking"] = _trackers(wandb_args, mlflow_args)
    if pull:
        _pull_first(data, few_shot)
    options = _composed(
        pull,
        data,
        model,
        out or _NO_FOLDER,
        backend=backend,
        resolve_model=not dry_run,
        mode=choose(mode, MODES, "mode"),
        strategy=None if strategy is None else choose(strategy, STRATEGIES, "strategy"),
        rank_norm=None if rank_norm is None else choose(rank_norm, RANK_NORMS, "rank_norm"),
        lang=choose(lang, LANGS, "lang"),
        subjects=comma_list(subjects),
        types=comma_list(types),
        batch_size=parse_batch_size(batch_size),
        backend_options=parse_pairs(backend_option or [], "--backend-option"),
        **as_given,
    )
    if dry_run:
        _print_dry_run(_with_installed_model(options), written=out is not None)
        return
    summary = _answer(options, quiet=quiet, verbose=verbose)
    done = f"the run is complete: its {len(summary.records)} answer(s) and summary.json are in {options.out}"
    with on_interrupt(f"{done}; `k12eval report {options.out}` shows them"):
        if as_json:
            assert summary.results is not None  # set by every finished run_questions
            sys.stdout.write(summary.results.model_dump_json(indent=2) + "\n")
        else:
            _print_summary(summary)
    _echo_other_gold(summary)  # on stderr, so also beside --json's results
    _check_failures(summary, limit_failures)


def _trackers(wandb_args: str | None, mlflow_args: str | None) -> dict[str, dict[str, str]]:
    """``--wandb-args`` and ``--mlflow-args`` as :attr:`RunOptions.tracking` (a tracker per option given)."""
    from k12eval.tracking import parse_args

    given = {"wandb": (wandb_args, "--wandb-args"), "mlflow": (mlflow_args, "--mlflow-args")}
    return {name: parse_args(text, option) for name, (text, option) in given.items() if text is not None}


def text_or_file(value: str | None, option: str = "--system-prompt") -> str | None:
    """``value``, or the text of the UTF-8 file ``@FILE`` names (a trailing newline dropped)."""
    if value is None or not value.startswith("@"):
        return value
    path = Path(value[1:]).expanduser()
    try:
        return path.read_text(encoding="utf-8").removesuffix("\n")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise InputError(f"{option} @{path}: cannot read it ({reason})") from None


def _pull_first(*refs: Path | None) -> None:
    """``--pull``: fetch each bank named by a benchmark's name or hub id that is not here (as ``data pull``)."""
    from k12eval.banks import NotOnThisMachine, pull, resolve_data

    for ref in refs:
        if ref is None:
            continue
        try:
            resolve_data(ref)
        except NotOnThisMachine:
            done = pull(str(ref), report=lambda line: typer.echo(line, err=True))
            typer.echo(f"pulled {done.name} ({done.origin}) into {done.path}", err=True)


def _composed(pull: bool, *args: Any, **kwargs: Any) -> RunOptions:
    """``api.run_options``; a bank named but not here says, beside how to fetch it, that ``--pull`` would."""
    from k12eval import api
    from k12eval.banks import NotOnThisMachine

    try:
        return api.run_options(*args, **kwargs)
    except NotOnThisMachine as exc:
        if pull:
            raise
        raise InputError(f"{exc}; or run again with --pull to fetch it first") from None


def _answer(options: RunOptions, *, quiet: bool, verbose: bool) -> RunSummary:
    """The run, with progress on stderr (none, plain lines, or a bar); an interrupt exits 130 or 143 with the
    run's numbers already in summary.json."""
    from k12eval.api import run_job
    from runners.stopping import Terminated, sigterm_raises

    try:
        with log_to_stderr(quiet=quiet, verbose=verbose) as plain, sigterm_raises():
            if quiet:
                return run_job(options)
            if plain:
                return run_job(options, progress=_plain_progress())
            return _with_progress(lambda progress: run_job(options, progress=progress))
    except (KeyboardInterrupt, Terminated) as exc:  # an error escaping is a bug: traceback
        name = exc.signal_name if isinstance(exc, Terminated) else "KeyboardInterrupt"
        code = 128 + (exc.signum if isinstance(exc, Terminated) else signal.SIGINT)
        typer.echo(f"error: interrupted ({name}); {_kept(options.out)}", err=True)
        raise typer.Exit(code) from None


def _kept(out: Path) -> str:
    """What a stopped run left in ``out`` and how to finish it (the stop may have come while the summary was
    written, after the last answer)."""
    from runners.store import RunStore

    try:
        answered = len(RunStore(out).done_ids())
    except (OSError, InputError):  # the folder was refused or never opened: nothing of this session is in it
        answered = None
    if answered == 0:
        return f"no answer was written to {out} yet; run the same command again"
    kept = "what was answered is" if answered is None else f"{answered} answer(s) are"
    return (
        f"{kept} kept in {out}; the same command resumes: it asks the model only for the questions "
        "without an answer, then writes summary.json"
    )


def _with_installed_model(options: RunOptions) -> RunOptions:
    """``options`` with the folder of an installed model (a catalogue name), whose tokenizer files tell a dry run
    whether the model takes chat messages; nothing is fetched, and a model not here leaves them as they are."""
    from runners.backends import server_side_model

    if options.model_path is not None or options.backend_instance is not None or server_side_model(options.backend):
        return options
    from dataclasses import replace

    from k12eval.models import resolve_model

    found = resolve_model(options.model)
    return replace(options, model_path=found) if Path(found).is_dir() else options


_NO_FOLDER = Path("(no run folder)")
"""What a dry run without --out composes its options with; it writes nothing there or anywhere."""


def _print_dry_run(options: RunOptions, *, written: bool) -> None:
    """The prompts of ``run --dry-run``, each under a line naming its question (escaped for a terminal)."""
    from runners.dryrun import dry_run, show

    result = dry_run(options)
    sent = "chat messages (JSON)" if result.chat else "text"
    how = "; change with --base" if result.chat else "; change with --chat"
    if result.chat_from_files:
        how = f" (from the model's tokenizer files){how}"
    budget = ", the few-shot budget counted in characters (no tokenizer loaded)" if result.budget_in_chars else ""
    typer.echo(
        f"# dry run: {len(result.prompts)} prompt(s) as {sent}{how}{budget}; protocol {_protocol_name(result.options)}, "
        f"seed {result.options.seed}, templates {result.options.template_set}, shots {result.options.shots}, "
        f"strategy {result.options.strategy}, split {result.options.split or 'none'}, variant "
        f"{result.options.variant}; no model loaded, {f'{options.out} not written' if written else 'nothing written'}"
    )
    for number, prompt in enumerate(result.prompts, start=1):
        typer.echo(f"\n## {number}/{len(result.prompts)} {_show_id(prompt.question_id)} ({prompt.type})")
        typer.echo(show(prompt))


def _protocol_name(options: RunOptions) -> str:
    """The protocol's name, with the fields the options override (``cmmlu, --templates ck12``)."""
    record = options.protocol or {}
    given = {"template_set": "--templates", "shots": "--shots", "token_budget": "--token-budget", "seed": "--seed",
             "strategy": "--strategy", "language": "--lang", "split": "--split", "variant": "--variant",
             "rank_norm": "--rank-norm"}  # fmt: skip
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
    from runners.dryrun import terminal_safe

    failed = sum(r.parse_status == "failed" for r in summary.records)
    if not failed:
        return
    total = len(summary.records)
    unmatched = _echo_unmatched(summary)
    # Replayed files answer a question they hold no record for the same way every time: asking again cannot help.
    again = "ask them again with --retry-failed" if unmatched < failed else _NAME_THEM
    first = next(r for r in summary.records if r.parse_status == "failed")
    # The first one named with its error (which says what was asked, where, and why it failed): a user sees at once
    # whether the server, the network or the request is at fault.
    example = f"e.g. {_show_id(first.question_id)}: {terminal_safe(first.error or 'no error recorded')}"
    where = f"{example}; their errors are in {summary.out / 'records.jsonl'}; {again}"
    if limit.allows(failed, total):
        typer.echo(
            f"warning: {failed} of {total} question(s) failed (within --max-failures {limit}); {where}", err=True
        )
        return
    typer.echo(f"error: {failed} of {total} question(s) failed (--max-failures {limit}); {where}", err=True)
    raise typer.Exit(1)


_NAME_THEM = (
    "name the subjects the replayed files hold with --subjects (lm-eval's and OpenCompass's task names work), "
    "and a harness's --limit N with the same --limit"
)
"""What to do when questions found no record in another harness's files."""


def _echo_unmatched(summary: RunSummary) -> int:
    """For a replay of another harness's files, how many questions found no record, by kind; returns their number."""
    from runners.backends.harness_match import FAILURES

    kinds = Counter(
        next((kind for kind in FAILURES if (r.error or "").startswith(kind)), None)
        for r in summary.records
        if r.parse_status == "failed"
    )
    shown = ", ".join(f"{kinds[kind]} {kind}" for kind in FAILURES if kinds[kind])
    if shown:
        typer.echo(f"replayed files: {shown} (never another question's answer)", err=True)
    return sum(kinds[kind] for kind in FAILURES)


def _echo_other_gold(summary: RunSummary) -> None:
    """Say when the replayed files' gold names another option than the bank's, for some answers."""
    from runners.backends.harness_verdicts import gold_disagreements

    differ = gold_disagreements(summary.records)
    if differ:
        qid, theirs, ours = differ[0]
        typer.echo(
            f"warning: replayed files: {len(differ)} answer(s) whose gold in the harness's file is another option "
            f"than the bank's (e.g. {qid}: {theirs} there, {ours} in the bank); they are graded against the bank",
            err=True,
        )


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

    from runners.counting import JUDGMENT_RULE_NAMES

    results = summary.results
    gaokao = results.gaokao if results is not None else None
    # A GAOKAO-Bench record can hold 20 questions, and its paper counts points: on a run of its records alone the
    # scoring rate comes first and every count below says records.
    records = results is not None and results.unit == "records"
    unit = "record(s)" if records else "question(s)"
    console = Console()
    if records and gaokao is not None and gaokao.asked:
        for line in _gaokao_lines(gaokao):
            console.print(line, highlight=False)
    table = Table(title=f"{summary.model} · {summary.mode} · {summary.variant}  ({summary.out})")
    for column in ("type", "records" if records else "n", "asked", "accuracy", "unparsed", "failed"):
        table.add_column(column, justify="left" if column == "type" else "right")
    rows = summary.rows()
    for row in rows:
        accuracy = "—" if row["accuracy"] is None else f"{row['accuracy']:.1%}"
        unparsed = "—" if row["unparsed"] is None else f"{row['unparsed']:.1%}"
        cells = (str(row["n"]), str(row["asked"]), accuracy, unparsed, str(row["failed"]))
        table.add_row(row["type"], *cells)
    console.print(table)
    if results is not None:
        asked, in_bank = results.all.scored, results.in_bank
        notes = [f"accuracy over the {asked} {unit} asked of {results.questions} selected"]
        if in_bank is not None and in_bank != results.questions:
            notes[0] += f" ({in_bank} in the run's bank)"
        if records and gaokao is not None and gaokao.asked:
            inside = next(iter(gaokao.graders.values())).overall.questions
            notes.append(
                f"{inside} question(s) in the {gaokao.asked} record(s) asked: a record is right when all of its "
                "questions are"
            )
        if "judgment" in results.by_type and results.by_type["judgment"].scored:  # a rule counts only what was asked
            notes.append(f"judgment counted {JUDGMENT_RULE_NAMES[results.judgment_rule][1]}")
        console.print("; ".join(notes))
        if results.invalid or results.invalid_records:
            line = _invalid_line(results.invalid, results.invalid_unread, results.invalid_records)
            console.print(line, highlight=False, markup=False)
    loops = results.loops if results is not None else 0
    rate = summary.unparsed_rate
    console.print(
        # A failed request is no answer: "5 new answer(s)" of which 1 failed read as 5 answers (as the batch line).
        f"{summary.new - summary.new_failed} new answer(s)"
        + (f" and {summary.new_failed} failed request(s)" if summary.new_failed else "")
        + f" this time, {summary.resumed} already in the run folder; "
        + ("no answer to read, so no unparsed rate" if rate is None else f"unparsed rate {rate:.1%}")
        + (" of records" if records and rate is not None else "")
        + (f"; {loops} answer(s) stopped repeating themselves (finish_reason loop)" if loops else "")
    )
    circular = results.circular if results is not None else None
    if circular is not None and circular.questions:
        console.print(_circular_line(circular), highlight=False)
    if not records and gaokao is not None and gaokao.asked:
        for line in _gaokao_lines(gaokao):
            console.print(line, highlight=False)


def _invalid_line(invalid: int, unread: int, named: list[str]) -> str:
    """The bank's records ``--skip-invalid`` left out, which no count above holds: how many, and the first."""
    from kg.errors import left_out_phrase

    line = f"{left_out_phrase(invalid, unread)} of the bank left out (--skip-invalid), in no count above"
    if named:
        line += f": {named[0]}"
    if len(named) > 1:
        line += f"; {len(named) - 1} more named in summary.json (invalid_records)"
    return line


def _circular_line(stats: Any) -> str:
    """CircularEval beside the plain accuracy, each a count with its interval (OpenCompass's perf / origin)."""

    def rate(r: Any) -> str:
        return f"{r.correct}/{r.n} = {r.accuracy:.1%} ({r.low:.1%}-{r.high:.1%})"

    line = f"CircularEval: {rate(stats.circular)} right in every rotation; original order {rate(stats.origin)}"
    line += f"; every rotation counted {rate(stats.rotations)}"
    return line + (f"; {stats.incomplete} question(s) not yet asked in every rotation" if stats.incomplete else "")


def _gaokao_lines(scores: Any) -> list[str]:
    """GAOKAO-Bench's scoring rate by each grader: points with their interval, and questions right."""
    from runners.gaokao_score import GRADER_NAMES, points_text

    lines = [f"GAOKAO-Bench scoring rate (points, the paper's unit; {scores.asked} of {scores.records} records asked):"]
    for name, grader in scores.graders.items():
        r = grader.overall
        if r.rate is None:
            continue
        lines.append(
            f"  {name}: {points_text(r)}; {r.right}/{r.questions} "
            f"questions right = {r.share:.1%} ({r.share_low:.1%}-{r.share_high:.1%}); {GRADER_NAMES[name][1]}"
        )
    return lines


def register(app: typer.Typer) -> None:
    """Add ``run`` and ``merge`` to the top-level app."""
    app.command("run", cls=PluginHelp)(guarded(run))
    app.command("merge")(guarded(merge))
