"""Show simple LaTeX as plain text a teacher reads at a glance: ``$$\\frac{a}{b}$$`` -> ``a/b``.

Not a renderer: it strips math delimiters, turns common commands into Unicode
(``\\times`` ×, ``\\le`` ≤, ``\\sqrt{x}`` √x, ``x^{2}`` x²) and leaves anything it
does not know as written, so nothing is ever lost.
"""

from __future__ import annotations

import functools
import re

from kg.latex import ACCENTS, FRACTIONS, SYMBOLS, TEXT_COMMANDS, latex_argument

_SUP = str.maketrans("0123456789+-=()nixyabk", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱˣʸᵃᵇᵏ")
_SUB = str.maketrans("0123456789+-=()aeoxnmk", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₒₓₙₘₖ")
_SUP_CHARS = set("0123456789+-=()nixyabk")
_SUB_CHARS = set("0123456789+-=()aeoxnmk")
_DELIMITERS = re.compile(r"\$\$|\$|\\\(|\\\)|\\\[|\\\]")
_COMMAND = re.compile(r"\\([A-Za-z]+|.?)", re.S)
_MAX_DEPTH = 24
"""Groups nested deeper are shown as written. The page's KaTeX stops at the same depth; before, a stem or a
model's step of ``\\frac{`` 1,500 deep ended ``report`` in a ``RecursionError``, on every try."""


@functools.lru_cache(maxsize=1 << 16)  # reports repeat the same sentences many times
def simplify_latex(text: str) -> str:
    """``text`` with its LaTeX shown as plain Unicode text; text without LaTeX comes back unchanged."""
    if "\\" not in text and "$" not in text and "^" not in text and "_{" not in text:
        return text
    return _convert(_DELIMITERS.sub("", text))


def _wrap(part: str) -> str:
    """Parenthesise a fraction part that is more than one term."""
    return f"({part})" if re.search(r"[+\-−×÷·/ ]", part.strip()) else part.strip()


def _script(body: str, table: dict[int, int], chars: set[str], mark: str) -> str:
    if body == "°":
        return "°"
    if body and set(body) <= chars:
        return body.translate(table)
    return f"{mark}({body})" if len(body) > 1 else f"{mark}{body}"


def _convert(text: str, depth: int = 0) -> str:
    if depth > _MAX_DEPTH:  # shown as written: nothing lost, and no RecursionError (#32, fresh round)
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            match = _COMMAND.match(text, i)
            assert match is not None  # a backslash always matches, a lone trailing one with an empty name
            name, i = match.group(1), match.end()
            if name.isalpha():
                while i < len(text) and text[i] == " ":  # LaTeX drops the spaces after a control word
                    i += 1
            if name in FRACTIONS:
                top, i = latex_argument(text, i)
                bottom, i = latex_argument(text, i)
                out.append(f"{_wrap(_convert(top, depth + 1))}/{_wrap(_convert(bottom, depth + 1))}")
            elif name == "sqrt":
                index = ""
                end = text.find("]", i) if i < len(text) and text[i] == "[" else -1
                if end >= 0:  # an unclosed "[" is text, not a root's index
                    index, i = text[i + 1 : end], end + 1
                body, i = latex_argument(text, i)
                root = {"3": "∛", "4": "∜"}.get(index, (index.translate(_SUP) if index else "") + "√")
                inner = _convert(body, depth + 1)
                out.append(root + (inner if len(inner) <= 1 or inner.isalnum() else f"({inner})"))
            elif name in ("underline", "uline"):  # a blank of a fill-in stem when empty
                body, i = latex_argument(text, i)
                inner = _convert(body, depth + 1).strip()
                out.append(inner or "____")
            elif name in ("begin", "end"):  # an environment's name is not text (cases: a brace)
                env, i = latex_argument(text, i)
                out.append("{" if name == "begin" and env.strip() == "cases" else "")
            elif name in TEXT_COMMANDS:
                body, i = latex_argument(text, i)
                out.append(_convert(body, depth + 1))
            elif name in ACCENTS:
                body, i = latex_argument(text, i)
                out.append("".join(c + ACCENTS[name] for c in _convert(body, depth + 1)))
            elif name in SYMBOLS:
                out.append(SYMBOLS[name])
            elif i < len(text) and text[i] == "{":
                body, i = latex_argument(text, i)
                out.append(f"{match.group(0)}{{{_convert(body, depth + 1)}}}")  # unknown: kept as written
            else:
                out.append(match.group(0))
        elif ch in "^_" and i + 1 < len(text):
            body, i = latex_argument(text, i + 1)
            converted = _convert(body, depth + 1)
            if ch == "^":
                out.append(_script(converted, _SUP, _SUP_CHARS, "^"))
            else:
                out.append(_script(converted, _SUB, _SUB_CHARS, "_"))
        elif ch in "{}":
            i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)
