"""One set of LaTeX command tables (kg.latex) for the report's display and the verifier's reading."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.latex import ACCENT_NAMES, ACCENTS, ARITHMETIC, FRACTIONS, SYMBOLS, TEXT_COMMANDS
from reasoning_metrics.verify._normalize import normalize
from reports.latex_text import simplify_latex

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("command", ["textrm", "textnormal", "mbox", "boldsymbol", "mathbf"])
def test_a_text_command_reads_the_same_in_the_report_and_the_verifier(command: str) -> None:
    assert command in TEXT_COMMANDS
    assert simplify_latex(f"$\\{command}{{km}}$") == "km"
    assert command not in normalize(f"\\{command}{{v}} = 3")


def test_the_tables_have_one_home() -> None:
    # A second definition of a table is how the display and the verifier drifted apart before.
    for path in (REPO / "reports" / "latex_text.py", REPO / "reasoning_metrics" / "verify" / "_normalize.py"):
        text = path.read_text(encoding="utf-8")
        assert '"dfrac"' not in text and '"mathrm"' not in text and '"leq"' not in text, path.name
        assert '"overrightarrow"' not in text and '"widehat"' not in text, path.name
    assert {"frac", "dfrac"} <= FRACTIONS and SYMBOLS["le"] == "≤" and ARITHMETIC["le"] == " ≤ "


@pytest.mark.parametrize("command", sorted(ACCENT_NAMES))
def test_every_accent_the_verifier_reads_carries_a_mark_on_the_page(command: str) -> None:
    # \overrightarrow, \overleftarrow and \tilde were read by the verifier and shown bare on the page (#36)
    shown = simplify_latex(f"$\\{command}{{AB}}$")
    assert shown == f"A{ACCENTS[command]}B{ACCENTS[command]}" and "\\" not in shown
