"""What a killed command left is removed only when its process has ended on this machine (review of workloss
item 3).

Before: the names carried the process id alone, and ``remove_abandoned`` asked this machine whether that id still
ran. A cache on a shared filesystem (cluster nodes, containers sharing a volume) holds the pulls of other machines:
their ids are unknown here, so a pull running elsewhere lost its download or staging folder midway, and a forced
pull elsewhere, between its two renames, saw its old model put back over its new one.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from runners.leftovers import OWNER, owner, remove_abandoned
from tests._leftovers import elsewhere, ended_owner

PATTERNS = (re.compile(rf"\.staging-.+-{OWNER}"), re.compile(rf"\.replaced-(?P<home>.+)-{OWNER}"))


def test_only_this_machine_s_ended_processes_lose_their_leftovers(tmp_path: Path) -> None:
    dead = ended_owner()
    alive = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        here = dead.split("@", 1)[1]
        names = {
            "killed here": f".staging-数学-{dead}",
            "running elsewhere": f".staging-数学-{elsewhere(dead)}",
            "an older k12eval's": f".staging-数学-{dead.split('@')[0]}",
            "running here": f".staging-数学-{alive.pid}@{here}",
            "this process's": f".staging-数学-{owner()}",
        }
        for name in names.values():
            (tmp_path / name).mkdir()
            (tmp_path / name / "w.bin").write_bytes(b"\0" * 64)
        moved_elsewhere = tmp_path / f".replaced-tiny-{elsewhere(dead)}"  # between a forced pull's two renames
        moved_elsewhere.mkdir()

        assert remove_abandoned(tmp_path, PATTERNS) == [names["killed here"]]
        left = {p.name for p in tmp_path.iterdir()}
        assert left == {*names.values(), moved_elsewhere.name} - {names["killed here"]}
        assert not (tmp_path / "tiny").exists()  # not put back over the other machine's new copy
    finally:
        alive.communicate(b"")
