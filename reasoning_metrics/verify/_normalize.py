"""Step text rewritten into one plain arithmetic notation: LaTeX, Unicode and Chinese forms unified.

The result is still prose with numbers in it; :mod:`._lexer` finds the
calculations. What changes: ``\\frac{a}{b}`` -> ``((a)/(b))``, ``\\sqrt[3]{x}`` ->
``((x)^(1/(3)))``, ``\\times \\cdot`` -> ``×``, ``\\text{kg}`` -> `` kg ``,
full-width ``＝＋－（）１２`` -> ASCII, ``²`` -> ``^(2)``, Chinese punctuation ->
ASCII separators (so ``，`` never reads as a thousands separator), Chinese numerals
and operator words -> digits and symbols, ``X 的值约等于 Y`` -> ``X ≈ Y``.

Constants and angles, only where the text leaves no doubt: ``e`` is Euler's number written
``\\mathrm{e}``, after ``ln`` (``ln e``, ``ln(e)``) or before a power (``e^{2}``) in a step that names no conic
(in one that does, ``e`` is the eccentricity, 离心率); else a variable, or the elementary charge of physics; ``\\mathrm{i}``
and ``\\text{i}`` are the imaginary unit, and so is a lone ``i`` in a step that speaks of 复数 or
虚数 (else an index: ``a_i``, ``\\sum_{i=1}``); degrees (``30°``, ``30^\\circ``) become radians
inside the argument of ``sin cos tan cot`` only (elsewhere ``°`` stays a unit).
"""

from __future__ import annotations

import re
import unicodedata
from fractions import Fraction

from kg.latex import ACCENT_NAMES, ARITHMETIC, BREAKS, ELLIPSES, FRACTIONS, SPACING, TEXT_COMMANDS, latex_argument
from reasoning_metrics.verify._chinese import rewrite_chinese

MAX_LATEX_DEPTH = 40
"""Deeper nesting of LaTeX groups is left as it is (and will not parse): no unbounded recursion."""

