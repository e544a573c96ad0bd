"""Fill-in blanks compared the way a teacher would: same text, or same number with the same (or no) unit.

:func:`normalize_blank` rewrites a blank to a plain form: full-width characters
folded, LaTeX (``$$``, ``\\frac``/``\\dfrac``, ``\\text{}``, ``{}``, ``\\left``...) turned into
plain text, spaces and trailing punctuation dropped, Latin letters lower-cased.
:func:`blank_matches` then accepts

* equal normal forms;
* equal numbers, where fractions, decimals, mixed numbers and thousands
  separators are all read (``1/2 == 0.5 == \\frac{1}{2}``), and a decimal of two
  or more places matches a fraction with no finite decimal when it is that
  fraction rounded (``0.33`` for ``1/3``), with a trailing unit on either side
  ignored when the other has none (``50 == 50cm``; ``50cm != 50m``; ``%`` and ``°``
  count as units);
* a worked line against its result: ``x=2`` or ``2-3=-1`` against ``-1`` (the text
  after the last ``=``, when only one side has one);
* a short sentence that holds exactly one number, against a numeric gold
  (``哥哥每分钟跑55米`` for ``55``; at most 24 characters once normalised), when
  nothing but a unit follows the number;
* a selection of circled numbers in any order and with any separators
  (``⑤、④`` for ``④⑤``), when the gold lists them in ascending order: a gold
  written out of order (``①③⑤②④``) is a sequence and must be matched in order.

Negated answers never match through the looser rules: ``不是12``, ``x不等于3``,
``x≠3`` are not ``12`` or ``3``; nor is a number that is an operand (``55的两倍``,
``比55多``): a Chinese "unit" never holds a structure or operation word. Nor is a
bound or a range (``x>3``, ``大于3``, ``至少12``, ``±3``, ``3左右``): it says where the
number lies, not that it is the answer (#26 item 6).

A rejected root the answer itself sets aside is not part of it: ``x=5（x=-1不合题意，舍去）``
and ``x₁=5，x₂=-1（舍去）`` are ``5``. Units are compared by meaning: ``30度`` is ``30°``,
``180元`` is ``180 yuan`` (:data:`UNIT_ALIASES`), and a word the stem itself writes right
after a blank (``___ yuan``, ``$$\\underline{}$$ $${g/cm}^{3}$$``: :func:`stem_units`) is a
unit in that question's answers (#23 item 4).
"""

from __future__ import annotations

import re
import unicodedata
from fractions import Fraction

from kg.latex import SYMBOLS

_SYMBOLS = {
    "\\" + name: SYMBOLS[name]
    for name in (
        "times", "cdot", "div", "pm", "mp", "gt", "lt", "approx", "leqslant", "geqslant", "leq", "geq", "le", "ge", "neq", "ne", "pi",
        "angle", "triangle", "because", "therefore", "infty", "%", "circ", "degree",
    )
}  # fmt: skip
"""The commands an answer is compared through, read as the report shows them (the one table: kg.latex)."""
_SYMBOL = re.compile("|".join(re.escape(k) + r"(?![A-Za-z])" for k in sorted(_SYMBOLS, key=len, reverse=True)))
_WRAPPERS = re.compile(
    r"\\(?:text|textrm|textbf|mathrm|mathbf|mathit|rm|bf|operatorname|underline|boxed|overline|mbox)\s*\{([^{}]*)\}"
)
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_SQRT = re.compile(r"\\sqrt\s*\{([^{}]*)\}")
_SPACING = re.compile(r"\\(?:left|right|displaystyle|[,;:! ]|quad|qquad)|~")
_DELIMS = re.compile(r"\$+|\\[()\[\]]")
_SUPERSCRIPTS = str.maketrans({c: "^" + d for c, d in zip("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789", strict=True)})
_TRAILING = "。.,，;；:：、!！?？"
_QUOTES = "\"'“”‘’「」『』《》"

