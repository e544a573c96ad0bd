"""Append-only run folders: a run killed at any moment resumes with no loss and no duplicates.

The header (``run.json``) is written once, atomically. Records are appended to
``records.jsonl`` one batch at a time, each batch in one ``write`` followed by
``fsync``. A kill can only leave a torn *last* line; on reopening, that partial
line is cut off (its question is answered again), and every complete record
stays exactly as written.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kg.errors import InputError, OtherRunError, Problem, SettingError
from runners.appended import decoded, iter_appended, open_appended
from runners.counting import header_judgment_rule
from runners.files import atomic_write, lock_folder, naming, open_own, read_own
from runners.out_folder import check_out, check_run_folder
from runners.records import HEADER_FILE, RECORDS_FILE, RunHeader, RunRecord

IDENTITY_FIELDS = (
    "model",
    "backend",
    "mode",
    "strategy",
    "rank_norm",
    "variant",
    "language",
    "sampling",
    "seed",
    "selection",
    "template_hash",
    "backend_options",
    "fewshot",
    "bank",
    "grader",
)
"""Header fields that must match for a run folder to be resumed (or for shards to be merged)."""
HEADER_LIMIT = 64 << 20
"""The most bytes a run's header (``run.json``) may hold: one written by ``run`` is a few kilobytes."""
UNKNOWN_WHEN_MISSING = frozenset({"backend_options", "fewshot", "bank"})
"""Identity fields that older headers lack: ``None`` there is unknown, and not held against a resume."""
DEFAULT_WHEN_MISSING = {"sampling": {"loop_guard": 0}}
"""Keys of an identity dict that older headers lack, and what they meant then (no loop guard)."""


class RunStore:
    """One run folder: its header and its records."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.header_path = self.root / HEADER_FILE
        self.records_path = self.root / RECORDS_FILE

    def exists(self) -> bool:
        """Whether a run was started here."""
        return self.header_path.is_file()

    def read_header(self) -> RunHeader:
        """The run's header, or an :class:`InputError` naming the folder."""
        if not self.exists():
            raise InputError(f"{self.root}: not a run folder (no {HEADER_FILE})")
        try:
            header = RunHeader.model_validate_json(read_own(self.header_path, HEADER_LIMIT))
        except ValidationError as exc:
            error = exc.errors()[0]
            field = ".".join(map(str, error["loc"]))
            raise InputError(f"{self.header_path}, field '{field}': {error['msg']}") from None
        header_judgment_rule(header, self.header_path)  # named here: the summary, lm-eval results, report count by it
        return header

    def open(self, header: RunHeader) -> RunHeader:
        """Start the run, or check that ``header`` describes the run already here and resume it.

        Returns the header in force (a resumed run keeps its original start time).
        """
        if self.exists():
            old = self.read_header()
            clash = differing_fields(old, header, (*IDENTITY_FIELDS, "shard"))
            if clash:
                field, before, now = _as_set(clash[0], old, header)
                said = f"{self.root} holds a different run ({field}: {before!r} there, {now!r} now)"
                raise OtherRunError(
                    lambda name: f"{said}; choose another {name('out')}, or repeat the original options to resume",
                    self.root,
                )
            self.repair()
            return old
        self.root.mkdir(parents=True, exist_ok=True)
        atomic_write(self.header_path, header.model_dump_json(indent=2))
        self._touch()
        return header

    def rewrite_header(self, header: RunHeader) -> None:
        """Replace the header of the run here (atomically): a resume that read the bank otherwise says so."""
        atomic_write(self.header_path, header.model_dump_json(indent=2))

    def _touch(self) -> None:
        with naming(self.records_path):
            os.close(open_own(self.records_path, os.O_WRONLY | os.O_CREAT, written=True))

    def repair(self) -> int:
        """Cut a torn last line left by a kill; returns the number of bytes removed."""
        if not os.path.lexists(self.records_path):
            self._touch()
            return 0
        with os.fdopen(open_own(self.records_path, os.O_RDWR, written=True), "rb+") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size == 0:
                return 0
            handle.seek(max(0, size - 1))
            if handle.read(1) == b"\n":
                return 0
            # Find the end of the last complete line.
            chunk = 1 << 16
            end = size
            while end > 0:
                start = max(0, end - chunk)
                handle.seek(start)
                data = handle.read(end - start)
                cut = data.rfind(b"\n")
                if cut >= 0:
                    keep = start + cut + 1
                    break
                end = start
            else:
                keep = 0
            handle.truncate(keep)
            return size - keep

    def iter_records(self) -> Iterator[RunRecord]:
        """Every complete record in the order written, retried questions' earlier records included."""
        for _, record in self.iter_lines():
            yield record

    def iter_lines(self) -> Iterator[tuple[int, RunRecord]]:
        """``(line, record)`` for every complete line; a bad line is an error naming file, line and field.

        The one torn-line rule of a run folder: a last line without its newline is a write in
        progress (or cut by a kill), not a record yet, and is skipped. The file is read as
        :mod:`runners.appended` reads every append-only file: a FIFO or device is refused by name,
        and no line is held past the line cap.
        """
        handle = open_appended(self.records_path)
        if handle is None:
            return
        with handle:
            for line in iter_appended(self.records_path, handle):
                if line.torn:
                    return
                text = decoded(self.records_path, line)
                if text.strip():
                    yield line.number, self._parse(line.number, text)

    def _parse(self, number: int, line: str) -> RunRecord:
        try:
            return RunRecord.model_validate_json(line)
        except ValidationError as exc:
            error = exc.errors()[0]
            field = ".".join(map(str, error["loc"])) or None
            rid = _question_id(line)
            problem = Problem(self.records_path, number, field, error["msg"], record=rid)
            raise InputError.from_problem(problem) from None

    def numbered_records(self) -> list[tuple[int, RunRecord]]:
        """One ``(line, record)`` per question id: the last written, in the order the ids first appear.

        ``run --retry-failed`` appends a new record for a failed question and keeps the old one
        as history; every reader of a run folder reads it through here, so none counts it twice.
        """
        latest: dict[str, tuple[int, RunRecord]] = {}
        for number, record in self.iter_lines():
            latest[record.question_id] = (number, record)  # a dict keeps each key's first position
        return list(latest.values())

    def records(self) -> list[RunRecord]:
        """One record per question id, the last written (see :meth:`numbered_records`)."""
        return [record for _, record in self.numbered_records()]

    def done_ids(self) -> set[str]:
        """Question ids already answered."""
        return {record.question_id for record in self.iter_records()}

    def append(self, records: Iterable[RunRecord]) -> int:
        """Append records durably (one write, then fsync); returns how many were written."""
        lines = [r.model_dump_json(exclude_none=False) + "\n" for r in records]
        if not lines:
            return 0
        data = "".join(lines).encode("utf-8")
        with naming(self.records_path):
            fd = open_own(self.records_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, written=True)
            try:
                view = memoryview(data)
                while view:
                    written = os.write(fd, view)
                    view = view[written:]
                os.fsync(fd)
            finally:
                os.close(fd)
        return len(lines)


