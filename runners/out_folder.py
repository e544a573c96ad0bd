"""Where a command may write: an ``--out`` folder that can never hold, or be, what the user keeps.

``run`` writes into its folder and ``report`` replaces its folder whole, so a mistyped ``--out``
could overwrite or delete a user's files. :func:`check_out` refuses, before anything is created:
the current folder (``--out ''`` or ``.``) or a folder holding it, an input (the bank, a run
folder read by ``report``) or a folder holding one. Each command then writes only into a folder
that is new, empty or carries its own marker: ``run.json`` for a run (:func:`check_run_folder`),
``.k12eval-report`` for a report (``reports.staging``). A command writing one file (:func:`check_out_file`:
``score``, ``meta-eval``, ``calibrate``, ``kg export``...) is refused the same places, a folder, and a run's own files.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

from kg.errors import InputError, SettingError, Worded
from runners.files import LOCK_FILE
from runners.records import HEADER_FILE, RECORDS_FILE

RUN_MARKER = HEADER_FILE
"""What makes a folder a run folder ``run`` may write into (its header, written by ``run`` only)."""
RUN_FILES = (HEADER_FILE, RECORDS_FILE, "scores.jsonl", "scores.json")
"""Files that make a folder a run (or a scored run, ``reasoning_metrics.score_store``): never a report to replace."""
RUN_OWN_FILES = (*RUN_FILES, "summary.json", "results.json", LOCK_FILE)
"""Every file ``run`` and ``score`` keep in a run folder: never another command's output."""


def check_out(out: Path, inputs: Iterable[Path | None], setting: str = "out") -> Path:
    """``out`` made absolute, or an :class:`InputError` when writing there could touch what the user keeps.

    Refused: the current folder or a folder holding it (``--out ''`` is the current folder), and
    any of ``inputs`` or a folder holding one of them.
    """
    target = Path(os.path.abspath(out))
    here = Path.cwd()
    if _same(target, here) or any(_same(target, parent) for parent in here.parents):
        what = "is the current folder" if _same(target, here) else f"holds the current folder {here}"
        raise SettingError(setting, str(out), f"{what}; name a folder of its own for the output")
    for given in inputs:
        if given is None:
            continue
        source = Path(os.path.abspath(given))
        if _same(target, source):
            raise SettingError(setting, out, _choose_another("is an input of this command", setting), quoted=False)
        if any(_same(target, parent) for parent in source.parents):
            raise SettingError(setting, out, _choose_another(f"holds the input {given}", setting), quoted=False)
    return target


def check_out_file(out: Path, inputs: Iterable[Path | None], setting: str = "out", keep: Iterable[str] = ()) -> Path:
    """``out``, a file a command writes or appends to, made absolute; an :class:`InputError` before anything is
    written when that could touch what the user keeps.

    Refused as :func:`check_out` refuses (``--out ''``, the current folder, an input or a folder holding
    one), and: an existing file inside an input folder (a bank's file), a folder, and a run's own files
    (``run.json``, ``records.jsonl``... in a folder holding a ``run.json``) other than those named in ``keep``
    (``score``'s ``scores.jsonl``, which may also lie in a run folder inside the bank's folder).
    """
    given = [Path(path) for path in inputs if path is not None]
    target = check_out(out, given, setting)
    own = set(keep)
    kept = target.name in own and (target.parent / RUN_MARKER).is_file()  # a run's own score file
    for source in given:
        if not kept and target.exists() and Path(os.path.abspath(source)).is_dir() and _inside(target, source):
            raise SettingError(setting, out, _choose_another(f"is a file of the input {source}", setting), quoted=False)
    if target.is_dir():
        raise InputError(lambda name: f"{out}: is a folder; {name(setting)} names a file to write")
    if target.name in RUN_OWN_FILES and target.name not in own and (target.parent / RUN_MARKER).is_file():
        raise InputError(
            lambda name: f"{out}: is a file of the run folder {target.parent}; choose another {name(setting)}"
        )
    return target


HEAD_BYTES = 4096
"""How much of an existing file :func:`check_own_file` reads to tell whether the command wrote it."""


def check_own_file(out: Path, signatures: Sequence[re.Pattern[str]], command: str, setting: str = "out") -> None:
    """Refuse to replace a file at ``out`` that ``command`` did not write: one whose first :data:`HEAD_BYTES`
    (UTF-8) match none of ``signatures``, the way each of the command's outputs begins. A report replaces only a
    folder carrying its marker (``reports.staging``); a command writing one file replaces only its own output, an
    empty file, or nothing. Before: ``calibrate -o notes.json`` replaced a user's file of that name without a word."""
    try:
        info = os.lstat(out)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise InputError(f"{out}: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode) or info.st_size == 0:  # a link is replaced, not written through
        return
    try:
        with open(out, "rb") as handle:
            head = handle.read(HEAD_BYTES).decode("utf-8", errors="replace")
    except OSError as exc:
        raise InputError(f"{out}: {exc.strerror}") from None
    if any(signature.search(head) for signature in signatures):
        return
    raise InputError(
        lambda name: (
            f"{out}: exists and is not a file `{command}` wrote; choose a new file for {name(setting)}, "
            "or move this one away first"
        )
    )


def _choose_another(said: str, setting: str) -> Worded:
    return lambda name: f"{said}; choose another {name(setting)}"


def check_run_folder(out: Path) -> None:
    """Refuse to start a run in a folder holding anything but a run's own files (a report, a bank,
    someone's ``summary.json``): a new or empty folder, or a run folder (its ``run.json``), is written into.
    """
    out = Path(out)
    if not out.exists():
        return
    if not out.is_dir():
        raise InputError(lambda name: f"{out}: exists and is not a folder; choose a folder for {name('out')}")
    if (out / RUN_MARKER).is_file():
        return
    others = sorted(p.name for p in out.iterdir() if not _run_leftover(p.name))
    if others:
        shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
        raise InputError(
            lambda name: (
                f"{out}: holds other files ({shown}) and no run ({RUN_MARKER}); choose a new or empty "
                f"folder for {name('out')}"
            )
        )


def _run_leftover(name: str) -> bool:
    """A file a run stopped before its header was written may leave: its lock, its header half-written."""
    return name == LOCK_FILE or name.startswith(f".{RUN_MARKER}.")


def _inside(target: Path, folder: Path) -> bool:
    """Whether the absolute path ``target`` lies in ``folder`` (through links)."""
    real = Path(os.path.realpath(folder))
    return real in Path(os.path.realpath(target)).parents


def _same(a: Path, b: Path) -> bool:
    """Whether two absolute paths name one file or folder (through links, on case-blind disks too)."""
    if a == b:
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # either is missing: equal only as written
        return False
