"""The LaTeX argument reader shared by the report's plain text and the verifier's normaliser."""

from __future__ import annotations

import pytest

from kg.latex import latex_argument


@pytest.mark.parametrize(
    ("text", "start", "expected"),
    [
        ("{a{b}c}d", 0, ("a{b}c", 7)),
        ("  {x}", 0, ("x", 5)),
        ("{open", 0, ("open", 5)),
        ("\\alpha+1", 0, ("\\alpha", 6)),
        ("\\,x", 0, ("\\,", 2)),
        ("\\\nx", 0, ("\\\n", 2)),
        ("x\\", 1, ("\\", 2)),
        ("23", 0, ("2", 1)),
        ("ab   ", 2, ("", 5)),
    ],
)
def test_latex_argument(text: str, start: int, expected: tuple[str, int]) -> None:
    assert latex_argument(text, start) == expected
