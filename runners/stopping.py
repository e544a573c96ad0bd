"""How a session of ``run`` stopped before finishing: Ctrl-C, SIGTERM, or an error that escaped.

Python ends a process on SIGTERM without unwinding its stack, so nothing could write the
summary; :func:`sigterm_raises` turns the signal into :class:`Terminated`, which unwinds like
Ctrl-C's ``KeyboardInterrupt``.

A finished answer must reach ``records.jsonl`` whole whenever the signal comes: between the moment
a backend hands an answer over and the moment its record is written, :func:`shielded` holds
SIGINT and SIGTERM back (for the milliseconds that takes) and raises them when the block ends.
:func:`signals_raise` installs the handlers that know the shield (the run loop does, around its
questions); without them a signal raises at once, as Python's own handler does.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

from runners.summary import REDACTED, SECRET_VALUE, SessionStatus


def stop_reason(exc: BaseException) -> tuple[SessionStatus, str]:
    """How a session stopped by ``exc`` ended, and why in one line (at most 300 characters).

    Ctrl-C and SIGTERM (:class:`Terminated`) interrupt; anything else fails. Only the first line of
    the error is kept: its text may come from a server, and a summary is one record per run.
    """
    if isinstance(exc, Terminated):
        return "interrupted", exc.signal_name
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted", "KeyboardInterrupt"
    lines = str(exc).strip().splitlines()
    why = f"{type(exc).__name__}: {lines[0].strip()}" if lines else type(exc).__name__
    return "failed", SECRET_VALUE.sub(REDACTED, why)[:300]


class Terminated(BaseException):  # BaseException, like KeyboardInterrupt: ``except Exception`` lets it through
    """SIGTERM turned into an exception (see :func:`sigterm_raises`), so a run can write its summary."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(self.signal_name)

    @property
    def signal_name(self) -> str:
        """``SIGTERM`` (or the name of whichever signal was turned into this exception)."""
        return signal.Signals(self.signum).name


@contextlib.contextmanager
def sigterm_raises() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` in the main thread; elsewhere a no-op.

    Only the first: a second SIGTERM is handled as before the block (by default, the process ends).
    """
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers
        return

    def handler(signum: int, _frame: FrameType | None) -> None:
        signal.signal(signal.SIGTERM, previous)  # a second SIGTERM ends the process as usual
        raise Terminated(signum)

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class _Shield:
    """The one shield state of the process (signals reach the main thread only)."""

    depth = 0
    held: int | None = None
    """The first signal that came while shielded, raised when the shield ends."""


def _raise_for(signum: int) -> None:
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(signum)


@contextlib.contextmanager
def shielded() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM (under :func:`signals_raise`) wait; the first is raised at its end.

    Used from a finished answer's hand-over to its written record; blocks nest. In another thread,
    or without :func:`signals_raise`, it changes nothing.
    """
    _Shield.depth += 1
    try:
        yield
    finally:
        _Shield.depth -= 1
        if _Shield.depth == 0 and _Shield.held is not None:
            signum, _Shield.held = _Shield.held, None
            _raise_for(signum)


@contextlib.contextmanager
def signals_raise() -> Iterator[None]:
    """Within the block, SIGINT raises ``KeyboardInterrupt`` and SIGTERM :class:`Terminated`, except while shielded.

    In the main thread only (elsewhere a no-op). A second SIGTERM after the first was raised ends
    the process as before the block.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous: dict[int, Any] = {}

    def handler(signum: int, _frame: FrameType | None) -> None:
        if _Shield.depth > 0:
            if _Shield.held is None:
                _Shield.held = signum
            return
        if signum == signal.SIGTERM:
            signal.signal(signal.SIGTERM, previous[signal.SIGTERM])
        _raise_for(signum)

    for wanted in (signal.SIGINT, signal.SIGTERM):
        previous[wanted] = signal.signal(wanted, handler)
    _Shield.held = None
    try:
        yield
    finally:
        for which, before in previous.items():
            signal.signal(which, _restorable(before))
        _Shield.held = None


def _restorable(handler: Any) -> Callable[..., Any] | int:
    """``signal.signal`` returns ``None`` for a handler not set from Python; the default stands in for it."""
    return signal.SIG_DFL if handler is None else handler