_NUMBER = r"[+-]?(?:\d+(?:\.\d+)?|\.\d+)"
_VALUE = re.compile(
    rf"^(?P<sign>[+-]?)(?:(?P<whole>\d+)(?=\())?(?:\((?P<pn>{_NUMBER})\)/\((?P<pd>{_NUMBER})\)"
    rf"|(?P<n>{_NUMBER})(?:/(?P<d>{_NUMBER}))?)(?P<unit>.*)$"
)
_UNIT_LIST = (
    "% ° °c mm cm dm m km nm μm um mg g kg s ms min h l ml dl n kn j kj w kw v mv kv pa kpa mpa hz khz "
    "mol mol/l g/mol m/s km/h cm/s m/s^2 g/cm^3 kg/m^3 cm^2 m^2 dm^2 km^2 mm^2 cm^3 m^3 dm^3 mm^3 kwh kw·h "
    "cal kcal ω kω db"
)
_LATIN_UNITS = frozenset(_UNIT_LIST.split())
_CJK_UNIT = re.compile(r"^[\u4e00-\u9fff]{1,4}$")
# Characters that make a trailing Chinese phrase more than a unit: negation (不 非 没 无 未), structure
# (的 之 是 为) and operations (倍 多 少 加 减 乘 除 和 差 积 商 倒 相反 平方 以 或 约). "55的两倍" is not 55.
_NOT_UNIT = frozenset("不非没无未的之是为倍多少加减乘除和差积商倒相反平方立以或约")
_NEGATION = re.compile(r"不|非|没|无|未|≠|否")
_CIRCLED = re.compile(r"[\u2460-\u2473]")
_SELECTION = re.compile(r"[\u2460-\u2473\s、,，;；和及与$]+")
_NUMBERS = re.compile(r"(?<![\d.])[+-]?\d+(?:\.\d+)?(?:/\d+)?(?![\d.])")
_SHORT_SENTENCE = 24
# Bounds and ranges: a number after (or before) one of these is a limit, not the value.
_BOUND = re.compile(
    r"[<>≤≥±∓]|大于|小于|高于|低于|多于|少于|超过|不足|至少|至多|最少|最多|不少于|不多于|不超过|以上|以下|以内|左右"
)
# A remark setting a root aside: "(x=-1不合题意,舍去)", "(舍去)", "(不符合题意)".
_REMARK = re.compile(r"\(([^()]*)\)")
_REJECTS = re.compile(r"舍去|舍弃|应舍|舍|不合题意|不符合题意|不合|不符|不满足题意|rejected|discard(?:ed)?")
_BARE_REMARK = re.compile(
    r"^(?:(?:应|故|均|要|已|需|都)?(?:舍去|舍弃|舍|不合题意|不符合题意|不合|不符|不满足题意)[,;]?)+$"
)
# One unit written two ways (keys and values in normal form; values are the canonical spelling).
UNIT_ALIASES = {
    "度": "°",
    "摄氏度": "°c",
    "℃": "°c",
    "毫米": "mm",
    "厘米": "cm",
    "分米": "dm",
    "米": "m",
    "千米": "km",
    "公里": "km",
    "平方毫米": "mm^2",
    "平方厘米": "cm^2",
    "平方分米": "dm^2",
    "平方米": "m^2",
    "平方千米": "km^2",
    "立方厘米": "cm^3",
    "立方分米": "dm^3",
    "立方米": "m^3",
    "毫克": "mg",
    "克": "g",
    "千克": "kg",
    "公斤": "kg",
    "毫升": "ml",
    "升": "l",
    "秒": "s",
    "分钟": "min",
    "小时": "h",
    "牛": "n",
    "牛顿": "n",
    "焦": "j",
    "焦耳": "j",
    "瓦": "w",
    "瓦特": "w",
    "千瓦": "kw",
    "伏": "v",
    "伏特": "v",
    "帕": "pa",
    "帕斯卡": "pa",
    "欧": "ω",
    "欧姆": "ω",
    "赫兹": "hz",
    "元": "yuan",
    "块": "yuan",
    "角": "jiao",
    "分": "fen",
}
_BLANK = re.compile(r"\\underline\s*\{[^{}]*\}|_{2,}|[（(][\s\u3000]*[)）]")
_STEM_UNIT = re.compile(r"[a-z][a-z/^0-9·]{0,11}|°c?|%")
_STEM_WORD = re.compile(r"[\s$]*([^\s，。,.;；:：!！?？]+)")


