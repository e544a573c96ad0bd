"""Reading LaTeX as it appears in question and answer texts, shared by the report and the verifier.

Holds the one set of LaTeX command tables both read (:data:`SYMBOLS`, :data:`ARITHMETIC`, ...).
"""

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


# The LaTeX command tables of the report's display (reports.latex_text) and the verifier's
# arithmetic reading (reasoning_metrics.verify): one home, so a command learnt by one is
# seen next to the other's. Names are without the backslash.

FRACTIONS = frozenset({"frac", "dfrac", "tfrac", "cfrac"})
"""Commands of a fraction: two arguments, numerator then denominator."""

TEXT_COMMANDS = frozenset({
    "text", "mathrm", "mathbf", "mathit", "textbf", "textit", "textrm", "textnormal", "mbox",
    "operatorname", "boldsymbol", "rm", "bf",
})  # fmt: skip
"""Commands whose one argument is shown as its text (font and text-mode switches)."""

ACCENTS = {
    "overline": "\u0305", "bar": "\u0304", "vec": "\u20d7", "overrightarrow": "\u20d7", "overleftarrow": "\u20d6",
    "hat": "\u0302", "widehat": "\u0302", "tilde": "\u0303", "widetilde": "\u0303",
}  # fmt: skip
"""Accent command -> the combining mark the display puts after each character of its argument
(``\\overrightarrow{AB}`` is A⃗B⃗, as a teacher writes the vector; every accent the verifier names, :data:`ACCENT_NAMES`)."""

ACCENT_NAMES = {
    "overrightarrow": "vec", "overleftarrow": "vec", "vec": "vec", "overline": "bar", "bar": "bar",
    "hat": "hat", "widehat": "hat", "tilde": "tilde", "widetilde": "tilde",
}  # fmt: skip
"""Accent command -> what the verifier appends to the name under it (``\\overrightarrow{AB}`` is ``AB_vec``, a
name of its own); the display marks them all (:data:`ACCENTS`)."""

SYMBOLS = {
    "times": "×", "div": "÷", "cdot": "·", "pm": "±", "mp": "∓", "le": "≤", "leq": "≤", "ge": "≥",
    "geq": "≥", "leqslant": "≤", "geqslant": "≥", "ne": "≠", "neq": "≠", "lt": "<", "gt": ">", "approx": "≈", "equiv": "≡", "sim": "∼", "infty": "∞",
    "pi": "π", "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "theta": "θ", "lambda": "λ", "mu": "μ", "rho": "ρ", "sigma": "σ", "phi": "φ", "varphi": "φ",
    "omega": "ω", "Delta": "Δ", "Omega": "Ω", "Sigma": "Σ", "angle": "∠", "triangle": "△",
    "circ": "°", "degree": "°", "parallel": "∥", "perp": "⊥", "in": "∈", "notin": "∉",
    "subset": "⊂", "subseteq": "⊆", "supset": "⊃", "cup": "∪", "cap": "∩", "emptyset": "∅",
    "varnothing": "∅", "therefore": "∴", "because": "∵", "rightarrow": "→", "to": "→",
    "Rightarrow": "⇒", "leftarrow": "←", "Leftarrow": "⇐", "leftrightarrow": "↔",
    "Leftrightarrow": "⇔", "uparrow": "↑", "downarrow": "↓", "forall": "∀", "exists": "∃",
    "neg": "¬", "land": "∧", "lor": "∨", "cong": "≅", "odot": "⊙", "prime": "′", "ldots": "…",
    "cdots": "⋯", "dots": "…", "quad": " ", "qquad": "  ", ",": " ", ";": " ", ":": " ", "!": "",
    " ": " ", "%": "%", "{": "{", "}": "}", "_": "_", "&": "&", "#": "#", "$": "$", "\\": " ",
    "left": "", "right": "", "big": "", "Big": "", "bigg": "", "displaystyle": "", "limits": "",
    "lbrace": "{", "rbrace": "}", "langle": "⟨", "rangle": "⟩", "lg": "lg", "ln": "ln", "log": "log",
    "sin": "sin", "cos": "cos", "tan": "tan", "cot": "cot", "lim": "lim", "max": "max", "min": "min",
    "overset": "", "underset": "",
}  # fmt: skip
"""Command -> the Unicode text a teacher reads in the report (``\\le`` -> ``≤``)."""

ARITHMETIC = {
    "times": " × ",
    "cdot": " × ",
    "ast": " × ",
    "div": " ÷ ",
    "approx": " ≈ ",
    "neq": " ≠ ",
    "ne": " ≠ ",
    "leq": " ≤ ",
    "le": " ≤ ",
    "leqslant": " ≤ ",
    "geq": " ≥ ",
    "ge": " ≥ ",
    "geqslant": " ≥ ",
    "lt": " < ",
    "gt": " > ",
    "pi": " pi ",
    "%": "%",
    "$": " ",
    "{": " ( ",
    "}": " ) ",
}
"""Command -> the verifier's arithmetic reading (spaced operators: ``\\cdot`` is a product there, ``·`` in the display)."""

SPACING = frozenset(
    {
        "(",
        ")",
        ",",
        ";",
        ":",
        "!",
        " ",
        "quad",
        "qquad",
        "left",
        "right",
        "big",
        "Big",
        "bigl",
        "bigr",
        "Bigl",
        "Bigr",
    }
)
"""Commands the verifier reads as a space (spacing, sizing, delimiters it ignores)."""

ELLIPSES = frozenset({"cdots", "ldots", "dots", "cdot\\cdot"})
"""Commands the verifier reads as an ellipsis."""

BREAKS = frozenset(
    {
        "\\",
        "[",  # \[ ... \]: each displayed equation is a statement of its own
        "]",
        "Rightarrow",
        "Leftarrow",
        "Leftrightarrow",
        "rightarrow",
        "to",
        "implies",
        "therefore",
        "because",
        "lfloor",
        "rfloor",
        "lceil",
        "rceil",
        "pm",
        "mp",
    }
)
"""Commands that end a statement for the verifier (arrows, line breaks, floors, ±)."""
