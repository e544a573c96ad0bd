"""Build a folder beside its final place and swap it in whole: readers see the old report or the new one.

A report is many files (page, CSVs, Parquet, plots, summary) that must come from
one build. :func:`staged_folder` gives a temporary sibling folder to write into;
when the block ends without error every file is fsynced and the folder takes
the final name in one step (Linux ``renameat2(RENAME_EXCHANGE)``, else two
renames with the old folder moved aside first). On any error, a kill or a full
disk the previous folder is untouched and the temporary one is removed (a kill
leaves it behind; the next build removes it once its process is gone).

Only a folder that carries the report's own marker file (:data:`MARKER`, written first into every
build) is ever replaced or removed, or a report written before the marker that holds exactly the files
its ``summary.json`` lists; it is checked again just before the swap: a run folder, a
bank, the current folder or someone's folder holding an ``index.html`` or ``summary.json`` is
refused with one line (issue #32).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from kg.errors import InputError
from runners.files import naming, read_own, umask_mode
from runners.leftovers import OWNER, ended_here, owner
from runners.out_folder import RUN_FILES

MARKER = ".k12eval-report"
"""The file that says a folder is a report ``k12eval report`` wrote and may replace (a folder without it is never
removed; an ``index.html`` or ``summary.json`` says nothing: every run folder has a ``summary.json``)."""
MARKER_TEXT = (
    "k12eval report folder: `k12eval report --out` replaces this folder whole.\n"
    "Delete this file to keep the folder from ever being replaced.\n"
)

_RENAME_EXCHANGE = 2
_SYNC_FLAGS = os.O_RDWR | getattr(os, "O_BINARY", 0) if os.name == "nt" else os.O_RDONLY
"""How a written file is opened to be fsynced: Windows flushes only a handle open for writing."""
_AT_FDCWD = -100


@contextlib.contextmanager
def staged_folder(out: Path) -> Iterator[Path]:
    """A fresh folder beside ``out`` to write into; on success it replaces ``out`` whole.

    ``out`` may be missing, an empty folder or an earlier report; anything else is an
    :class:`InputError`, so a mistyped ``--out`` never deletes someone's files.
    """
    out = Path(out).resolve()
    check_replaceable(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned(out)
    building = Path(tempfile.mkdtemp(prefix=f".{out.name}.build-{owner()}-", dir=out.parent))
    os.chmod(building, umask_mode(0o777))  # mkdtemp makes it 0700; a report folder is shared as the umask says
    try:
        with naming(out / MARKER):
            (building / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
        yield building
        _sync_tree(building, out)
        _swap_in(building, out)
    finally:
        shutil.rmtree(building, ignore_errors=True)  # the failed build, or the old report after the swap


def check_replaceable(out: Path) -> None:
    """Refuse an ``out`` the report may not replace: a file, a run folder, a folder of other files
    (anything but a missing or empty folder, or a report carrying :data:`MARKER`)."""
    if not os.path.lexists(out):
        return
    if not out.is_dir():
        raise InputError(f"{out}: exists and is not a folder; choose a folder for the report")
    held = [name for name in RUN_FILES if os.path.lexists(out / name)]
    if held:
        raise InputError(
            lambda name: (
                f"{out}: is a run folder (holds {held[0]}); the report replaces its folder whole, "
                f"choose another {name('out')}"
            )
        )
    if not any(out.iterdir()):
        return
    marked = is_report(out)
    foreign = _foreign_files(out, marked)
    if marked and foreign:  # the user's own files, put into a report folder since it was written
        shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
        raise InputError(
            lambda name: (
                f"{out}: holds {shown}, which no report wrote; the report replaces its folder whole: move "
                f"{'it' if len(foreign) == 1 else 'them'} out first, or choose another {name('out')}"
            )
        )
    if not marked and foreign != []:
        raise InputError(
            f"{out}: holds other files and no report marker ({MARKER}); the report replaces its folder whole, "
            "so it replaces only a folder it wrote: choose a new or empty folder"
        )


def is_report(folder: Path) -> bool:
    """Whether ``folder`` carries the marker of a report folder (a regular file, not a link, holding :data:`MARKER_TEXT`)."""
    path = Path(folder) / MARKER
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size != len(MARKER_TEXT.encode("utf-8")):
            return False
        return path.read_text(encoding="utf-8") == MARKER_TEXT
    except (OSError, UnicodeDecodeError):
        return False


SYSTEM_FILES = frozenset({".DS_Store", "Thumbs.db", "desktop.ini"})
"""Files a file browser leaves in a folder it showed: never the user's work, so they do not keep a report in place."""


