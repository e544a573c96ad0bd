"""Names a killed command leaves (:mod:`runners.leftovers`), made for tests: the owner of a process that has ended
on this machine, and of one on another machine sharing the folder."""

from __future__ import annotations

import subprocess
import sys

from runners.leftovers import owner


def here(pid: int) -> str:
    """``PID@HOST`` of process ``pid`` of this machine."""
    return f"{pid}@{owner().split('@', 1)[1]}"


def ended_owner() -> str:
    """``PID@HOST`` of a process of this machine that has ended (no other process has taken its id since, on a
    machine that starts few)."""
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return here(int(child.stdout))


def elsewhere(named: str) -> str:
    """The same ``PID@HOST`` with another machine's digest: a process this machine cannot ask about."""
    pid, host = named.split("@", 1)
    return f"{pid}@{'0' * 8 if host != '0' * 8 else '1' * 8}"
