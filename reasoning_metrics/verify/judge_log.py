"""The LLM judge's answers on disk: resumable, and replayable by the ``replay`` backend.

One JSON line per solution, appended as each answer comes back (one write, then fsync)::

    {"id": "...", "response": "model text" | null, "error": null | "why no answer",
     "first_error": 2, "model": "...", "backend": "..."}

A judged id is never asked again (a failed request included: it stays "no
verdict"; delete its line to ask again). Verdicts are re-read from ``response``
with the current parser, so ``first_error`` is only informative. ``id`` and
``response`` are what ``--judge-backend replay --judge-model FILE`` reads back.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from kg.errors import InputError
from reasoning_metrics.verify.flags import Solution
from reasoning_metrics.verify.rules.judge import JudgeVerdict, judge_stream, parse_first_error, template_for
from runners.appended import decoded, iter_appended, open_appended
from runners.backends import streams
from runners.backends.base import Backend, SamplingParams
from runners.files import lock_file, open_own

_LINE_START = b'{"id": '
"""How every line :func:`_line` writes starts (``json.dumps`` puts ``id`` first)."""


@dataclass(frozen=True)
class LoggedAnswer:
    """One line of the log."""

    response: str | None
    error: str | None


def read_log(path: Path, model: str, backend: str) -> dict[str, LoggedAnswer]:
    """Answers already in ``path`` by solution id; lines of another model or backend are an error.

    Read as every appended file is (:mod:`runners.appended`): a link, FIFO or device refused by name, a line
    within the line cap. A torn last line (a run killed while writing) is ignored: its solution is asked again.
    It must be the start of a line this log writes, else the file is not a judge log (a user's notes) and is
    refused, since resuming cuts a torn line.
    """
    handle = open_appended(path)
    if handle is None:
        return {}
    answers: dict[str, LoggedAnswer] = {}
    with handle:
        for line in iter_appended(path, handle):
            where = f"{path}, line {line.number}"
            if line.torn:
                start = line.text.lstrip(b"\0")  # a crash may leave NUL bytes
                if start and not _LINE_START.startswith(start[: len(_LINE_START)]):
                    raise InputError(f"{where}: not a judge log line (no newline, and not one this log writes)")
                continue
            text = decoded(path, line)
            if not text.strip():
                continue
            try:
                item = json.loads(text)
            except json.JSONDecodeError as exc:
                raise InputError(f"{where}: not valid JSON ({exc.msg})") from None
            if not isinstance(item, dict) or not isinstance(item.get("id"), str):
                raise InputError(f"{where}, field 'id': expected a judge log line with a text id")
            for field, expected in (("model", model), ("backend", backend)):
                if item.get(field) != expected:
                    raise InputError(
                        f"{where}, field '{field}': judged with {item.get(field)!r}, not {expected!r}; "
                        "use another judge log file"
                    )
            response, error = item.get("response"), item.get("error")
            if not isinstance(response, str | None) or not isinstance(error, str | None):
                raise InputError(f"{where}, field 'response': expected text or null")
            answers[item["id"]] = LoggedAnswer(response, error)
    return answers


def judge_resumably(
    solutions: Sequence[Solution],
    backend: Backend,
    log: Path | None = None,
    *,
    params: SamplingParams | None = None,
    chunk_size: int = 64,
    progress: Callable[[int], None] | None = None,
) -> list[JudgeVerdict]:
    """The judge's verdict on every solution, asking ``backend`` only about those not in ``log``.

    Solutions are sent ``chunk_size`` at a time; each answer is appended to ``log`` as the backend gives it (a
    server's one by one, another backend's a chunk at a time), so a killed run loses only what was not back yet.
    ``log`` is locked meanwhile: a second command on it is refused, naming it.
    ``progress`` gets the number of solutions judged so far (logged ones included).
    """
    if log is None:
        return _judged(solutions, backend, None, {}, params, chunk_size, progress)
    with lock_file(log):  # a second command on the same log is refused: it would ask and append every answer twice
        known = read_log(log, backend.model, backend.name)
        _cut_torn_line(log)
        return _judged(solutions, backend, log, known, params, chunk_size, progress)


def _judged(
    solutions: Sequence[Solution],
    backend: Backend,
    log: Path | None,
    known: dict[str, LoggedAnswer],
    params: SamplingParams | None,
    chunk_size: int,
    progress: Callable[[int], None] | None,
) -> list[JudgeVerdict]:
    """:func:`judge_resumably` once ``log`` is read: each answer appended as the backend gives it (a server's one by
    one, so a signal loses only the requests in flight; another backend's a chunk at a time)."""
    verdicts = {s.id: _verdict(known[s.id], s) for s in solutions if s.id in known}
    todo = [s for s in solutions if s.id not in known]
    each = streams(backend)
    for start in range(0, len(todo), chunk_size):
        chunk = todo[start : start + chunk_size]
        lines: list[str] = []
        for index, verdict in judge_stream(
            [(s.problem, s.steps) for s in chunk], backend, ids=[s.id for s in chunk], params=params
        ):
            verdicts[chunk[index].id] = verdict
            lines.append(_line(chunk[index], verdict, backend))
            if log is not None and (each or len(lines) == len(chunk)):  # written before the hand-over's shield ends
                _append(log, lines)
                lines = []
        if progress is not None:
            progress(len(verdicts))
    return [verdicts[s.id] for s in solutions]


def _verdict(answer: LoggedAnswer, solution: Solution) -> JudgeVerdict:
    if answer.response is None:
        return JudgeVerdict(None, "", answer.error or "no output")
    index_base = template_for(solution.problem).index_base
    return JudgeVerdict(parse_first_error(answer.response, len(solution.steps), index_base), answer.response)


def _line(solution: Solution, verdict: JudgeVerdict, backend: Backend) -> str:
    item = {
        "id": solution.id,
        "response": None if verdict.error else verdict.raw,
        "error": verdict.error,
        "first_error": verdict.first_error,
        "model": backend.model,
        "backend": backend.name,
    }
    return json.dumps(item, ensure_ascii=False) + "\n"


def _cut_torn_line(path: Path) -> None:
    """Drop a last line without its newline (a kill while writing; :func:`read_log` checked that it is the start
    of one of this log's lines), so appended lines start clean."""
    if not os.path.lexists(path):
        return
    with os.fdopen(open_own(path, os.O_RDWR, written=True), "r+b") as handle:
        size = os.fstat(handle.fileno()).st_size
        if not size:
            return
        handle.seek(size - 1)
        if handle.read(1) == b"\n":
            return
        end = size
        while end > 0:  # back to the last newline, a chunk at a time
            start = max(0, end - 2**16)
            handle.seek(start)
            at = handle.read(end - start).rfind(b"\n")
            if at >= 0:
                end = start + at + 1
                break
            end = start
        handle.truncate(end)


def _append(path: Path, lines: list[str]) -> None:
    """Append ``lines`` in one write, then fsync (a kill can only tear the last line)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = open_own(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, written=True)
    try:
        view = memoryview("".join(lines).encode("utf-8"))
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)