def normalize_blank(text: str) -> str:
    """The plain form of one blank's answer (see the module docstring)."""
    s = unicodedata.normalize("NFKC", text.translate(_SUPERSCRIPTS)).replace("\u2212", "-").replace("\u2014", "-")
    s = _DELIMS.sub("", s)
    s = re.sub(r"\\[dt]frac", r"\\frac", s)
    s = _SPACING.sub("", s)
    s = re.sub(r"\^\s*\{?\s*\\circ\s*\}?", "°", s)
    for _ in range(8):  # innermost braces first, until nothing changes
        before = s
        s = _WRAPPERS.sub(r"\1", s)
        s = _FRAC.sub(r"(\1)/(\2)", s)
        s = _SQRT.sub(r"√(\1)", s)
        if s == before:
            break
    s = _SYMBOL.sub(lambda m: _SYMBOLS[m.group().rstrip()], s)
    s = s.replace("{", "").replace("}", "")
    s = re.sub(r"\s+", "", s)
    s = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", s)
    s = re.sub(r"√\((\w+)\)", r"√\1", s)
    s = re.sub(r"(?<!\d)\(([\w.√^]+)\)/\(([\w.√^]+)\)", r"\1/\2", s)  # (a)/(b) -> a/b, but keep 3(1)/(3)
    s = s.strip(_QUOTES).rstrip(_TRAILING).strip(_QUOTES) or s  # a lone punctuation mark is the answer
    return s.lower()


def parse_value(normal: str, units: frozenset[str] = frozenset()) -> tuple[Fraction, str, int | None] | None:
    """A normal form read as (number, unit, decimal places or ``None`` for a non-decimal), if it is one.

    The unit comes back in its canonical spelling (``度`` as ``°``, :data:`UNIT_ALIASES`).
    """
    match = _VALUE.match(normal)
    if not match:
        return None
    unit = match.group("unit")
    if unit and not is_unit(unit, units):
        return None  # "2x", "3^2", "1/2/3": not a number with a unit
    if match.group("pn") is not None:
        num, den = Fraction(match.group("pn")), Fraction(match.group("pd"))
        places = None
    else:
        num = Fraction(match.group("n"))
        den = Fraction(match.group("d")) if match.group("d") else Fraction(1)
        places = len(match.group("n").partition(".")[2]) if match.group("d") is None else None
    if den == 0:
        return None
    value = num / den
    if match.group("whole"):
        value = Fraction(match.group("whole")) + value
        places = None
    if match.group("sign") == "-":
        value = -value
    return value, _canonical_unit(unit), places


def is_unit(text: str, units: frozenset[str] = frozenset()) -> bool:
    """A unit as answers write it: a known Latin unit (``cm``, ``m/s``, ``kg``), ``%``, ``°``, or 1-4 Chinese characters.

    Single letters that are usually variables (``x``, ``a``, ``k``...) are not units, so ``2x`` is not ``2``.
    ``units`` adds the question's own (:func:`stem_units`) and :data:`UNIT_ALIASES` names some more.
    """
    if text in _LATIN_UNITS or text in units or text in UNIT_ALIASES.values():
        return True
    return bool(_CJK_UNIT.match(text)) and not (_NOT_UNIT & set(text)) and not _BOUND.search(text)


