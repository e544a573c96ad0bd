"""On-disk cache of model outputs, keyed by model name and a hash of the input text.

One SQLite file (``cache/metrics.sqlite`` under k12eval's one cache root,
:func:`runners.files.cache_home`: ``$K12EVAL_HOME``, else ``$XDG_CACHE_HOME/k12eval``,
else ``~/.cache/k12eval``) holds float32 arrays: sentence embeddings,
NLI probability rows, perplexities and acceptabilities. Rescoring a run, or a
second run on the same questions, embeds only the texts it has not seen.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np

from kg.errors import SettingOSError
from runners.files import cache_home

CACHE_FILE = "metrics.sqlite"


def default_cache_dir() -> Path:
    """``cache/`` under the one cache root (:func:`runners.files.cache_home`), beside the models and GGUF files."""
    return cache_home() / "cache"


def text_key(*parts: str) -> bytes:
    """Hash of one text (or of a premise/hypothesis pair); parts are separated unambiguously."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.digest()[:20]


class ArrayCache:
    """Float32 arrays by ``(namespace, key)``; the namespace names the model and what it computed."""

    def __init__(self, path: Path | str | None = None, *, work: bool = False) -> None:
        """``work``: the file is one job's own (``score --no-cache`` keeps its model outputs there until it
        ends), so an error says to free space and run again, not to score without it."""
        self.path = Path(path) if path is not None else default_cache_dir() / CACHE_FILE
        self.work = work
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._named():
            self._db = sqlite3.connect(self.path, timeout=60)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS arrays (ns TEXT, key BLOB, cols INTEGER, data BLOB, PRIMARY KEY (ns, key))"
            )
            self._db.commit()

    @contextlib.contextmanager
    def _named(self) -> Iterator[None]:
        """A SQLite error (a full disk, a read-only folder) as an :class:`OSError` naming the cache file.

        The command line prints an OSError as one line with its file; a ``sqlite3.Error`` would be a traceback.
        """
        try:
            yield
        except sqlite3.Error as exc:
            reason = " ".join(str(exc).split()) or type(exc).__name__
            code = errno.ENOSPC if "full" in reason else errno.EIO
            if self.work:
                raise OSError(code, f"cannot keep the job's work file ({reason}); free space and run it again",
                              str(self.path)) from None  # fmt: skip
            raise SettingOSError(
                code,
                lambda name: (
                    f"cannot use the metrics cache ({reason}); free space, or score without it ({name('cache')})"
                ),
                str(self.path),
            ) from None

    def get_many(self, ns: str, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        """The cached arrays among ``keys`` (missing keys are absent from the result)."""
        found: dict[bytes, np.ndarray] = {}
        for start in range(0, len(keys), 500):
            chunk = list(keys[start : start + 500])
            marks = ",".join("?" * len(chunk))
            with self._named():
                rows = self._db.execute(
                    f"SELECT key, cols, data FROM arrays WHERE ns = ? AND key IN ({marks})", [ns, *chunk]
                ).fetchall()
            for key, cols, data in rows:
                flat = np.frombuffer(data, dtype=np.float32)
                found[key] = flat.reshape(-1, cols) if cols else flat.copy()
        return found

    def put_many(self, ns: str, items: Iterable[tuple[bytes, np.ndarray]]) -> None:
        """Store arrays (1-D, or 2-D whose row length is kept); existing keys are replaced."""
        rows = []
        for key, array in items:
            a = np.ascontiguousarray(array, dtype=np.float32)
            rows.append((ns, key, a.shape[1] if a.ndim == 2 else 0, a.tobytes()))
        with self._named():
            self._db.executemany("INSERT OR REPLACE INTO arrays VALUES (?, ?, ?, ?)", rows)
            self._db.commit()

    def close(self) -> None:
        """Close the database."""
        self._db.close()
