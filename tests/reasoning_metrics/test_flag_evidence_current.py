"""The shipped flag evidence is what today's detectors do (#36 items 2 and 6).

``reasoning_metrics/flag_evidence.json`` decides which kinds of flag the page and ``score`` show as warnings;
docs/detectors.md prints its tables. Both are the output of one command, recorded in the file. A detector
changed after it ran leaves the file describing code that no longer exists, silently: this test reruns the
command's own path (``k12eval meta-eval --flag-rates``) without an encoder on the same labelled sets and asserts
that every kind that needs no encoder counts what the file stores. The kinds raised from similarities (and a
detector that reads them, ``repetition``) need the e5 encoder, 16.5 min niced on the shared two cores at 4fd4e66: not checked here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
EVIDENCE = REPO / "reasoning_metrics" / "flag_evidence.json"
REGENERATE = (
    "K12EVAL_SHARED_DATA=../shared/data nice -n 19 .venv/bin/k12eval meta-eval {data} --format {format} "
    "--flag-rates --nli {nli} --out reasoning_metrics/flag_evidence.json"
)
"""How the file is made again (16.5 min niced on 2 shared cores at 4fd4e66), then docs/detectors.md's tables from what it prints."""


def _without_encoder(stored: dict[str, Any]) -> set[str]:
    """The stored kinds whose counts no encoder changes: raised by a detector that reads no similarity."""
    from reasoning_metrics.verify.registry import DETECTORS

    encoder_free = {str(kind) for d in DETECTORS.values() if "roscoe" not in d.reads for kind in d.kinds}
    return {kind for kind, row in stored["kinds"].items() if row["source"] == "detector" and kind in encoder_free}


@pytest.mark.slow
@pytest.mark.shared_data
def test_the_shipped_flag_evidence_counts_what_the_detectors_do_today(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fails, naming the command that makes the file again, when a detector now counts otherwise on the sets
    the file was measured on (at 4c9f8c6's file: false_fact, reference_answer, reference_departure, wrong_verdict)."""
    from typer.testing import CliRunner

    from k12eval.cli import app

    stored = json.loads(EVIDENCE.read_text(encoding="utf-8"))
    assert stored["format"] == "ck12-labels" and stored["nli"] == "none"  # what the rerun below can repeat
    assert stored["command"].startswith(f"k12eval meta-eval {stored['data']} ")
    monkeypatch.setenv("K12EVAL_CK12", str(shared_data / "ck12"))
    monkeypatch.chdir(REPO)  # the file names its sets relative to the checkout
    out = tmp_path / "evidence.json"
    args = [stored["data"], "--format", stored["format"], "--flag-rates", "--nli", stored["nli"]]
    result = CliRunner().invoke(app, ["meta-eval", *args, "--encoder", "none", "--boot", "0", "--out", str(out)])
    assert result.exit_code == 0, result.output
    now = json.loads(out.read_text(encoding="utf-8"))
    assert now["solutions"] == stored["solutions"]

    kinds = _without_encoder(stored)
    assert {"arithmetic", "wrong_verdict", "reference_departure"} <= kinds  # the check below covers the warnings
    found = _without_encoder(now) | kinds
    differ = []
    for kind in sorted(found):
        old, new = stored["kinds"].get(kind), now["kinds"].get(kind)
        if old is None or new is None:
            differ.append(f"  {kind}: {'not stored' if old is None else 'no longer raised by any detector'}")
        elif old != new:
            differ.append(f"  {kind}: {_counts(old)} -> {_counts(new)}")
    if differ:
        rerun = REGENERATE.format(data=stored["data"], format=stored["format"], nli=stored["nli"])
        pytest.fail(
            "reasoning_metrics/flag_evidence.json is stale: today's detectors count differently (stored -> now; "
            "[fired, steps] on first wrong steps, then on right steps; dev | confirm):\n"
            + "\n".join(differ)
            + f"\nRegenerate it (about 17 min on 2 shared cores):\n  {rerun}\n"
            "then replace the --flag-rates tables of docs/detectors.md with what the command printed.",
            pytrace=False,
        )


def _counts(row: dict[str, Any]) -> str:
    """One kind's stored counts, both halves, as the failure message shows them."""
    return " | ".join(f"{row[half]['wrong']} {row[half]['right']}" for half in ("dev", "confirm"))
