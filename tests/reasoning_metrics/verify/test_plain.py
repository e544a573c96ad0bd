"""The plain reading of a step's LaTeX that the fact and formula rules read (reasoning_metrics.verify._plain)."""

import pytest

from reasoning_metrics.verify._plain import plain


@pytest.mark.parametrize(
    ("latex", "expected"),
    [
        (r"\left( x+1 \right)", "( x+1 )"),  # \left is not \le followed by "ft"
        (r"a \le b", "a ≤ b"),
        (r"a \leq b \leqslant c", "a ≤ b ≤ c"),
        (r"a \ne b \neq c", "a ≠ b ≠ c"),  # \ne alone is a command too
        (r"a \lt b \gt c", "a < b > c"),
        (r"\newline x", r"\newline x"),  # \ne is not the start of \newline
        (r"2\times 3", "2× 3"),
        (r"2\pi r", "2π r"),
    ],
)
def test_commands_are_read_as_whole_names(latex: str, expected: str) -> None:
    assert plain(latex) == expected