def stem_units(stem: str) -> frozenset[str]:
    """The units a fill-in stem writes right after its blanks, in normal form (``___ yuan`` -> ``yuan``).

    An answer may repeat them (``180 yuan``): in that question they are units, whatever
    :func:`is_unit` knows. Both the written form and its canonical spelling are given.
    """
    found: set[str] = set()
    for blank in _BLANK.finditer(stem):
        word = _STEM_WORD.match(stem, blank.end())
        unit = word and normalize_blank(word.group(1))
        if unit and _STEM_UNIT.fullmatch(unit):  # Chinese units are units anyway (is_unit)
            found.update({unit, _canonical_unit(unit)})
    return frozenset(found)


def _canonical_unit(unit: str) -> str:
    return UNIT_ALIASES.get(unit, unit)


def _drop_rejected(normal: str) -> str:
    """``normal`` without the roots it sets aside itself (see the module docstring)."""
    for remark in reversed(list(_REMARK.finditer(normal))):
        inside = remark.group(1)
        if not _REJECTS.search(inside):
            continue
        start = remark.start()
        if _BARE_REMARK.match(inside):  # "x2=-1(舍去)": the clause before it goes too
            start = max(normal.rfind(",", 0, start), normal.rfind(";", 0, start), 0)
        normal = (normal[:start] + normal[remark.end() :]).strip(",;")
    return normal


def blank_matches(predicted: str, gold: str, units: frozenset[str] = frozenset()) -> bool:
    """Whether one predicted blank says what the gold blank says.

    ``units``: the question's own unit words (:func:`stem_units`), accepted after a number.
    """
    selection = _selection(gold)
    if selection is not None and selection == sorted(selection) and len(selection) > 1:
        chosen = _selection(predicted)
        return chosen is not None and sorted(set(chosen)) == selection
    p, g = normalize_blank(predicted), normalize_blank(gold)
    if not p:
        return False
    if _same(p, g, units):
        return True
    if _REJECTS.search(p) and not _REJECTS.search(g):
        p = _drop_rejected(p)
        if not p or _same(p, g, units):
            return bool(p)
    if _NEGATION.search(p) and not _NEGATION.search(g):
        return False  # the looser rules below read a number out of the text; a negation says it is not that
    if _BOUND.search(p) and not _BOUND.search(g):
        return False  # a bound or a range around the number is not the number
    if "=" in p and "=" not in g:
        return _same(p.rsplit("=", 1)[1], g, units)
    if "=" in g and "=" not in p:
        return _same(p, g.rsplit("=", 1)[1], units)
    if parse_value(g, units) is not None and parse_value(p, units) is None and len(p) <= _SHORT_SENTENCE:
        numbers = list(_NUMBERS.finditer(p))
        if len(numbers) != 1:
            return False
        rest = p[numbers[0].end() :]
        return (not rest or is_unit(rest, units)) and _same(numbers[0].group(), g, units)
    return False


def _selection(text: str) -> list[str] | None:
    """The circled numbers of a blank that holds nothing else (``④、⑤`` -> ``["④", "⑤"]``), else ``None``."""
    if not _SELECTION.fullmatch(text.strip()):
        return None
    circled = _CIRCLED.findall(text)
    return circled or None


def _same(p: str, g: str, units: frozenset[str] = frozenset()) -> bool:
    return p == g or _numbers_match(p, g, units)


def _numbers_match(p: str, g: str, units: frozenset[str]) -> bool:
    pv, gv = parse_value(p, units), parse_value(g, units)
    if pv is None or gv is None:
        return False
    (pn, pu, pplaces), (gn, gu, gplaces) = pv, gv
    if pu and gu and pu != gu:
        return False
    if pn == gn:
        return True
    return _rounds_to(pn, pplaces, gn) or _rounds_to(gn, gplaces, pn)


def _rounds_to(decimal: Fraction, places: int | None, exact: Fraction) -> bool:
    """A decimal of 2+ places stands for a fraction with no finite decimal that it rounds."""
    if places is None or places < 2 or _terminates(exact):
        return False
    return round(exact, places) == decimal


def _terminates(value: Fraction) -> bool:
    den = value.denominator
    for p in (2, 5):
        while den % p == 0:
            den //= p
    return den == 1