_SUBSCRIPT_LABEL = re.compile(r"[A-Za-z0-9\u4e00-\u9fff+\-]{1,8}")
_FUNCTION_VALUE = re.compile(
    r"(?<![A-Za-z0-9_])([fghpqPQ]|[A-Za-z](?=\s{0,3}['′]))\s{0,3}(['′]{0,3})\s{0,3}"
    r"\(\s{0,3}(-?[A-Za-z0-9.π]{1,12}(?:\s{0,3}[+-]\s{0,3}[A-Za-z0-9.π]{1,12})?)\s{0,3}\)"
)
"""``f(2)``, ``g(x+1)``, ``P(A)``, ``y'(π)``: the value of a function (or its derivative), named ``f_2``,
``g_xp1``, ``P_A``, ``y_dpi`` (not ``f × 2``, nor the ``(π)`` a value of its own). Every repetition is
bounded: a letter before a long run of spaces costs no more than a few steps."""
_LABEL_SIGNS = str.maketrans({"+": "p", "-": "m", ".": "d", "π": "pi"})
_ACCENTED_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]{0,3}")
_BRACED_NAME = re.compile(r"^\(+([A-Za-z]|[\u0370-\u03ff])\)+$")
"""``{m}`` or ``{{m}}`` before a subscript, already rewritten to ``(m)``: the name is ``m``."""
_REMAINDER = re.compile(
    r"(?<=[\d)])\s*[,;]?\s*(?:[\u4e00-\u9fff]{1,2}\s*)??(?:余数?\s*[为是]?|\b(?:remainder|rem)\b)\s*(?=\d)", re.I
)
"""``11 ÷ 3 = 3（个）余 2``: a quotient with its remainder, elided like ``3……2`` (not a rounded ``11/3``)."""
_DOT = r"\\dot\s*\{?\s*(\d)\s*\}?"
_REPEATING = re.compile(rf"(?<![\d.])(\d+)\.(\d*){_DOT}(?:(\d*){_DOT})?")
"""``0.91\\dot{6}``, ``0.\\dot{1}4285\\dot{7}``: a repeating decimal (循环小数), its dots over the first and last
digits of the repeating block."""
_COMPOUND = re.compile(
    r"(?<=\d)\s*\(?(?:小时|时|天|元|千米|公里|米|分米|千克|公斤|吨)\)?\s*"
    r"(?=\d+(?:\.\d+)?\s*\(?(?:分钟|分(?!之)|秒|角|厘米|分米|毫米|米|千克|克|小时|时)\)?)"
)
"""The unit between the parts of a compound quantity (复名数: ``3小时50分``, ``3元8角``, ``1千克250克``), elided like
a remainder: the quantity is not its first part (3), and its parts are not one number."""
_MIXED_CHINESE = re.compile(r"(?<![\d.])(\d+)\s*又\s*(\d+\s*/\s*\d+|\d+\s*分之\s*\d+)(?![\d./])")
"""``3又2/3``, ``1又4分之3``: a mixed number in plain text (带分数), the whole part plus the fraction."""
_CIRCLED = re.compile(r"[\u2460-\u2473\u24f5-\u24fe\u2776-\u277f]")
_BRACED_DIGITS = re.compile(r"(\d)\{\s*([.\d])")
_MIXED_NUMBER = re.compile(r"(?<![\d.])(\d+)\\[dt]?frac\{(\d+)\}\{(\d+)\}")
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_SUPERSCRIPT_RUN = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+")
_VULGAR = {"½": "(1/2)", "⅓": "(1/3)", "⅔": "(2/3)", "¼": "(1/4)", "¾": "(3/4)", "⅕": "(1/5)", "⅛": "(1/8)"}
_VALUE_OF = re.compile(r"的值[\s;，,]{0,6}(?:约等于|约为|≈)")
"""``4 sin(1/4) 的值，约等于 1.0002``: the approximate value of a calculation, stated (``的值为`` is not
read: it mostly names what a letter stands for, ``n 的值为 3``, which other detectors read as prose)."""
_EULER_POWER = re.compile(r"(?<![A-Za-z_\\])e(?=\s{0,3}\^)")
_LN_E = re.compile(r"(?<![A-Za-z])ln\s{0,3}(?:e(?![A-Za-z_])|\(\s{0,3}e\s{0,3}\))")
"""``ln e``, ``ln(e)``, ``\\ln{e}``: the logarithm of Euler's number."""
_CONIC_WORDS = re.compile(r"离心率|椭圆|双曲线|抛物线|eccentricity|ellipse|hyperbola|parabola")
"""A step about a conic: ``e`` is its eccentricity, and ``e^2`` its square, not a power of Euler's number."""
_IMAGINARY = re.compile(r"(?<![A-Za-z_\\])i(?![A-Za-z_])")
_SPACED_FACTOR = re.compile(r"(?<=[\dⅈ)])\s+(?=\()")
_COMPLEX_WORDS = re.compile(r"复数|虚数|虚部|实部")
_INDEX_I = re.compile(r"\\sum|\\prod|_\{?\s*i(?![A-Za-z])|(?<![A-Za-z\\])i\s*=")
"""``i`` is an index in this text (``\\sum_{i=1}``, ``a_i``, ``i = 1``): a lone ``i`` is not the imaginary unit."""
_TRIG_DEGREES = re.compile(
    r"(?<![A-Za-z])(sin|cos|tan|cot)(\s*\^\s*(?:\(\s*\d\s*\)|\d))?\s*"
    r"(\(([^()]{0,200}(?:\([^()]{0,200}\)[^()]{0,200}){0,10})\)|-?\d+(?:\.\d+)?\s*(?:°|degrees\b))"
)
"""A trigonometric function and its argument: a parenthesised group (one level of nesting) or a number in degrees."""
_DEGREE_NUMBER = re.compile(r"(\d+(?:\.\d+)?)\s*(?:°|degrees\b)(?!\s*[CF](?![A-Za-z]))")
_CJK_PUNCT = str.maketrans({"，": "; ", "。": ". ", "；": "; ", "：": ": ", "、": "; ", "？": "? ", "！": "! "})
_SYMBOLS = str.maketrans(
    {
        "−": "-",
        "∙": "×",
        "·": "×",
        "⋅": "×",
        "✕": "×",
        "∗": "×",
        "∕": "/",
        "⁄": "/",
        "≃": "≈",
        "≒": "≈",
        "≦": "≤",
        "⩽": "≤",
        "≧": "≥",
        "⩾": "≥",
        "［": "(",
        "］": ")",
        "$": " ",
        "¥": " ",
        "€": " ",
        "£": " ",
        "\u3000": " ",
    }
)


