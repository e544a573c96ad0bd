"""How a session of ``run`` stopped before finishing: Ctrl-C, SIGTERM, or an error that escaped.

Python ends a process on SIGTERM without unwinding its stack, so nothing could write the
summary; :func:`sigterm_raises` turns the signal into :class:`Terminated`, which unwinds like
Ctrl-C's ``KeyboardInterrupt``.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

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
