"""The stages of ``k12eval demo``: models, questions, two runs, step scores, report; each skips finished work.

Every stage is one library call (``k12eval.models.pull``, ``k12eval.api.run_job``,
``k12eval.api.score_job``, ``k12eval.api.report``), so the demo does exactly
what the separate commands do; the stages only add progress lines, timing and the checks that
let a second demo skip what the first one finished.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from kg.errors import InputError

Echo = Callable[[str], None]

VLLM_VENV = ".venv-vllm"
"""The vLLM environment ``scripts/setup_vllm_cpu.sh`` creates in the repository root."""
CPU_ENGINE_OPTIONS = ("-B", "dtype=float32", "-B", "max_model_len=2048")
"""vLLM's CPU build picks bfloat16 and the model's full 32k context; float32 and a short context
measured 162 s for the demo's CoT run, engine start included, against over 11 minutes unfinished."""


@dataclass
class StageTimes:
    """Wall-clock seconds and a one-line outcome per stage, in order."""

    echo: Echo
    total: int
    rows: list[tuple[str, float, str]] = field(default_factory=list)

    @contextmanager
    def stage(self, name: str, what: str) -> Iterator[list[str]]:
        """Announce and time one stage; the caller appends its outcome to the yielded list."""
        self.echo(f"[{len(self.rows) + 1}/{self.total}] {name}: {what}")
        outcome: list[str] = []
        start = time.perf_counter()
        yield outcome
        seconds = time.perf_counter() - start
        note = "; ".join(outcome)
        self.rows.append((name, seconds, note))
        self.echo(f"      {name} done in {_duration(seconds)}{': ' + note if note else ''}")

    def table(self) -> list[str]:
        """One line per stage and the total."""
        lines = [f"  {name:<16} {_duration(s):>8}  {note}" for name, s, note in self.rows]
        lines.append(f"  {'total':<16} {_duration(sum(s for _, s, _ in self.rows)):>8}")
        return lines


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    return f"{int(seconds // 60)} min {int(seconds % 60):02d} s"


def run_progress(echo: Echo, label: str) -> Callable[[int, int, float], None]:
    """A ``run_job`` progress callback printing one plain line per finished batch, with an ETA.

    Plain lines rather than a live bar: they read the same in a terminal, under ``make``
    and in a CI log.
    """
    started = time.perf_counter()
    first: list[int] = []

    def progress(done: int, total: int, rate: float) -> None:
        if not first:
            first.append(done)
            if done:
                echo(f"      {label}: {done}/{total} questions already answered, resuming")
            return
        eta = f", about {_duration((total - done) / rate)} left" if rate > 0 and done < total else ""
        echo(
            f"      {label}: {done}/{total} questions answered "
            f"({_duration(time.perf_counter() - started)}, {rate * 60:.1f} questions/min{eta})"
        )

    return progress


def local_or_pull(ref: str, offline: bool, echo: Echo) -> tuple[str, str]:
    """``(path, how)`` of a model: a local folder as it is, else the cache's copy, pulled if missing."""
    if Path(ref).expanduser().exists():
        return str(Path(ref).expanduser()), "local folder"
    from k12eval.models import pull

    result = pull(ref, offline=offline, report=lambda m: echo(f"      {m}"))
    if result.already_installed:
        return str(result.path), "already installed"
    steps = ", ".join(f"{k} {v:.0f} s" for k, v in result.manifest.timings_s.items())
    return str(result.path), f"installed ({steps})"


def offline_nli() -> tuple[str | None, str]:
    """The NLI model the catalogue can give without the hub, or ``None`` and why there is none."""
    from k12eval.models import find_installed, load_catalogue

    catalogue = load_catalogue()
    candidates = [e for e in catalogue.entries if e.task == "nli"]
    for entry in candidates:
        if find_installed(entry.name) is not None or entry.offline is not None:
            return entry.name, f"{entry.name} from the catalogue"
    return None, (
        "no NLI model is installed or installable offline (no registry carries one), "
        "so the NLI-based scores are recorded as unavailable; pass --nli MODEL to use one"
    )


def vllm_python(root: Path) -> Path | None:
    """The interpreter of ``ROOT/.venv-vllm`` when it can run ``k12eval run --backend vllm``, else ``None``."""
    python = root / VLLM_VENV / "bin" / "python"
    if not python.is_file():
        return None
    probe = (
        "import importlib.util as u, sys; sys.exit(any(u.find_spec(m) is None for m in ('vllm', 'typer', 'k12eval')))"
    )
    try:
        ok = subprocess.run([str(python), "-c", probe], capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return None
    return python if ok else None


def run_in_vllm_env(python: Path, args: list[str], echo: Echo) -> None:
    """``k12eval run ARGS --backend vllm`` in the vLLM environment, its output passed through."""
    # One process: the engine starts faster on a CPU. (The backend sets the KV cache size itself.)
    env = {"VLLM_ENABLE_V1_MULTIPROCESSING": "0", **os.environ}
    args = [*args, "--backend", "vllm", *CPU_ENGINE_OPTIONS]
    command = [str(python), "-m", "k12eval", "run", *args]
    echo(f"      running in {python.parent.parent.name}: k12eval run {' '.join(args)}")
    done = subprocess.run(command, env=env, stdout=sys.stderr, check=False)
    if done.returncode != 0:
        raise InputError(f"the vLLM run stopped with status {done.returncode}; its output is above")


def report_is_current(index: Path, inputs: list[Path]) -> bool:
    """Whether ``index`` exists and is newer than every existing input file."""
    if not index.is_file():
        return False
    newest = max((p.stat().st_mtime for p in inputs if p.is_file()), default=0.0)
    return index.stat().st_mtime > newest