def normalize(text: str, *, conic: bool = False) -> str:
    """``text`` with every arithmetic notation rewritten into one plain form (see the module doc).

    ``conic``: the text belongs to a question or solution about a conic (:func:`names_conic`), so ``e`` is its
    eccentricity even where the text itself does not say 离心率."""
    text = _SUPERSCRIPT_RUN.sub(lambda m: "^(" + m.group(0).translate(_SUPERSCRIPTS) + ")", text)
    for char, plain in _VULGAR.items():
        text = text.replace(char, plain)
    text = text.translate(_CJK_PUNCT)
    text = _CIRCLED.sub(" 式 ", text)  # ①②③ label equations; NFKC would turn them into numbers
    text = unicodedata.normalize("NFKC", text)
    text = _BRACED_DIGITS.sub(r"\1\2", text)  # 0{.3A}, 12{0N}: braces splitting a number
    text = _REPEATING.sub(_repeating, text)
    text = _MIXED_NUMBER.sub(r"(\1+\\frac{\2}{\3})", text)  # 7\frac{1}{9} is 7 + 1/9
    text = re.sub(r"(?<=\d)\\,(?=\d{3})", "", text)
    text = text.replace("{,}", ",").replace("{}", " ")
    text = re.sub(r"\^\s*\{?\s*\\circ\s*\}?", " degrees ", text)
    text = _VALUE_OF.sub(" ≈ ", text)
    index_i = bool(_INDEX_I.search(text))
    text = _latex(text, 0)
    text = _constants(text, imaginary=not index_i, conic=conic)
    text = _FUNCTION_VALUE.sub(_function_value, text)
    text = text.replace("√", " sqrt ").replace("…", " ⋯ ").replace("...", " ⋯ ")
    text = _REMAINDER.sub(" ⋯ ", text)
    text = _COMPOUND.sub(" ⋯ ", text)
    text = _MIXED_CHINESE.sub(r"(\1+\2)", text)  # before 分之 is read: 1又4分之3 is 1 + 3/4
    text = rewrite_chinese(text)
    return text.translate(_SYMBOLS)


def _repeating(match: re.Match[str]) -> str:
    """A repeating decimal as its exact value, ``(11/12)`` for ``0.91\\dot{6}``: read without its dots it is a
    different, shorter number (0.91), and a right step reads as a wrong one."""
    whole, fixed, first, middle, last = match.groups()
    block = first + (middle + last if last is not None else "")
    head = int(whole + fixed)
    value = Fraction(int(whole + fixed + block) - head, 10 ** len(fixed) * (10 ** len(block) - 1))
    return f"({value.numerator}/{value.denominator})"


def _latex(text: str, depth: int) -> str:
    if "\\" not in text and "{" not in text and "^" not in text and "_" not in text:
        return text
    if depth > MAX_LATEX_DEPTH:
        return text
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == "\\":
            i = _command(text, i + 1, depth, out)
        elif char == "^" and text[i + 1 : i + 2] in ("{", "\\"):
            arg, i = latex_argument(text, i + 1)
            out.append("^(" + _latex(arg, depth + 1) + ")")
        elif char == "_":
            i = _subscript(text, i + 1, out)
        elif char == "{":
            arg, i = latex_argument(text, i)
            out.append("(" + _latex(arg, depth + 1) + ")")
        elif char == "}":
            out.append(")")
            i += 1
        else:
            out.append(char)
            i += 1
    return "".join(out)


def names_conic(text: str) -> bool:
    """Whether ``text`` speaks of a conic (离心率, 椭圆, 双曲线, 抛物线): its ``e`` is an eccentricity."""
    return bool(_CONIC_WORDS.search(text))


def _constants(text: str, imaginary: bool, conic: bool) -> str:
    """Euler's number, the imaginary unit and angles in degrees marked where they are unambiguous
    (see the module doc)."""
    text = _LN_E.sub(" ln ℯ ", text)
    if not conic and not names_conic(text):
        text = _EULER_POWER.sub(" ℯ", text)
    if imaginary and _COMPLEX_WORDS.search(text):
        text = _IMAGINARY.sub(" ⅈ ", text)
    if "ⅈ" in text:  # 3 (1-i), i (1+i): a product of complex numbers, however spaced
        text = _SPACED_FACTOR.sub("", text)
    return _TRIG_DEGREES.sub(_radians, text)


