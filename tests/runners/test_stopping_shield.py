"""SIGINT and SIGTERM wait while an answer is handed over and written (#33 item 1)."""

from __future__ import annotations

import os
import signal

import pytest

from runners.stopping import Terminated, shielded, signals_raise


@pytest.mark.parametrize(("signum", "raised"), [(signal.SIGTERM, Terminated), (signal.SIGINT, KeyboardInterrupt)])
def test_a_signal_in_a_shield_is_raised_when_the_shield_ends(signum: int, raised: type[BaseException]) -> None:
    done = []
    with signals_raise(), pytest.raises(raised), shielded():
        os.kill(os.getpid(), signum)
        with shielded():  # shields nest: the outer one's end raises it
            done.append("inner")
        os.kill(os.getpid(), signal.SIGINT)  # a second signal while one is held: the first is raised
        done.append("outer")
    assert done == ["inner", "outer"]


def test_outside_a_shield_a_signal_raises_at_once_and_the_handlers_are_restored() -> None:
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    with signals_raise(), pytest.raises(Terminated):
        os.kill(os.getpid(), signal.SIGTERM)
        pytest.fail("SIGTERM did not raise")  # pragma: no cover
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before
    with pytest.raises(KeyboardInterrupt), shielded():  # without signals_raise a shield holds nothing back
        os.kill(os.getpid(), signal.SIGINT)
        pytest.fail("SIGINT did not raise")  # pragma: no cover
