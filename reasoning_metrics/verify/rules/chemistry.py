"""Chemistry a step states in symbols, checked by counting atoms: equations that do not balance, and the
formula a step gives for a compound whose Chinese name spells it out.

* **Equations.** ``Fe + 2O₂ → Fe₃O₄``, ``2H_2 + O_2 = 2H_2O`` (``→``, ``=``, ``==``, ``\\rightarrow``; a
  condition such as ``点燃`` written on the arrow is skipped): every element must have as many atoms on
  each side. Only an equation whose two sides are nothing but ``+``-separated formulas with whole
  coefficients is read (``Fe₂O₃ + mNa₂O₂ = ...`` with a letter coefficient is not), with a compound in it
  (``F1 + F2 = F`` is physics), an arrow only with a coefficient above 1 (``H2O2 → H2O + O2`` is a
  符号表达式, unbalanced on purpose); an equation the question itself writes is not the step's claim
  (restating option A is not an error).
* **What a substance is.** ``氢氧化钠是一种弱酸``, ``盐酸是弱酸``, ``纯碱属于碱``: a common substance of
  :data:`SUBSTANCES` stated to be an acid, a base, a salt or an oxide that it is not, or a strong acid or
  base that is weak (or the other way round). ``不是`` turns the statement round; a hypothesis (若, 如果,
  假设) states nothing.
* **Formulas by name.** A name that spells out its counts (``五氧化二磷``, ``四氧化三铁``, ``二氧化碳``,
  ``一氧化碳``) fixes its formula (P₂O₅, Fe₃O₄, CO₂, CO); a step that gives it another (``五氧化二磷的化学式
  是5O2P``, ``二氧化碳（CO）``) states a false fact.

Read from :func:`~.._plain.plain` text; linear in the step's length; nothing is evaluated.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from reasoning_metrics.verify._plain import plain
from reasoning_metrics.verify.rules.facts import Fact

ELEMENTS = frozenset(
    [
        "H",
        "He",
        "Li",
        "Be",
        "B",
        "C",
        "N",
        "O",
        "F",
        "Ne",
        "Na",
        "Mg",
        "Al",
        "Si",
        "P",
        "S",
        "Cl",
        "Ar",
        "K",
        "Ca",
        "Mn",
        "Fe",
        "Co",
        "Ni",
        "Cu",
        "Zn",
        "Ag",
        "Ba",
        "Hg",
        "Pb",
        "I",
        "Br",
        "Au",
        "Pt",
        "Sn",
        "Cr",
        "Ti",
    ]
)
"""The elements of school chemistry: a formula with another symbol is not read."""
_CN_ELEMENTS = {
    "氢": "H", "碳": "C", "氮": "N", "氧": "O", "硫": "S", "磷": "P", "氯": "Cl", "硅": "Si", "钠": "Na",
    "镁": "Mg", "铝": "Al", "钾": "K", "钙": "Ca", "锰": "Mn", "铁": "Fe", "铜": "Cu", "锌": "Zn", "银": "Ag",
    "钡": "Ba", "汞": "Hg", "铅": "Pb",
}  # fmt: skip

_TOKEN = re.compile(r"([A-Z][a-z]?)(\d*)|\(([A-Za-z0-9]+)\)(\d*)")
_SPECIES = re.compile(r"^\s*(\d*)\s*((?:[A-Z][a-z]?\d*\s*|\([A-Za-z0-9]+\)\d*\s*)+)[↑↓]?\s*$")
_ARROW = re.compile(r"\s*(?:→|⟶|={1,4})\s*")
_CONDITION = re.compile(
    r"\\(?:underline|overline|xlongequal|begin|end|matrix|\\)|点燃|高温|加热|通电|催化剂|MnO2|△|\[\]"
)
_FORMULA = r"(?:[A-Z][a-z]?\d*|\([A-Za-z0-9]+\)\d*)(?: ?(?:[A-Z][a-z]?\d*|\([A-Za-z0-9]+\)\d*))*"
_TERM = rf"\d*[ \t]*{_FORMULA}[ \t]*[↑↓]?"
_EQUATION = re.compile(
    rf"(?:{_TERM}[ \t]*\+[ \t]*)*{_TERM}[ \t]*(?:→|⟶|={{1,4}})[ \t]*(?:{_TERM}[ \t]*\+[ \t]*)*{_TERM}"
)
"""An equation on one line (spaces and tabs only between its parts)."""
_CUT = frozenset("+=→⟶()\\")
"""A character next to an equation that says it goes on."""
_EQUALS_SIGN = re.compile(
    r"\\begin\s*\{matrix\}.*?\\end\s*\{matrix\}|\\xlongequal\s*(?:\[[^\]]*\])?\s*\{[^{}]*\}"
    r"|\^?\s*\\underline\s*\{\s*\\underline\s*\{[^{}]*\}\s*\}|~"
)
"""How the bank and the models write ``=`` with a condition over it (``\\xlongequal{点燃}``,
``\\underline{\\underline{点燃}}``, a ``matrix`` holding one)."""
_NUMERALS = dict(zip("1234567", "一二三四五六七", strict=True))
_NAMED_OXIDE = re.compile(r"([1-7])?氧化([1-7])?([氢碳氮硫磷氯硅钠镁铝钾钙锰铁铜锌银钡汞铅])")
"""A named oxide, its counts as :func:`~.._plain.plain` writes Chinese numerals (``5氧化2磷``)."""
_GIVEN_FORMULA = re.compile(
    r"^\s*(?:的)?\s*(?:化学式|分子式)?\s*(?:是|为|:|：)?\s*[(（]?\s*((?:[A-Z][a-z]?\d*|\d+)(?:[A-Z][a-z]?\d*|\d+)*)"
)
MAX_CHARS = 4000
"""Only the start of a long step is read (a formula or an equation is short)."""


def _clean(text: str) -> str:
    text = re.sub(r"\\(?:long)?rightarrow", "→", text[:MAX_CHARS])
    text = text.replace("\\uparrow", "↑").replace("\\downarrow", "↓")
    text = re.sub(r"\\(?:left|right)\b", "", text)  # before plain(), which reads \left as \le + ft
    text = _EQUALS_SIGN.sub(lambda m: " " if m.group(0) == "~" else "=", text)
    text = plain(text).replace("_", "")
    text = re.sub(r"\(\s*([A-Za-z0-9]+)\s*\)", r"(\1)", text)
    text = re.sub(r"\\[()\[\]]", " ", text)  # \( ... \) and \[ ... \] around the formula
    return _CONDITION.sub(" ", text)


def atoms(formula: str) -> Counter[str] | None:
    """Element -> atom count of a formula (``Ca(OH)2`` -> Ca 1, O 2, H 2); ``None`` when it is not one."""
    count: Counter[str] = Counter()
    at = 0
    for m in _TOKEN.finditer(formula):
        if m.start() != at:
            return None
        at = m.end()
        if m.group(1):
            if m.group(1) not in ELEMENTS or m.group(2) == "1":
                return None  # no formula writes a count of 1 (F1 + F2 = F is physics)
            count[m.group(1)] += int(m.group(2) or 1)
        else:
            inner = atoms(m.group(3))
            if inner is None:
                return None
            for element, n in inner.items():
                count[element] += n * int(m.group(4) or 1)
    return count if at == len(formula) and count else None


@dataclass
class _Side:
    atoms: Counter[str]
    compound: bool
    """A species of two or more elements is on it."""
    coefficient: bool
    """A species on it has a coefficient above 1."""


def _side(text: str) -> _Side | None:
    side = _Side(Counter(), False, False)
    for part in text.split("+"):
        m = _SPECIES.match(part)
        if m is None:
            return None
        found = atoms(re.sub(r"\s+", "", m.group(2)))
        if found is None:
            return None
        times = int(m.group(1) or 1)
        side.compound |= len(found) > 1
        side.coefficient |= times > 1
        for element, n in found.items():
            side.atoms[element] += n * times
    return side


def _equations(text: str) -> Iterator[tuple[str, Counter[str], Counter[str]]]:
    """Each equation: as written (no spaces), the atoms of its left and right sides. Read only with a
    compound in it (``F = F + F`` is not chemistry), and an arrow only with a coefficient: ``H2O2 → H2O + O2``
    is a 符号表达式, which school chemistry writes unbalanced on purpose."""
    for m in _EQUATION.finditer(text):
        before, after = text[: m.start()].rstrip(" \t")[-1:], text[m.end() :].lstrip(" \t")[:1]
        if before in _CUT or after in _CUT or (after and after.isalnum()):
            continue  # only part of the equation is in view (a step split inside it, a term not read)
        written = m.group(0).strip()
        sides = _ARROW.split(written, maxsplit=1)
        if len(sides) != 2:
            continue
        left, right = _side(sides[0]), _side(sides[1])
        if left is None or right is None or not (left.compound or right.compound):
            continue
        if "=" not in written and not (left.coefficient or right.coefficient):
            continue
        yield re.sub(r"\s+", "", written), left.atoms, right.atoms


def stated_chemistry(text: str, problem: str = "") -> list[Fact]:
    """Every equation and named formula ``text`` states (see the module doc), checked; equations that
    ``problem`` itself writes are left out."""
    step = _clean(text)
    given = {written for written, _, _ in _equations(_clean(problem))} if problem else set()
    facts = []
    for written, left, right in _equations(step):
        if written in given:
            continue
        if left == right:
            facts.append(Fact(written, True, "balanced"))
            continue
        off = sorted(e for e in left.keys() | right.keys() if left[e] != right[e])
        why = "，".join(f"{e}：{left[e]} ≠ {right[e]}" for e in off)
        facts.append(Fact(written, False, why))
    facts += _named_formulas(step)
    facts += _classes(unicodedata.normalize("NFKC", text[:MAX_CHARS]))
    return facts


def _all(kind: str, strength: str | None, names: str) -> dict[str, tuple[str, str | None]]:
    return dict.fromkeys(names.split(), (kind, strength))


SUBSTANCES: dict[str, tuple[str, str | None]] = {
    **_all("酸", "强", "盐酸 硫酸 硝酸 稀盐酸 稀硫酸 浓硫酸 浓盐酸"),
    **_all("酸", "弱", "碳酸 醋酸 乙酸 氢硫酸"),
    **_all("碱", "强", "氢氧化钠 氢氧化钾 氢氧化钡 烧碱 火碱 苛性钠"),
    **_all("碱", None, "氢氧化钙 熟石灰 消石灰"),
    **_all("碱", "弱", "氨水 氢氧化铜 氢氧化铁 氢氧化镁 氢氧化铝"),
    **_all(
        "盐",
        None,
        "氯化钠 碳酸钠 纯碱 苏打 碳酸钙 碳酸氢钠 小苏打 硫酸铜 硝酸银 高锰酸钾 氯酸钾 硫酸钠 氯化钙 硝酸钾 硫酸亚铁 氯化铁 碳酸钾",
    ),
    # not 水 alone: it is read inside 石灰水, 盐水
    **_all(
        "氧化物",
        None,
        "二氧化碳 一氧化碳 氧化钙 生石灰 氧化铜 二氧化锰 四氧化三铁 五氧化二磷 过氧化氢 二氧化硫 氧化铁 氧化镁 干冰",
    ),
}
"""Common substances of school chemistry: what class they are, and how strong an acid or base (``None``:
not asked; 氢氧化钙 is strong but slightly soluble, and textbooks differ on calling it so)."""
_CLASS_WORDS = ("酸", "碱", "盐", "氧化物")
_CLASS_STATEMENT = re.compile(
    "(" + "|".join(sorted(SUBSTANCES, key=len, reverse=True)) + r")(?:溶液|固体|气体)?\s*(?:[(（][^()（）]{0,20}[)）])?"
    r"\s*(?:也|都)?\s*(不是|不属于|是|属于|为)\s*(?:一种|一类)?\s*(?:常见的)?\s*(强|弱)?(酸|碱|盐|氧化物)(?![性式根])"
)
_HYPOTHESIS = re.compile(r"若|如果|假设|假如|是否|吗")
_JUDGED = re.compile(r"\s*[”\"」]?\s*(?:的说法|这种说法|这一说法|说法)?\s*(?:是)?(?:错误|不正确|不对|正确|对)")


def _classes(text: str) -> list[Fact]:
    out = []
    for m in _CLASS_STATEMENT.finditer(text):
        if _HYPOTHESIS.search(text[max(0, m.start() - 12) : m.start()]) or _HYPOTHESIS.search(m.group(0)):
            continue
        if _JUDGED.match(text[m.end() : m.end() + 8]) or text[max(0, m.start() - 1) : m.start()] in ("“", '"', "「"):
            continue  # a statement quoted to be judged (纯碱属于碱错误), not asserted
        if m.start() > 0 and text[m.start() - 1] in "化亚氢稀浓":
            continue  # 氯化钠 read from 亚氯化钠, 碳酸 from 碳酸钠's tail: the name is longer than the table's
        kind, strength = SUBSTANCES[m.group(1)]
        negated = m.group(2) in ("不是", "不属于")
        said_kind, said_strength = m.group(4), m.group(3)
        holds = said_kind == kind and (said_strength is None or strength is None or said_strength == strength)
        if negated:
            if said_strength is not None:
                continue  # 不是强酸 says little: a weak acid, or no acid at all
            holds = said_kind != kind
        if holds:
            continue
        truth = f"{m.group(1)}是{strength or ''}{kind}"
        out.append(Fact(m.group(0), False, truth))
    return out


def _named_formulas(text: str) -> list[Fact]:
    out = []
    for m in _NAMED_OXIDE.finditer(text):
        if m.group(1) is None:
            continue  # 氧化铁 is Fe2O3: without its counts a name does not fix the formula
        oxygen, other = int(m.group(1)), int(m.group(2) or 1)
        element = _CN_ELEMENTS[m.group(3)]
        given = _GIVEN_FORMULA.match(text[m.end() : m.end() + 40])
        if given is None or not re.search(r"[A-Z]", given.group(1)):
            continue
        stated = atoms(given.group(1))
        expected = Counter({element: other, "O": oxygen})
        if stated == expected or (stated is not None and element not in stated and "O" not in stated):
            continue  # the formula given is of something else the sentence names
        right = f"{element}{other if other > 1 else ''}O{oxygen if oxygen > 1 else ''}"
        name = "".join(_NUMERALS.get(char, char) for char in m.group(0))
        out.append(Fact(f"{name}：{given.group(1)}", False, f"{name}是{right}"))
    return out
