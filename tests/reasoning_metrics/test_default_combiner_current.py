"""The shipped default combiner is what its fitting script makes of today's detectors (#36 items 1 and 3).

``reasoning_metrics/combine/default_combiner.json`` is the step verdict ``score`` applies and every combiner figure
of README.md and docs/detectors.md is measured with. Its features are the detectors' outputs: a detector changed
after the fit (stop 43's rounding rule moved four arithmetic claims) leaves a file that
``python scripts/fit_default_combiner.py`` no longer makes, and figures quoted for a fit nobody can repeat. This
test runs the script to a temporary file and asserts it equals the shipped one, the package version aside.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "reasoning_metrics" / "combine" / "default_combiner.json"


def _differences(old: object, new: object, at: str = "") -> list[str]:
    """Where two JSON values differ, as ``path: old -> new`` lines; numbers equal to 6 significant digits are the same
    (another machine's floating point may move the last digits of a fit, never a value)."""
    if isinstance(old, dict) and isinstance(new, dict):
        return [
            line
            for key in sorted(old.keys() | new.keys())
            for line in _differences(old.get(key), new.get(key), f"{at}.{key}")
        ]
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [
            line for i, (a, b) in enumerate(zip(old, new, strict=True)) for line in _differences(a, b, f"{at}[{i}]")
        ]
    numbers = all(isinstance(v, float | int) and not isinstance(v, bool) for v in (old, new))
    same = math.isclose(old, new, rel_tol=1e-6, abs_tol=1e-9) if numbers else old == new  # type: ignore[arg-type]
    return [] if same else [f"  {at or '.'}: {old!r} -> {new!r}"]


@pytest.mark.slow
@pytest.mark.shared_data
def test_the_shipped_default_combiner_is_what_the_script_fits_today(shared_data: Path, tmp_path: Path) -> None:
    """Fails, naming the command that makes the file again, when a refit on the same sets gives another file."""
    out = tmp_path / "default_combiner.json"
    env = {**os.environ, "K12EVAL_CK12": str(shared_data / "ck12")}
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "fit_default_combiner.py"), "--shared", str(shared_data), "--out", str(out)],
        capture_output=True, text=True, env=env, timeout=900, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    shipped, now = (json.loads(p.read_text(encoding="utf-8")) for p in (SHIPPED, out))
    for fitted in (shipped, now):
        fitted.pop("package_version", None)
        for own in fitted.get("languages", {}).values():
            own.pop("package_version", None)
    differ = _differences(shipped, now)
    if differ:
        pytest.fail(
            "reasoning_metrics/combine/default_combiner.json is stale: the script fits another file today "
            f"({len(differ)} values differ; shipped -> now):\n"
            + "\n".join(differ[:12])
            + "\nFit it again (about 20 s):\n  python scripts/fit_default_combiner.py\n"
            "then re-measure the combiner figures of README.md and docs/detectors.md with their documented commands.",
            pytrace=False,
        )
