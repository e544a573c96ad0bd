"""``k12eval report``: turn run folders into a teacher's audit report (HTML, tables, plots, aggregates)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from k12eval.cli._common import UserError, guarded
from k12eval.cli._interrupt import file_id, on_interrupt, replaced_since

if TYPE_CHECKING:
    from runners.gaokao_score import GaokaoScores

app = typer.Typer(
    help="Write the audit report of one or more runs: index.html, tables, nodes.csv/.parquet, plots, summary.json.",
    invoke_without_command=True,
    subcommand_metavar="",
    no_args_is_help=True,
    # A group stops reading options at its first argument; this command has no subcommands.
    context_settings={"allow_interspersed_args": True},
)


@app.callback()
@guarded
def report(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run folders (each with run.json and records.jsonl).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Report folder to write (created if missing).")],
    data: Annotated[
        Path | None, typer.Option("--data", help="Question bank to read stems and analyses from (overrides run.json).")
    ] = None,
    k: Annotated[int, typer.Option("--hit-k", help="k of Hit@k for runs that ranked options.")] = 4,
    subject: Annotated[
        str | None, typer.Option("--table3-subject", help="Subject of CK12 Table 3 (default: 物理 if answered).")
    ] = None,
    stage: Annotated[
        str | None, typer.Option("--table3-stage", help="Stage of CK12 Table 3: primary, middle or high.")
    ] = None,
    title: Annotated[str, typer.Option("--title", help="Title of the report.")] = "k12eval report",
    plots: Annotated[bool, typer.Option("--plots/--no-plots", help="Draw the PNG figures (matplotlib).")] = True,
    xlsx: Annotated[
        bool, typer.Option("--xlsx", help="Also write report.xlsx: the node table and the weakest points (openpyxl).")
    ] = False,
    select: Annotated[
        str,
        typer.Option(
            "--select",
            help="Questions CK12 Table 2 is computed over: all, or reasoning-subset (the paper's: math questions "
            "whose analysis has more than two steps).",
        ),
    ] = "all",
    judgment: Annotated[
        str | None,
        typer.Option(
            "--judgment",
            help="How a judgment question counts in overall, nodes.csv and the tables: per-statement (each "
            "statement, read by k12eval; one without a verdict is wrong), per-item (right only when every "
            "statement is; k12eval's stricter rule) or ck12-release (CK12's released scorer: T/F found anywhere, "
            "statements beyond them not counted; the paper's rule). Default: the runs' protocol (run.json), "
            "per-statement for every bundled one. Table 1's caption says which.",
        ),
    ] = None,
) -> None:
    """Aggregate runs per knowledge point and write the report folder."""
    from reports import write_report
    from reports.tables import JUDGMENT_SCORING
    from runners.options import choose

    if k < 1:  # before: Hit@0 and Hit@-1 columns of 0 %
        raise UserError(f"--hit-k {k}: give a number of at least 1")
    before = file_id(out.resolve())  # the folder the report swaps (a link to it stays as it is)
    with on_interrupt(lambda: _report_state(out, before)):
        result = write_report(
            run_dirs,
            out,
            data,
            k=k,
            subject=subject,
            stage=stage,
            title=title,
            plots=plots,
            xlsx=xlsx,
            select=select,
            judgment=None if judgment is None else choose(judgment, JUDGMENT_SCORING, "judgment"),
        )
    with on_interrupt(f"the report is written: {out / 'index.html'}"):
        _print_result(result, out)


def _report_state(out: Path, before: tuple[int, int] | None) -> str:
    """What a report stopped by Ctrl-C left at ``out`` (``before``: what was there when it started)."""
    if replaced_since(out.resolve(), before):
        return f"the report is written: {out / 'index.html'}"
    return f"{out} is left as it was (a report replaces its folder whole, or not at all); the same command writes it"


def _print_result(result: Any, out: Path) -> None:
    """The report's warnings and each run's figures, as its summary.json holds them."""
    for warning in result.warnings:
        flag = " (--data PATH)" if getattr(warning, "setting", None) == "data" else ""
        typer.echo(f"warning: {warning}{flag}", err=True)
    from runners.counting import JUDGMENT_RULE_NAMES

    rule = result.summary.get("judgment", "per-statement")
    counted = "judgment " + JUDGMENT_RULE_NAMES[rule][1] if rule in JUDGMENT_RULE_NAMES else str(rule)
    for run in result.summary["runs"]:
        typer.echo(_run_line(run, counted, result.gaokao.get(run["id"])))
    typer.echo(f"wrote {out / 'index.html'} and {len(result.files) - 1} other files in {result.summary['seconds']} s")


def _run_line(run: dict[str, Any], counted: str, gaokao: GaokaoScores | None) -> str:
    """One run's figures as summary.json holds them; a run of GAOKAO-Bench's records alone heads with its points
    (the paper's unit, from its unrounded ``gaokao``, as ``run`` prints them) and calls its records records (one
    can hold 20 questions)."""
    from kg.errors import left_out_phrase

    # From the counts, not summary.json's acc_micro (rounded to 4 digits: 253/1202 = 21.05 % printed 21.1 %).
    shown = f"{100 * run['correct'] / run['n']:.1f}%" if run.get("n") else "—"
    # The judgment rule is named only where it counted: a run that asked no judgment question has none.
    rule_used = f" ({counted})" if run.get("judgment_asked") else ""
    # None: no question was answered (every request failed): no rate, not 0 %.
    unparsed = "unparsed —" if run["unparsed_rate"] is None else f"unparsed {100 * run['unparsed_rate']:.1f}%"
    # The bank's records the run left out as invalid are in no count: said, or a reader takes the bank as whole.
    left_out = left_out_phrase(run.get("invalid") or 0, run.get("invalid_unread") or 0)
    said = run.get("invalid") or run.get("invalid_unread")
    invalid = f"; {left_out} of the bank left out (--skip-invalid)" if said else ""
    if run.get("unit") != "records" or gaokao is None:
        return (
            f"{run['id']}: {run['n']} scored{rule_used}, accuracy {shown}, {unparsed}; "
            f"{run['asked']} of {run['in_bank']} questions asked{invalid}"
        )
    from runners.gaokao_score import points_text

    release, ours = (gaokao.graders[name].overall for name in ("gaokao-release", "k12eval"))
    return (
        f"{run['id']}: GAOKAO-Bench scoring rate {points_text(release)} by the release's scorer, "
        f"{points_text(ours, interval=False)} by k12eval's extraction; {run['n']} record(s) "
        f"({release.questions} question(s)) scored, "
        f"accuracy by record {shown}, {unparsed} of records; {run['asked']} of {run['in_bank']} records asked{invalid}"
    )
