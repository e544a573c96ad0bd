"""Files that a kill, a full disk or a second process cannot leave half-written.

:func:`atomic_write` puts a whole file in place or leaves the old one untouched.
:func:`exclusive` holds an advisory lock for as long as a command writes a run
folder or a score file, so two commands on one output are refused instead of
interleaving their records. The lock is the operating system's own, taken through
the ``filelock`` package (``fcntl.flock`` on Unix, ``LockFileEx`` on Windows, where
there is no ``fcntl``), so it is released when the process ends, however it ends,
and a killed run never leaves a stale lock behind. Where the system offers no lock
at all, the command goes on unlocked and says so once.

The files a command keeps in a folder (locks, a run's records, score files) are opened with
:func:`open_own`, which never follows a symbolic link and refuses anything but a regular file: a link
``RUN/.lock -> ../../victim`` would otherwise have the victim truncated and overwritten with a pid.
Every call here runs on Windows as well (no ``fcntl``, ``fchmod``, ``O_NOFOLLOW`` or ``O_DIRECTORY``
there); :func:`process_alive` asks Windows through ``OpenProcess``, where ``os.kill(pid, 0)`` would
end the process.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import stat
import sys
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path

from kg.errors import InputError

log = logging.getLogger(__name__)
LOCK_FILE = ".lock"
"""The lock file inside a locked folder."""
WINDOWS = sys.platform == "win32"
"""Whether process liveness is asked of Windows (``OpenProcess``) rather than with a signal 0."""
HOME_ENV = "K12EVAL_HOME"
"""The environment variable naming k12eval's one cache folder (models, converted GGUF files)."""


def cache_home(override: Path | None = None) -> Path:
    """k12eval's cache folder: ``override``, else ``$K12EVAL_HOME``, else ``$XDG_CACHE_HOME/k12eval``,
    else ``~/.cache/k12eval``."""
    if override is not None:
        return override.expanduser()
    env = os.environ.get(HOME_ENV)
    if env:
        return Path(env).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache").expanduser() / "k12eval"


def umask_mode(mode: int = 0o666) -> int:
    """``mode`` less the process's umask: the permissions ``open`` would give a new file (``0o777``: a folder)."""
    mask = os.umask(0o022)  # the only way to read the umask is to set it: set it back at once
    os.umask(mask)
    return mode & ~mask


