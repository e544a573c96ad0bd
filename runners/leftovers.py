"""What a command killed midway left beside the files it puts in place: removed once its process is gone.

A pull (``data pull``, ``models pull``) or a GGUF conversion writes into a hidden name carrying its
:func:`owner` (process id and machine) and renames it into place when whole; a SIGKILL or a power cut between
the two leaves the hidden file or folder for ever (a partial download can be an archive's or a model's size).
:func:`remove_abandoned` removes those whose process has ended; a copy a pull had moved aside to replace it goes
back to its place when that is still empty.

Only this machine's processes can be asked whether they still run: a cache on a shared filesystem (several
nodes, or containers sharing a volume, each with its own process ids) holds the work of pulls elsewhere, whose
ids mean nothing here. So each name carries a digest of the machine's name too, and an entry of another machine
(or of an older k12eval, whose names carried the id alone) is never touched.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import socket
from collections.abc import Iterator, Sequence
from pathlib import Path

from runners.files import process_alive

OWNER = r"(?P<pid>\d+)@(?P<host>[0-9a-f]{8})"
""":func:`owner` in the patterns :func:`remove_abandoned` reads."""


def _host() -> str:
    """A digest of this machine's name (a container's own name in a container): short, and safe in a file name."""
    return hashlib.sha256(socket.gethostname().encode("utf-8", "surrogateescape")).hexdigest()[:8]


def owner() -> str:
    """``PID@HOST``: what a hidden name says of the process that writes it (:data:`OWNER`)."""
    return f"{os.getpid()}@{_host()}"


def ended_here(match: re.Match[str]) -> bool:
    """Whether the process a name's :data:`OWNER` names has ended on this machine: never one of another machine
    (its ids mean nothing here), this process (another of its threads may be at work) or one still running."""
    if match["host"] != _host():
        return False
    pid = int(match["pid"])
    return pid != os.getpid() and not process_alive(pid)


def remove_abandoned(folder: Path, patterns: Sequence[re.Pattern[str]]) -> list[str]:
    """Remove the entries of ``folder`` whose whole name matches one of ``patterns`` and whose process (the
    pattern's :data:`OWNER`) has ended on this machine (:func:`ended_here`); return their names. An entry whose pattern has a ``home``
    group is a copy moved aside: it goes back to ``folder / home`` when nothing is there (and is not counted), else
    it is removed. Links stay; an entry another command removes or puts back at the same moment is left to it."""
    removed: list[str] = []
    try:
        entries = sorted(folder.iterdir())
    except OSError:  # no such folder yet: nothing was written into it
        return removed
    for path in entries:
        match = next((m for pattern in patterns if (m := pattern.fullmatch(path.name))), None)
        if match is None or path.is_symlink() or not ended_here(match):
            continue
        home = folder / match["home"] if "home" in match.re.groupindex else None
        try:
            if home is not None and not os.path.lexists(home):
                path.rename(home)  # the command that moved it aside died before its new copy was in place
                continue
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            elif path.is_file():
                path.unlink()
            else:
                continue
        except FileNotFoundError:  # another pull cleaning the same folder took it first
            continue
        removed.append(path.name)
    return removed


def put_in_place(staging: Path, target: Path) -> None:
    """Rename the whole folder ``staging`` to ``target``. When another process put its own copy there first (two
    pulls of one archive or model), that copy stays and ``staging`` is removed: before, the second pull failed
    with 'Directory not empty' and left its staging folder behind."""
    try:
        staging.rename(target)
    except OSError:
        if not target.is_dir():
            shutil.rmtree(staging, ignore_errors=True)
            raise
        shutil.rmtree(staging, ignore_errors=True)


@contextlib.contextmanager
def replacing(target: Path) -> Iterator[None]:
    """Move the folder at ``target`` aside (``.replaced-NAME-OWNER``, :func:`owner`) while the block puts a new one
    there, and remove it once the block ends well; when the block fails (an error, Ctrl-C) it goes back at once
    where its place is still empty. A forced ``data pull``, a ``models pull`` over an installed model."""
    old = target.with_name(f".replaced-{target.name}-{owner()}")
    if target.exists():
        target.rename(old)
    try:
        yield
    except BaseException:
        if old.is_dir() and not os.path.lexists(target):
            old.rename(target)
        raise
    shutil.rmtree(old, ignore_errors=True)
