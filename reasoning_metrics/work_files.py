"""A score job's work file: the model outputs a job scored without the shared cache keeps until it finishes.

``score --no-cache`` keeps them in ``scores.work-HASH.sqlite`` beside the score file (HASH: the job's header),
so a job stopped inside a chunk resumes what it had computed. The job that finishes removes its own. One
stopped and never rerun with the same settings left its file for ever, unnamed: now each work file has a note
beside it (``scores.work-HASH.json``: the settings and the command that made it), and a job into the same score
file names the others with their size, the command that resumes them and how to remove them. Only a work file
that holds nothing computed is removed unasked: it can resume nothing.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import os
import re
import shlex
import sqlite3
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reasoning_metrics.score_store import header_path
from runners.files import atomic_write, read_own

SQLITE_SIDES = ("-wal", "-shm", "-journal")
"""The files SQLite keeps beside a database."""


def work_cache_path(out: Path, settings: str) -> Path:
    """Where a job into ``out`` scored without the shared cache keeps its model outputs until it finishes
    (``scores.work-HASH.sqlite`` beside it): one file per header (``settings``, its JSON), so a job with other
    models never reads them."""
    digest = hashlib.sha256(settings.encode()).hexdigest()[:8]
    return out.with_name(f"{out.stem}.work-{digest}.sqlite")


def note_path(work: Path) -> Path:
    """``scores.work-HASH.sqlite`` -> ``scores.work-HASH.json``: what made it."""
    return work.with_suffix(".json")


def _names(work: Path) -> list[Path]:
    """The files of the work file ``work``: the database, SQLite's files beside it and the note."""
    return [work, *(work.with_name(work.name + side) for side in SQLITE_SIDES), note_path(work)]


def work_files(work: Path) -> list[Path]:
    """The files of the work file ``work`` that exist."""
    return [path for path in _names(work) if os.path.lexists(path)]


def write_note(work: Path, settings: dict[str, Any], command: Sequence[str] | None = None) -> None:
    """Say beside a new work file which settings and which command (default ``sys.argv``, secrets redacted; and
    the folder it ran in) made it, so that another job can name it. The command is kept only when it is
    ``k12eval score``: a job the Python API started (a notebook, a script) has its host's command line there,
    which the note would offer as the command that resumes the job."""
    from runners.summary import redact_command

    if os.path.lexists(note_path(work)):
        return
    argv = sys.argv if command is None else command
    typed = redact_command(argv) if _is_score_command(argv) else None
    note = {"settings": settings, "command": typed, "cwd": os.getcwd()}
    atomic_write(note_path(work), json.dumps(note, ensure_ascii=False, indent=2) + "\n")


def _is_score_command(argv: Sequence[str]) -> bool:
    """Whether ``argv`` is ``k12eval score ...`` (the console script, or ``python -m k12eval``)."""
    if len(argv) < 2 or argv[1] != "score":
        return False
    program = Path(argv[0])
    return program.stem == "k12eval" or (program.name == "__main__.py" and program.parent.name == "k12eval")


def remove_work(work: Path) -> None:
    """Remove a work file with SQLite's files and its note (a finished job's own, or one that holds nothing)."""
    for path in _names(work):
        path.unlink(missing_ok=True)


@dataclass(frozen=True)
class StaleWork:
    """A work file beside a score file that another job (other settings) left."""

    path: Path
    size: int
    """Bytes of the database, SQLite's files beside it and the note."""
    settings: dict[str, Any] | None
    """The metrics and models of the score header it was made for; ``None`` when it has no note (an older
    version's)."""
    command: list[str] | None
    """The ``k12eval score`` command that made it, as it was typed (secrets redacted); ``None`` when the Python API
    made it (:func:`write_note`)."""
    cwd: str | None

    def line(self, out: Path) -> str:
        """One line for the user: what it is, how big, how to resume it and how to remove it."""
        mb = f"{self.size / 1e6:.1f} MB" if self.size >= 100_000 else f"{self.size / 1e3:.0f} kB"
        what = _settings_text(self.settings) if self.settings is not None else "settings not recorded"
        remove = shlex.join(["rm", *(str(p) for p in work_files(self.path))])
        if self.command:
            where = f"cd {shlex.quote(self.cwd)} && " if self.cwd and self.cwd != os.getcwd() else ""
            resume = f"to resume it, move {out.name} and {header_path(out).name} aside and run `{where}{_command_text(self.command)}`"
        else:
            resume = f"it resumes only into {out.name} scored again with those settings"
        return (
            f"note: {self.path} ({mb}) holds the model outputs of a stopped score job with other settings ({what}); "
            f"{resume}; to remove it: `{remove}`"
        )


def stale_work(out: Path, own: Path) -> list[StaleWork]:
    """The work files beside the score file ``out`` other than ``own`` (this job's); those that hold nothing
    computed are removed (nothing could resume from them). Called while ``out`` is locked: every job that writes
    a work file beside it holds that lock, so none of them is in use."""
    found = []
    pattern = re.compile(re.escape(out.stem) + r"\.work-[0-9a-f]{8}\.sqlite")
    for path in sorted(out.parent.glob(f"{glob.escape(out.stem)}.work-*.sqlite")):
        if path == own or not pattern.fullmatch(path.name) or path.is_symlink() or not path.is_file():
            continue
        if _holds_nothing(path):
            remove_work(path)
            continue
        note = _read_note(path)
        found.append(
            StaleWork(
                path,
                sum(os.lstat(p).st_size for p in work_files(path)),
                note.get("settings") if isinstance(note.get("settings"), dict) else None,
                [str(a) for a in note["command"]] if isinstance(note.get("command"), list) else None,
                str(note["cwd"]) if isinstance(note.get("cwd"), str) else None,
            )
        )
    return found


def _holds_nothing(path: Path) -> bool:
    """Whether the work file holds no model output (or is no database at all: then it is kept, not judged)."""
    try:
        with contextlib.closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=1)) as db:
            (rows,) = db.execute("SELECT COUNT(*) FROM arrays").fetchone()
    except sqlite3.Error:
        return False
    return int(rows) == 0


def _read_note(work: Path) -> dict[str, Any]:
    try:
        note = json.loads(read_own(note_path(work), 1 << 20))
    except Exception:  # absent (an older version's work file), unreadable or not JSON: named without its settings
        return {}
    return note if isinstance(note, dict) else {}


def _settings_text(settings: dict[str, Any]) -> str:
    """The settings a user tells jobs apart by: the metrics and the models."""
    metrics = ", ".join(str(m) for m in settings.get("metrics", []))
    models = sorted(
        {str(name) for per_lang in settings.get("models", {}).values() for name in per_lang.values() if name}
    )
    return f"metrics {metrics or '-'}; models {', '.join(models) or '-'}"


def _command_text(argv: list[str]) -> str:
    """The command as a user types it: ``k12eval score ...``, whatever path started it."""
    return shlex.join(["k12eval", *argv[1:]] if _is_score_command(argv) else argv)
