"""Requests sent ``concurrency`` at a time, each result handed back as soon as it is there.

``concurrent.futures.ThreadPoolExecutor`` would do the sending, but a caller stopped by Ctrl-C or
SIGTERM leaves its ``with`` block through ``shutdown(wait=True)``, which waits for every request
already queued, and the interpreter joins its threads at exit: a run stopped while a server held its
requests hung until they timed out (``timeout_s``, 120 s by default, times the retries), and then threw
every answer of the batch away. Here the workers are daemon threads that take no new request once the
caller stops, so the process ends at once; the requests in flight then are the only ones lost.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from types import TracebackType
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")
WAIT_S = 0.5
"""How long the caller waits on the results at a time: Windows delivers Ctrl-C to a waiting thread only
between waits (POSIX interrupts the wait itself)."""


class Concurrent(Generic[T, R]):
    """``work`` of every item on ``concurrency`` daemon threads; iterate for ``(index, result)`` as each finishes.

    ``work`` must not raise (a request that fails returns its failure); one that does ends the iteration
    with that exception. Used as a context manager: on leaving it, no further item is started and nothing
    waits for the ones running. With a concurrency of 1 (or one item) the work runs in the caller's thread
    as it iterates, where a signal interrupts the request itself.
    """

    def __init__(self, work: Callable[[T], R], items: Sequence[T], concurrency: int) -> None:
        self.work, self.items = work, list(items)
        self.threaded = concurrency > 1 and len(self.items) > 1
        self._todo = iter(enumerate(self.items))
        self._taking = threading.Lock()
        self._stopped = threading.Event()
        self._results: queue.SimpleQueue[tuple[int, R] | BaseException] = queue.SimpleQueue()
        self._handed = 0
        if self.threaded:
            for _ in range(min(concurrency, len(self.items))):
                threading.Thread(target=self._worker, name="k12eval-request", daemon=True).start()

    def _worker(self) -> None:
        while not self._stopped.is_set():
            with self._taking:
                index, item = next(self._todo, (-1, None))
            if index < 0:
                return
            try:
                self._results.put((index, self.work(item)))  # type: ignore[arg-type]
            except BaseException as exc:  # handed to the caller, which raises it
                self._results.put(exc)
                return

    def __iter__(self) -> Iterator[tuple[int, R]]:
        if not self.threaded:
            for index, item in self._todo:
                self._handed += 1
                yield index, self.work(item)
            return
        while self._handed < len(self.items):
            try:
                got = self._results.get(timeout=WAIT_S)
            except queue.Empty:
                continue
            self._handed += 1
            if isinstance(got, BaseException):
                raise got
            yield got

    def ready(self) -> list[tuple[int, R]]:
        """The results already finished and not yet handed over, without waiting for any other."""
        found = []
        while self.threaded:
            try:
                got = self._results.get_nowait()
            except queue.Empty:
                break
            if not isinstance(got, BaseException):
                found.append(got)
        self._handed += len(found)
        return found

    def stop(self) -> None:
        """Start no further item; the running ones finish on their own and their results are dropped."""
        self._stopped.set()

    def __enter__(self) -> Concurrent[T, R]:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()


def mapped(work: Callable[[T], R], items: Sequence[T], concurrency: int) -> list[R]:
    """``work`` of every item, in the items' order, ``concurrency`` at a time (:class:`Concurrent`)."""
    with Concurrent(work, items, concurrency) as sent:
        found = dict(sent)
    return [found[index] for index in range(len(items))]