def _as_set(clash: tuple[str, Any, Any], old: RunHeader, new: RunHeader) -> tuple[str, Any, Any]:
    """A clash as the user set it: a bank of other questions because another split was asked is the split's clash
    (``bank: 'f5105c...' there, '8238c1...' now`` named no setting the user had changed)."""
    if clash[0] == "bank" and old.data.get("split") != new.data.get("split"):
        return "split", old.data.get("split"), new.data.get("split")
    return clash


def _question_id(line: str) -> str | None:
    """The ``question_id`` of a record line that does not validate, if it can be read."""
    try:
        value = json.loads(line).get("question_id")
    except (ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None


def differing_fields(a: RunHeader, b: RunHeader, fields: Iterable[str]) -> list[tuple[str, Any, Any]]:
    """``(field, a's value, b's value)`` for each of ``fields`` where the headers differ.

    A dict field is compared key by key and named ``field.key``; a field of
    :data:`UNKNOWN_WHEN_MISSING` that either header lacks is not compared.
    """
    found: list[tuple[str, Any, Any]] = []
    for name in fields:
        before, now = getattr(a, name), getattr(b, name)
        if before == now or (name in UNKNOWN_WHEN_MISSING and (before is None or now is None)):
            continue
        if isinstance(before, dict) and isinstance(now, dict):
            defaults = DEFAULT_WHEN_MISSING.get(name, {})
            before, now = {**defaults, **before}, {**defaults, **now}
            keys = sorted(before.keys() | now.keys())
            found += [(f"{name}.{k}", before.get(k), now.get(k)) for k in keys if before.get(k) != now.get(k)]
        else:
            found.append((name, before, now))
    return found


def in_shard(question_id: str, shard: tuple[int, int] | None) -> bool:
    """Whether a question belongs to shard ``(i, n)`` (0-based ``i``); stable across runs and machines."""
    if shard is None:
        return True
    index, count = shard
    digest = hashlib.sha1(question_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count == index


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """``"i/n"`` (1-based i, as users count) as ``(i - 1, n)``."""
    if not text:
        return None
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise SettingError("shard", text, "expected i/n, e.g. 1/4") from None
    if not (n >= 1 and 1 <= i <= n):
        raise SettingError("shard", text, "need 1 <= i <= n")
    return i - 1, n


def merge_runs(sources: list[Path], out: Path) -> tuple[int, int]:
    """Merge shard folders (or partial copies) of one run into ``out``.

    Headers must agree on every identity field. Records are keyed by question id: each
    folder's last record of an id (see :meth:`RunStore.records`), the first folder's if several have it. Returns ``(records written, duplicates dropped)``.
    """
    if not sources:
        raise InputError("merge needs at least one run folder")
    stores = [RunStore(s) for s in sources]
    headers = [s.read_header() for s in stores]
    first = headers[0]
    for store, header in zip(stores[1:], headers[1:], strict=True):
        clash = differing_fields(first, header, IDENTITY_FIELDS)
        if clash:
            field, a, b = clash[0]
            raise InputError(f"{store.root} is not part of the same run as {stores[0].root} ({field}: {b!r} vs {a!r})")
    check_out(out, sources)
    check_run_folder(out)
    with lock_folder(out):
        target = RunStore(out)
        target.open(first.model_copy(update={"shard": None}))
        seen = target.done_ids()
        written = dropped = 0
        for store in stores:
            batch: list[RunRecord] = []
            for record in store.records():
                if record.question_id in seen:
                    dropped += 1
                    continue
                seen.add(record.question_id)
                batch.append(record)
            written += target.append(batch)
    return written, dropped