def _foreign_files(folder: Path, marked: bool) -> list[str] | None:
    """What ``folder`` holds that its report did not write: every file or folder its ``summary.json`` does not list
    (besides :data:`MARKER`, each table's ``.md`` beside its listed ``.csv``, and :data:`SYSTEM_FILES`), in
    order; ``None`` when no ``summary.json`` lists the report's files (then nothing tells a report's own files).
    ``marked``: the folder carries :data:`MARKER` (:func:`is_report`).

    An empty list for a folder without :data:`MARKER` is a report written before the marker existed: replacing
    it loses nothing but that report.
    """
    try:
        summary = json.loads(read_own(folder / "summary.json", 64 << 20))
    except (InputError, OSError, ValueError):
        return None
    files = summary.get("files") if isinstance(summary, dict) else None
    if not isinstance(files, list) or "index.html" not in files:
        return None
    listed = {"summary.json", *(str(f) for f in files)} | {
        f"{f[:-4]}.md" for f in files if str(f).startswith("tables/") and str(f).endswith(".csv")
    }
    if marked:
        listed.add(MARKER)
    foreign = []
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder).as_posix()
        if path.is_symlink() or (not path.is_dir() and not path.is_file()):
            foreign.append(name)
        elif path.is_dir():
            if name not in ("tables", "plots"):
                foreign.append(name)
        elif name not in listed and path.name not in SYSTEM_FILES:
            foreign.append(name)
    return foreign


def _swap_in(building: Path, out: Path) -> None:
    """Give ``building`` the name ``out``; afterwards ``building`` names the old report (or nothing)."""
    check_replaceable(out)  # again, just before: the folder may have changed while the report was built
    if out.exists() and _exchange(building, out):
        _sync_dir(out.parent)
        return
    if out.exists():
        aside = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-{owner()}-", dir=out.parent))
        os.replace(out, aside / "report")
        try:
            os.replace(building, out)
        except BaseException:
            os.replace(aside / "report", out)  # put the old report back
            aside.rmdir()
            raise
        aside.rename(building)  # removed by the caller with the rest
    else:
        os.replace(building, out)
    _sync_dir(out.parent)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux); ``False`` where the system or file system cannot."""
    if not sys.platform.startswith("linux"):  # renameat2 is Linux's; elsewhere the C library may not be loadable
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    done = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if done == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _sync_tree(root: Path, out: Path) -> None:
    """fsync every file and folder under ``root``: the swap must not publish files still in the page cache.

    A full disk met here names the file by its place in ``out``, where the user will look for it.
    """
    for folder, _, files in os.walk(root):
        for name in files:
            path = Path(folder, name)
            with naming(out / path.relative_to(root)):
                fd = os.open(path, _SYNC_FLAGS)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
        with naming(out / Path(folder).relative_to(root)):
            _sync_dir(Path(folder))


def _sync_dir(folder: Path) -> None:
    if not hasattr(os, "O_DIRECTORY"):  # Windows opens no folder as a file; NTFS journals the names itself
        return
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove_abandoned(out: Path) -> None:
    """Remove temporary folders of builds into ``out`` whose process has ended on this machine (killed mid-build;
    :func:`runners.leftovers.ended_here`: a build on another machine sharing the folder is never judged).

    Only what a build leaves: a folder carrying the marker (a build, written first), one whose only
    entry is a report carrying it (an old report moved aside), or an empty one. Another folder with
    a name like theirs stays.
    """
    pattern = re.compile(rf"\.{re.escape(out.name)}\.(?:build|old)-{OWNER}-")
    for path in out.parent.iterdir():
        match = pattern.match(path.name)
        if not match or path.is_symlink() or not path.is_dir() or not ended_here(match):
            continue
        entries = [p.name for p in path.iterdir()]
        if not entries or is_report(path) or (entries == ["report"] and is_report(path / "report")):
            shutil.rmtree(path, ignore_errors=True)