def atomic_write(path: Path, text: str | bytes) -> None:
    """Write ``text`` (UTF-8), or bytes as they are, to ``path`` whole: a temporary file beside it, fsync, then
    ``os.replace``.

    On any failure (a full disk, a kill) ``path`` keeps its old content, or stays absent,
    and the temporary file is removed. The file gets the permissions the file it replaces had,
    else those the umask gives a new file (``mkstemp`` alone would make every file 0600).
    A text is written as its UTF-8 bytes, line ends as they are (``\n`` on Windows too, as ``csv_bytes`` and the
    files written as bytes have them).
    """
    path = Path(path)
    data = text.encode("utf-8") if isinstance(text, str) else text
    with naming(path):
        try:
            mode = path.stat().st_mode & 0o7777
        except OSError:
            mode = umask_mode()
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            if hasattr(os, "fchmod"):
                os.fchmod(fd, mode)
            else:  # Windows: only the read-only bit exists, and it is set through the name
                os.chmod(tmp, mode)
            with os.fdopen(fd, "wb") as raw:
                raw.write(data)
                raw.flush()
                os.fsync(raw.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


@contextlib.contextmanager
def naming(path: Path) -> Iterator[None]:
    """Give an :class:`OSError` raised in the block ``path`` as its file name, when it has none.

    ``write`` and ``fsync`` errors (ENOSPC, EIO) carry no file name; the user needs it.
    """
    try:
        yield
    except OSError as exc:
        if exc.filename is not None or exc.errno is None:
            raise
        raise OSError(exc.errno, exc.strerror, str(path)) from exc


@contextlib.contextmanager
def exclusive(lock_path: Path, what: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``lock_path`` (created if needed) for the ``with`` block.

    When another process holds it, raise :class:`InputError` naming ``what`` (the folder
    or file being protected) and the holder's pid, which each holder writes into the file.
    """
    lock_path = Path(lock_path)
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = open_own(lock_path, os.O_RDWR | os.O_CREAT)
    try:
        if not _lock(fd, lock_path):
            holder = _holder(fd)
            by = f" (pid {holder})" if holder else ""
            raise InputError(
                f"{what}: in use by another k12eval command{by}; wait for it to finish or choose another output"
            )
        # The pid is for the message of a second command only; a lock file with another name (a hard
        # link from elsewhere) keeps its content.
        with contextlib.suppress(OSError):
            if os.fstat(fd).st_nlink > 1:
                raise OSError(errno.EMLINK, "a hard link")
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


_unlocked_warned: set[str] = set()


def _lock(fd: int, lock_path: Path) -> bool:
    """Lock ``fd`` without waiting: True when this process holds it now, False when another one does.

    Where the system has no lock at all (``ENOSYS``), True after one warning: the command goes on,
    and only a second command writing the same output at the same time is no longer refused.
    """
    with warnings.catch_warnings():  # "only soft file lock is available": said below, once, in our words
        warnings.simplefilter("ignore", UserWarning)
        from filelock import lock_descriptor

    try:
        return bool(lock_descriptor(fd, blocking=False))
    except OSError as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return False
        if exc.errno != errno.ENOSYS:
            raise
        if str(lock_path) not in _unlocked_warned:
            _unlocked_warned.add(str(lock_path))
            log.warning(
                "%s: this system offers no file lock; a second command on the same output is not refused", lock_path
            )
        return True


def lock_folder(folder: Path) -> contextlib.AbstractContextManager[None]:
    """Exclusive use of ``folder`` (a run folder); creates it if needed."""
    return exclusive(Path(folder) / LOCK_FILE, Path(folder))


def lock_file(path: Path) -> contextlib.AbstractContextManager[None]:
    """Exclusive use of the file ``path`` (e.g. a score file), through ``path`` + ``.lock`` beside it."""
    path = Path(path)
    return exclusive(path.with_name(path.name + ".lock"), path)


def _holder(fd: int) -> int | None:
    """The pid the lock's holder wrote, if it can be read."""
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        text = os.read(fd, 32).decode("ascii").strip()
        return int(text) if text else None
    except (OSError, ValueError):  # Windows: the holder's locked byte cannot be read
        return None


def open_own(path: Path, flags: int, mode: int = 0o644, *, written: bool = False) -> int:
    """A descriptor of ``path``, a file a command keeps in its folder, opened without following a link.

    ``O_NOFOLLOW`` where the system has it, else (Windows) an ``lstat`` first; either way the file
    opened must be the regular file that was there (same device and inode). A symbolic link, a
    FIFO, a device or a folder is an :class:`InputError` naming the file; a FIFO is opened without
    waiting for a writer, so the refusal comes at once. A file whose content is ``written`` (records and
    scores, appended to and cut at a torn line) must also have no other name: a hard link to a file
    elsewhere would be changed there too.
    """
    path = Path(path)
    nofollow, nonblock = getattr(os, "O_NOFOLLOW", 0), getattr(os, "O_NONBLOCK", 0)
    try:
        before: os.stat_result | None = os.lstat(path)
    except FileNotFoundError:
        before = None
    if before is not None and not stat.S_ISREG(before.st_mode):
        raise InputError(_not_own(path, before.st_mode))
    try:
        fd = os.open(path, flags | nofollow | nonblock | getattr(os, "O_BINARY", 0), mode)
    except OSError as exc:
        if nofollow and exc.errno in (errno.ELOOP, errno.EMLINK):  # a link put there since the lstat
            raise InputError(_not_own(path, stat.S_IFLNK)) from None
        raise
    info = os.fstat(fd)
    moved = before is not None and (info.st_dev, info.st_ino) != (before.st_dev, before.st_ino)
    if moved or not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise InputError(_not_own(path, stat.S_IFLNK if moved else info.st_mode))
    if written and info.st_nlink > 1:
        os.close(fd)
        raise InputError(
            f"{path}: has {info.st_nlink} names (a hard link); writing to it would change the file under its "
            "other name too: put a copy of it there (cp), or choose another output"
        )
    if nonblock:
        os.set_blocking(fd, True)
    return fd


def read_own(path: Path, limit: int) -> bytes:
    """The bytes of ``path`` (opened by :func:`open_own`); an :class:`InputError` when it holds more than ``limit``."""
    fd = open_own(path, os.O_RDONLY)
    with os.fdopen(fd, "rb") as handle, naming(path):
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise InputError(f"{path}: larger than {limit:,} bytes; not a file this command wrote")
    return data


def _not_own(path: Path, mode: int) -> str:
    kind = (
        "a symbolic link"
        if stat.S_ISLNK(mode)
        else "a folder"
        if stat.S_ISDIR(mode)
        else "a FIFO"
        if stat.S_ISFIFO(mode)
        else "a device or socket"
    )
    return (
        f"{path}: is {kind}, not a regular file; k12eval never follows a link or reads a device for the files "
        "it keeps in a folder (locks, records, scores): remove it, or put the file itself there"
    )


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` still runs: signal 0 on Unix; on Windows ``OpenProcess`` and its exit code,
    since ``os.kill(pid, 0)`` there ends the process."""
    if pid <= 0:
        return False
    if WINDOWS:
        return _windows_alive(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


_STILL_ACTIVE = 259
_PROCESS_QUERY_LIMITED_INFORMATION = 0x1000
_ERROR_ACCESS_DENIED = 5


def _windows_alive(pid: int) -> bool:
    import ctypes

    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined,unused-ignore]
    handle = kernel32.OpenProcess(_PROCESS_QUERY_LIMITED_INFORMATION, False, pid)
    if not handle:
        return bool(ctypes.get_last_error() == _ERROR_ACCESS_DENIED)  # type: ignore[attr-defined,unused-ignore]
    try:
        code = ctypes.c_ulong()
        if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
            return True
        return code.value == _STILL_ACTIVE
    finally:
        kernel32.CloseHandle(handle)
