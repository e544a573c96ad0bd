"""Reading LaTeX as it appears in question and answer texts, shared by the report and the verifier."""

from __future__ import annotations

import re

_COMMAND = re.compile(r"\\(?:[A-Za-z]+|.)", re.S)


def latex_argument(text: str, i: int) -> tuple[str, int]:
    """The argument starting at ``text[i]`` (spaces skipped) and the index after it.

    A ``{...}`` group gives its contents (nested braces balanced; an unclosed group runs to
    the end), a command gives itself (``\\alpha``, ``\\,``), anything else one character.
    At the end of ``text`` the argument is empty.
    """
    n = len(text)
    while i < n and text[i] == " ":
        i += 1
    if i >= n:
        return "", i
    if text[i] == "{":
        depth = 0
        for j in range(i, n):
            if text[j] == "{":
                depth += 1
            elif text[j] == "}":
                depth -= 1
                if depth == 0:
                    return text[i + 1 : j], j + 1
        return text[i + 1 :], n
    if text[i] == "\\":
        match = _COMMAND.match(text, i)
        if match:
            return match.group(0), match.end()
    return text[i], i + 1
