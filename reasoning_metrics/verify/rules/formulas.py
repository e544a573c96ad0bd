"""Simple formulas a step states with numbers, checked: areas, volumes, angle sums, handshakes, C(n, k).

Read within one sentence (split at 。；！？ and line breaks): a shape and its named dimensions
(``长方形的长为5，宽为3，面积为15``; ``a triangle with base 6 and height 4 has area 12``) with the
area, perimeter or volume it states; ``n边形内角和为...`` and ``正n边形每个内角为...``; ``N人两两握手，
共...次`` and ``N支球队单循环比赛，共...场``; ``C(n,k) = v``, ``C_n^k = v``, ``A_n^k = v``,
``n choose k = v``. A sentence naming two shapes, or dimensions in different units, is not read.
The stated value is the last number of the chain after the quantity (``面积=6×4÷2=12``); a value
with π is read so (``9π``), and one near π-approximations (3.14) is allowed 1 %.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from fractions import Fraction

from reasoning_metrics.verify._plain import NUM, START, plain
from reasoning_metrics.verify.rules.facts import Fact

MAX_N = 10_000
"""Counts (people, sides, n of C(n, k)) above this are not checked."""

_SENTENCE = re.compile(r"[。；;！？!?\n]")
_VALUE = r"(?:约|大约)?(?:为|是|=|≈|等于|:|is|equals|of|\s)\s*([-\d.\s×÷*/+^()π=°度]+)"
"""A stated value: the run of calculation characters after the quantity (one character class: linear)."""
_LAST = re.compile(rf"^\s*({NUM})?\s*(π)?\s*$")

_DIMENSIONS = {
    "上底": re.compile(
        rf"上底(?:边)?(?:长)?\s*(?:为|是|=|:|等于)?\s*({NUM})([a-zA-Z]{{1,2}}(?![a-zA-Z]))?(?!\s*[×÷*/+\-^\d.])"
    ),
    "下底": re.compile(
        rf"下底(?:边)?(?:长)?\s*(?:为|是|=|:|等于)?\s*({NUM})([a-zA-Z]{{1,2}}(?![a-zA-Z]))?(?!\s*[×÷*/+\-^\d.])"
    ),
    "底": re.compile(
        rf"(?<![上下到])底(?:边)?(?:长)?\s*(?:为|是|=|:|等于)?\s*({NUM})([a-zA-Z]{{1,2}}(?![a-zA-Z]))?(?!\s*[×÷*/+\-^\d.])|\bbase\s*(?:of|=|is)?\s*({NUM})([a-zA-Z]{{1,2}}(?![a-zA-Z]))?(?!\s*[×÷*/+\-^\d.])",
        re.I,
    ),
    "高": re.compile(
        rf"(?<![提升])高\s*(?:为|是|=|:|等于)?\s*({NUM})([a-zA-Z]{{1,2}}(?![a-zA-Z]))?(?!\s*[×÷*/+\-^\d.])|\bheight\s*(?:of|=|is)?\s*({NUM})([a-zA-Z]{{1,2}}(?![a-zA-Z]))?(?!\s*[×÷*/+\-^\d.])",
        re.I,
    ),
    "长": re.compile(
        rf"(?<![边棱周延增成生伸加底])长\s*(?:为|是|=|:|等于)?\s*({NUM})([a-zA-Z]{{1,2}}(?![a-zA-Z]))?(?!\s*[×÷*/+\-^\d.])|\blength\s*(?:of|=|is)?\s*({NUM})([a-zA-Z]{{1,2}}(?![a-zA-Z]))?(?!\s*[×÷*/+\-^\d.])",
        re.I,
    ),
    "宽": re.compile(
        rf"宽\s*(?:为|是|=|:|等于)?\s*({NUM})([a-zA-Z]{{1,2}}(?![a-zA-Z]))?(?!\s*[×÷*/+\-^\d.])|\bwidth\s*(?:of|=|is)?\s*({NUM})([a-zA-Z]{{1,2}}(?![a-zA-Z]))?(?!\s*[×÷*/+\-^\d.])",
        re.I,
    ),
    "边长": re.compile(
        rf"(?:边长|棱长)\s*(?:为|是|=|:|等于)?\s*({NUM})([a-zA-Z]{{1,2}}(?![a-zA-Z]))?(?!\s*[×÷*/+\-^\d.])|\b(?:side|edge)(?: length)?\s*(?:of|=|is)?\s*({NUM})([a-zA-Z]{{1,2}}(?![a-zA-Z]))?(?!\s*[×÷*/+\-^\d.])",
        re.I,
    ),
    "半径": re.compile(
        rf"半径\s*(?:为|是|=|:|等于)?\s*({NUM})([a-zA-Z]{{1,2}}(?![a-zA-Z]))?(?!\s*[×÷*/+\-^\d.])|\bradius\s*(?:of|=|is)?\s*({NUM})([a-zA-Z]{{1,2}}(?![a-zA-Z]))?(?!\s*[×÷*/+\-^\d.])",
        re.I,
    ),
    "直径": re.compile(
        rf"直径\s*(?:为|是|=|:|等于)?\s*({NUM})([a-zA-Z]{{1,2}}(?![a-zA-Z]))?(?!\s*[×÷*/+\-^\d.])|\bdiameter\s*(?:of|=|is)?\s*({NUM})([a-zA-Z]{{1,2}}(?![a-zA-Z]))?(?!\s*[×÷*/+\-^\d.])",
        re.I,
    ),
}
_SHAPES = {
    "rectangle": r"长方形|矩形|\brectangle\b",
    "square": r"正方形|\bsquare\b(?!\s*root)",
    "triangle": r"(?<!直角)3角形|\btriangle\b",
    "parallelogram": r"平行4边形|\bparallelogram\b",
    "trapezoid": r"梯形|\btrapezoid\b|\btrapezium\b",
    "circle": r"圆(?![柱锥周心弧])|\bcircle\b",
    "cube": r"正方体|立方体|\bcube\b",
    "cuboid": r"长方体|\bcuboid\b|rectangular (?:box|prism)",
    "cylinder": r"圆柱|\bcylinder\b",
}
_SHAPE = {name: re.compile(pattern, re.I) for name, pattern in _SHAPES.items()}
_OF_SHAPE = r"(?:长方形|矩形|正方形|3角形|平行4边形|梯形|圆|正方体|立方体|长方体|圆柱)\s*(?:的)?\s*"
"""A Chinese quantity is read only right after its shape (``长方形的面积``): a sentence about a circle may
state the area of a sector or a shaded part."""
_EN_OF = r"(?:\s+of\s+(?:the|a|an|this)\s+\w+)?"
_RESULTS = {
    "area": re.compile(rf"{_OF_SHAPE}面积\s*{_VALUE}|\barea{_EN_OF}\s*{_VALUE}", re.I),
    "perimeter": re.compile(rf"{_OF_SHAPE}周长\s*{_VALUE}|\b(?:perimeter|circumference){_EN_OF}\s*{_VALUE}", re.I),
    "volume": re.compile(rf"{_OF_SHAPE}(?:体积|容积)\s*{_VALUE}|\bvolume{_EN_OF}\s*{_VALUE}", re.I),
}
_OTHER_FIGURES = re.compile(r"扇形|阴影|部分|弓形|圆环|环形|侧面|展开|半圆|sector|shaded|semicircle|ring", re.I)
Dims = dict[str, float]
_FORMULAS: dict[tuple[str, str], tuple[tuple[str, ...], Callable[[Dims], float]]] = {
    ("rectangle", "area"): (("长", "宽"), lambda d: d["长"] * d["宽"]),
    ("rectangle", "perimeter"): (("长", "宽"), lambda d: 2 * (d["长"] + d["宽"])),
    ("square", "area"): (("边长",), lambda d: d["边长"] ** 2),
    ("square", "perimeter"): (("边长",), lambda d: 4 * d["边长"]),
    ("triangle", "area"): (("底", "高"), lambda d: d["底"] * d["高"] / 2),
    ("parallelogram", "area"): (("底", "高"), lambda d: d["底"] * d["高"]),
    ("trapezoid", "area"): (("上底", "下底", "高"), lambda d: (d["上底"] + d["下底"]) * d["高"] / 2),
    ("circle", "area"): (("半径",), lambda d: math.pi * d["半径"] ** 2),
    ("circle", "perimeter"): (("半径",), lambda d: 2 * math.pi * d["半径"]),
    ("cube", "volume"): (("边长",), lambda d: d["边长"] ** 3),
    ("cuboid", "volume"): (("长", "宽", "高"), lambda d: d["长"] * d["宽"] * d["高"]),
    ("cylinder", "volume"): (("半径", "高"), lambda d: math.pi * d["半径"] ** 2 * d["高"]),
}
_NAMES = {"area": "面积", "perimeter": "周长", "volume": "体积"}

_POLYGON_SUM = re.compile(rf"{START}(\d+)\s*边形\s*(?:的)?\s*内角和\s*{_VALUE}")
_TRIANGLE_SUM = re.compile(rf"3角形\s*(?:的)?\s*内角和\s*{_VALUE}")
_EXTERIOR_SUM = re.compile(rf"{START}(\d+)\s*边形\s*(?:的)?\s*外角和\s*{_VALUE}")
_REGULAR_ANGLE = re.compile(rf"正\s*(\d+)\s*边形\s*(?:的)?\s*每(?:1)?个(内|外)角\s*(?:的度数)?\s*{_VALUE}")
_EN_POLYGONS = {"triangle": 3, "quadrilateral": 4, "pentagon": 5, "hexagon": 6, "heptagon": 7, "octagon": 8,
                "nonagon": 9, "decagon": 10, "dodecagon": 12}  # fmt: skip
_EN_SUM = re.compile(
    rf"interior angles of an?\s+(\w+|{NUM}-gon|{NUM}-sided polygon)\s+(?:is|are|=|equals|sum to|add up to)\s+({NUM})",
    re.I,
)
_HANDSHAKE_PEOPLE = re.compile(rf"{START}(\d+)\s*(?:个|名|位)?\s*(?:人|同学|学生|people|persons|guests)")
_HANDSHAKE_TOTAL = re.compile(
    rf"(?:共|一共|总共)(?:需|要|需要|可以|能)?(?:握手|握)?(?:了)?\s*({NUM})\s*次|({NUM})\s*handshakes"
)
_TEAMS = re.compile(rf"{START}(\d+)\s*(?:个|支)?\s*(?:球队|队伍|队|teams)")
_GAMES = re.compile(
    rf"(?:共|一共|总共)(?:要|需|需要)?(?:比赛|进行|赛|安排)?(?:了)?\s*({NUM})\s*场|({NUM})\s*(?:games|matches)"
)
_CHOOSE = re.compile(
    rf"(?<![A-Za-z0-9_^)×*/])([CA])\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*=\s*({NUM})(?!\s*[×*/÷+\-^!\d.(])"
    rf"|(?<![A-Za-z0-9_^)×*/])([CA])\s*_\s*(\d+)\s*\^\s*(\d+)\s*=\s*({NUM})(?!\s*[×*/÷+\-^!\d.(])"
    rf"|{START}(\d+)\s+choose\s+(\d+)\s*(?:=|is|equals)\s*({NUM})(?!\s*[×*/÷+\-^!\d.(])",
)


def stated_formulas(text: str) -> list[Fact]:
    """Every formula of the module doc that ``text`` states with numbers, checked."""
    found: list[Fact] = []
    for sentence in _SENTENCE.split(plain(text)):
        if sentence.strip():
            found += _shapes(sentence)
            found += _angles(sentence)
            found += _counts(sentence)
    return found


def _stated(chain: str) -> tuple[float, bool] | None:
    """The value a chain ends on (``6×4÷2=12`` -> 12) and whether it carries π; ``None`` if it is no number."""
    _, equals, last = chain.rpartition("=")
    if not equals and re.search(r"\d\s*[×÷*/+^]", chain):
        return None  # an unevaluated calculation: the arithmetic check's business, not a stated value
    match = _LAST.match(last.rstrip("()°度 "))
    if match is None or (match.group(1) is None and match.group(2) is None):
        return None
    value = float(match.group(1)) if match.group(1) else 1.0
    return (value * math.pi, True) if match.group(2) else (value, False)


def _close(expected: float, stated: float, loose: bool) -> bool:
    tolerance = 0.01 if loose else 1e-6
    return abs(expected - stated) <= tolerance * max(1.0, abs(expected))


def _shapes(sentence: str) -> Iterator[Fact]:
    if _OTHER_FIGURES.search(sentence):
        return
    shapes = [name for name, pattern in _SHAPE.items() if pattern.search(sentence)]
    if "square" in shapes and "cube" not in shapes and re.search(r"正方体|立方体", sentence):
        shapes.remove("square")
    if len(shapes) != 1:
        return
    (shape,) = shapes
    dims, units = _dimensions(sentence)
    if len(set(units)) > 1:
        return
    if "直径" in dims and "半径" not in dims:
        dims["半径"] = dims["直径"] / 2
    for (name, quantity), (needed, formula) in _FORMULAS.items():
        if name != shape or not all(d in dims for d in needed):
            continue
        for match in _RESULTS[quantity].finditer(sentence):
            chain = match.group(1) or match.group(2) or ""
            stated = _stated(chain)
            if stated is None:
                continue
            expected = formula(dims)
            listed = "，".join(f"{d}{dims[d]:g}" for d in needed)
            holds = _close(expected, stated[0], stated[1] or shape in ("circle", "cylinder"))
            yield Fact(match.group(0).strip(), holds, f"{name} with {listed}: {_NAMES[quantity]} = {expected:.6g}")


def _dimensions(sentence: str) -> tuple[dict[str, float], list[str]]:
    dims: dict[str, float] = {}
    units: list[str] = []
    for name, pattern in _DIMENSIONS.items():
        match = pattern.search(sentence)
        if match is None:
            continue
        value = match.group(1) or match.group(3)
        unit = match.group(2) if match.group(1) else match.group(4)
        dims[name] = float(value)
        if unit:
            units.append(unit.lower())
    return dims, units


def _angles(sentence: str) -> Iterator[Fact]:
    for match in _POLYGON_SUM.finditer(sentence):
        yield from _angle_fact(match.group(0), int(match.group(1)), match.group(2), lambda n: (n - 2) * 180)
    for match in _TRIANGLE_SUM.finditer(sentence):
        yield from _angle_fact(match.group(0), 3, match.group(1), lambda n: (n - 2) * 180)
    for match in _EXTERIOR_SUM.finditer(sentence):
        yield from _angle_fact(match.group(0), int(match.group(1)), match.group(2), lambda n: 360)
    for match in _REGULAR_ANGLE.finditer(sentence):
        each = _each_exterior if match.group(2) == "外" else _each_interior
        yield from _angle_fact(match.group(0), int(match.group(1)), match.group(3), each)
    for match in _EN_SUM.finditer(sentence):
        shape = match.group(1).lower()
        n = _EN_POLYGONS.get(shape) or (int(float(re.match(NUM, shape).group(0))) if re.match(NUM, shape) else None)  # type: ignore[union-attr]
        if n is not None:
            yield from _angle_fact(match.group(0), n, match.group(2), lambda n: (n - 2) * 180)


def _each_exterior(n: int) -> float:
    return 360 / n


def _each_interior(n: int) -> float:
    return (n - 2) * 180 / n


def _angle_fact(statement: str, n: int, chain: str, expected: Callable[[int], float]) -> Iterator[Fact]:
    stated = _stated(chain)
    if stated is None or not 3 <= n <= MAX_N:
        return
    value = expected(n)
    yield Fact(statement.strip(), _close(value, stated[0], False), f"{n}-gon: {value:g}°")


def _counts(sentence: str) -> Iterator[Fact]:
    if "握手" in sentence or "handshake" in sentence.lower() or "shake hands" in sentence.lower():
        people, total = _HANDSHAKE_PEOPLE.search(sentence), _HANDSHAKE_TOTAL.search(sentence)
        if people and total:
            yield from _pairs(total.group(0), int(people.group(1)), total.group(1) or total.group(2), 1)
    if "循环" in sentence or "round robin" in sentence.lower() or "round-robin" in sentence.lower():
        teams, games = _TEAMS.search(sentence), _GAMES.search(sentence)
        if teams and games:
            double = 2 if "双循环" in sentence or "double" in sentence.lower() else 1
            yield from _pairs(games.group(0), int(teams.group(1)), games.group(1) or games.group(2), double)
    for match in _CHOOSE.finditer(sentence):
        before = sentence[: match.start()].rstrip()
        if before and (before[-1] in "×*/÷)^_" or (before[-1].isascii() and before[-1].isalnum())):
            continue  # C_4^1 × A_4^4 = 96: a factor of a product, not the value of A_4^4
        kind, n, k, value = (
            (match.group(1), match.group(2), match.group(3), match.group(4))
            if match.group(1)
            else (match.group(5), match.group(6), match.group(7), match.group(8))
            if match.group(5)
            else ("C", match.group(9), match.group(10), match.group(11))
        )
        if int(n) > MAX_N or int(k) > int(n):
            continue
        expected = math.comb(int(n), int(k)) if kind == "C" else math.perm(int(n), int(k))
        yield Fact(match.group(0), Fraction(value) == expected, f"{kind}({n}, {k}) = {expected}")


def _pairs(statement: str, n: int, stated: str, times: int) -> Iterator[Fact]:
    if not 2 <= n <= MAX_N:
        return
    expected = times * n * (n - 1) // 2
    yield Fact(statement, Fraction(stated) == expected, f"{n} × {n - 1}{' ÷ 2' if times == 1 else ''} = {expected}")
