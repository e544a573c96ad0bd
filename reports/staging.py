"""Build a folder beside its final place and swap it in whole: readers see the old report or the new one.

A report is many files (page, CSVs, Parquet, plots, summary) that must come from
one build. :func:`staged_folder` gives a temporary sibling folder to write into;
when the block ends without error every file is fsynced and the folder takes
the final name in one step (Linux ``renameat2(RENAME_EXCHANGE)``, else two
renames with the old folder moved aside first). On any error, a kill or a full
disk the previous folder is untouched and the temporary one is removed (a kill
leaves it behind; the next build removes it once its process is gone).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from kg.errors import InputError
from runners.files import naming, umask_mode

MARKERS = ("index.html", "summary.json")
"""Files that say a folder is a report we may replace (a folder without them is never removed)."""

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


@contextlib.contextmanager
def staged_folder(out: Path) -> Iterator[Path]:
    """A fresh folder beside ``out`` to write into; on success it replaces ``out`` whole.

    ``out`` may be missing, an empty folder or an earlier report; anything else is an
    :class:`InputError`, so a mistyped ``--out`` never deletes someone's files.
    """
    out = Path(out).resolve()
    _check_replaceable(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned(out)
    building = Path(tempfile.mkdtemp(prefix=f".{out.name}.build-{os.getpid()}-", dir=out.parent))
    os.chmod(building, umask_mode(0o777))  # mkdtemp makes it 0700; a report folder is shared as the umask says
    try:
        yield building
        _sync_tree(building, out)
        _swap_in(building, out)
    finally:
        shutil.rmtree(building, ignore_errors=True)  # the failed build, or the old report after the swap


def _check_replaceable(out: Path) -> None:
    if not out.exists():
        return
    if not out.is_dir():
        raise InputError(f"{out}: exists and is not a folder; choose a folder for the report")
    if any(out.iterdir()) and not any((out / name).is_file() for name in MARKERS):
        raise InputError(
            f"{out}: folder holds other files and no report (no index.html); "
            "choose a new or empty folder, the report replaces its folder whole"
        )


def _swap_in(building: Path, out: Path) -> None:
    """Give ``building`` the name ``out``; afterwards ``building`` names the old report (or nothing)."""
    if out.exists() and _exchange(building, out):
        _sync_dir(out.parent)
        return
    if out.exists():
        aside = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-{os.getpid()}-", dir=out.parent))
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
                fd = os.open(path, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
        with naming(out / Path(folder).relative_to(root)):
            _sync_dir(Path(folder))


def _sync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove_abandoned(out: Path) -> None:
    """Remove temporary folders of builds into ``out`` whose process has ended (killed mid-build)."""
    pattern = re.compile(rf"\.{re.escape(out.name)}\.(?:build|old)-(\d+)-")
    for path in out.parent.iterdir():
        match = pattern.match(path.name)
        if match and path.is_dir() and not _alive(int(match.group(1))):
            shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True  # another thread of this process may be building the same report
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