def _radians(match: re.Match[str]) -> str:
    """A trigonometric function whose argument's degrees are rewritten as radians."""
    head = match.group(1) + (match.group(2) or "") + " "
    argument = match.group(3)
    return head + "(" + _DEGREE_NUMBER.sub(r"((\1) × pi / 180)", argument) + ")"


def _function_value(match: re.Match[str]) -> str:
    label = re.sub(r"\s", "", match.group(3)).translate(_LABEL_SIGNS)
    return f"{match.group(1)}_{'d' * len(match.group(2))}{label} "


def _subscript(text: str, i: int, out: list[str]) -> int:
    """Attach the subscript starting at ``text[i]`` to the name before it; return the index after it.

    ``a_1``, ``a_{n+1}``, ``m_{水}``, ``{m}_{液}`` name variables of their own (``a_1`` is not ``a_2``,
    ``m_水`` is not ``m_液``): the subscript joins the name as ``a_1``, ``a_np1``, ``m_水``. A subscript
    that is not a short label (``x_{\\max}``, ``\\sum_{i=1}``) is dropped, as is one after no name.
    """
    if text[i : i + 1] in ("{", "\\"):
        arg, i = latex_argument(text, i)
    else:
        arg, i = text[i : i + 1], i + 1
    label = re.sub(r"[{}\s]", "", arg)
    if not _SUBSCRIPT_LABEL.fullmatch(label) or not out:
        return i
    name = _BRACED_NAME.sub(r"\1", out[-1].rstrip())
    if name[-1:].isalpha():
        out[-1] = name + "_" + label.translate(_LABEL_SIGNS) + " "  # m_水V_水 is two names
    return i


def _command(text: str, i: int, depth: int, out: list[str]) -> int:
    """Rewrite the LaTeX command whose name starts at ``text[i]``; return the index after it."""
    match = re.match(r"[A-Za-z]+", text[i:])
    if match is None:  # one-character command: \, \% \( ...
        name = text[i : i + 1]
        i += 1
    else:
        name = match.group(0)
        i += len(name)
    if name in FRACTIONS:
        numerator, i = latex_argument(text, i)
        denominator, i = latex_argument(text, i)
        out.append(f"(({_latex(numerator, depth + 1)})/({_latex(denominator, depth + 1)}))")
    elif name in ("binom", "dbinom", "tbinom"):  # C(n, k) = n! / (k! (n-k)!)
        top, i = latex_argument(text, i)
        bottom, i = latex_argument(text, i)
        n, k = _latex(top, depth + 1), _latex(bottom, depth + 1)
        out.append(f"(({n})!/(({k})!*(({n})-({k}))!))")
    elif name == "sqrt":
        index = None
        rest = text[i:].lstrip()
        if rest.startswith("["):
            close = rest.find("]")
            if close > 0:
                index = rest[1:close]
                i = len(text) - len(rest) + close + 1
        radicand, i = latex_argument(text, i)
        inner = _latex(radicand, depth + 1)
        out.append(f" sqrt({inner})" if index is None else f"(({inner})^(1/({_latex(index, depth + 1)})))")
    elif name in TEXT_COMMANDS:
        content, i = latex_argument(text, i)
        # \mathrm{i}: the imaginary unit; \mathrm{e} (a math font, not \text{e}): Euler's number, even about a conic
        euler = " ℯ " if name.startswith("math") else " e "
        out.append({"i": " ⅈ ", "e": euler}.get(content.strip(), f" {content} "))
    elif name in ACCENT_NAMES:
        content, i = latex_argument(text, i)
        label = re.sub(r"[{}\s]", "", content)
        # \overrightarrow{AB}, \bar{z}: a name of its own (AB_vec, z_bar), neither AB nor a unit word
        named = _ACCENTED_NAME.fullmatch(label)
        # over a calculation the accent is a conjugate (复数), a segment or a repeating decimal: the
        # ellipsis marks on both sides keep the claim around it from being read
        out.append(f" {label}_{ACCENT_NAMES[name]} " if named else f" ⋯ ({_latex(content, depth + 1)}) ⋯ ")
    elif name == "boxed":
        content, i = latex_argument(text, i)
        out.append(f" {_latex(content, depth + 1)} ")
    elif name in ARITHMETIC:
        out.append(ARITHMETIC[name])
    elif name in SPACING:
        out.append(" ")
    elif name in ELLIPSES:
        out.append(" ⋯ ")
    elif name in BREAKS:
        out.append(" ; ")
    else:
        out.append(f" {name} ")
    return i
