"""Check the calculations and equalities a step asserts, numerically and with rounding in mind.

>>> [c.verdict.value for c in check_step("So 3 × 4 = 12 and 48/2 = 25.")]
['true', 'false']

Tolerance: a claimed number written with ``d`` decimals may be the true value
rounded to that precision (``100/3 = 33``, ``= 33.3``, ``2/3 ≈ 0.67``; not
``0.5^2 = 1`` nor ``2/3 = 0.66``), raised or cut at it only where the step says so
(进一法, 去尾法, 至少, round up: ``45 ÷ 40 ≈ 2``), and exact where the true value is
itself exact at that precision (``7 × 8 = 57`` is false). A count of things (:func:`counts_things`) is
raised or cut without a word saying so: ``25 ÷ 1.5 ≈ 16（个）``, as 进一法 and 去尾法 are taught for the
近似数 of a quotient. Operands written with two or more decimals may carry
rounding from earlier steps, and the tolerance grows with their relative error.
``≈`` also accepts 1 % relative error. A percentage standing alone on one side
is read both as a fraction and as a plain number (``0.7 × 100 = 70%``).
Claims between two bare numbers (``1 hour = 60 minutes``) and claims with
variables are not checked.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from fractions import Fraction

from reasoning_metrics.guard import tick
from reasoning_metrics.verify._claims import Claim, find_claims, literal_value, prepare
from reasoning_metrics.verify._expr import Node, ParseFailure, Unevaluable, evaluate, evaluate_complex, parse
from reasoning_metrics.verify._lexer import tokenize
from reasoning_metrics.verify._normalize import names_conic, normalize
from reasoning_metrics.verify._restated import restated_claims
from reasoning_metrics.verify._tolerance import (
    FLOAT_NOISE,
    carried_error,
    carried_slack,
    decimal_slack,
    exact_at,
    is_whole,
)
from runners.extraction.markers import STATED_ANSWER

MAX_STEP_CHARS = 20_000
"""Only the first this many characters of a step are read."""
APPROX_RELATIVE = 0.01
_ANNOTATION = re.compile(r"<<([^<>=]{1,200})=([^<>]{1,60})>>")


class Verdict(Enum):
    """Outcome of checking one claim."""

    TRUE = "true"
    FALSE = "false"
    UNCHECKED = "unchecked"


@dataclass(frozen=True)
class ClaimCheck:
    """One asserted relation and whether it holds."""

    left: str
    """Left calculation as read (normalised notation)."""
    relation: str
    """One of ``= ≈ ≠ < > ≤ ≥``."""
    right: str
    verdict: Verdict
    left_value: float | None = None
    right_value: float | None = None
    note: str = ""
    """Why a claim was not checked, or how it was read (``rounded``, ``percent as a plain number``)."""
    source: str = "text"
    """``text`` for the step's prose, ``annotation`` for a GSM8K ``<<a*b=c>>`` calculator note,
    ``restated`` for a named calculation and the value given to the same name later (:mod:`.._restated`)."""
    operands: tuple[float, ...] = ()
    """Numbers the calculation starts from: the literals of each side that computes something."""
    claim: Claim | None = field(default=None, repr=False, compare=False)
    """The parsed claim (for the equation check)."""
    name: str = ""
    """What a restated claim's two sides were both called (``total earnings``, ``S``); empty otherwise."""
    complex_values: tuple[complex, complex] | None = None
    """The two sides' values when the claim names the imaginary unit (``left_value`` is then None)."""

    @property
    def expression(self) -> str:
        """The claim as one line, e.g. ``48 / 2 = 25``."""
        return f"{self.left} {self.relation} {self.right}"


@dataclass(frozen=True)
class StepCheck:
    """Every claim found in one step."""

    claims: tuple[ClaimCheck, ...] = ()
    truncated: bool = False
    """The step was longer than :data:`MAX_STEP_CHARS` and only its start was read."""
    mentioned: tuple[float, ...] = field(default=())
    """Every number written in the step (after normalisation), claims or not."""
    answers: tuple[float, ...] = field(default=())
    """Numbers the step states as the final answer (``\\boxed{18}``, "the answer is 18", 答案为18)."""
    alternatives: bool = False
    """The step lists alternatives ("x - 3 = 5 or x - 3 = -5", 或): an unknown may take several values in it."""
    defines: bool = False
    """The step (re)defines its unknowns ("Let x be ...", 设/令 ...): earlier equations say nothing about them."""

    @property
    def calculates(self) -> bool:
        """Whether the step evaluates at least one calculation."""
        return any(c.left_value is not None for c in self.claims)

    @property
    def false_claims(self) -> list[ClaimCheck]:
        """The claims that do not hold."""
        return [c for c in self.claims if c.verdict is Verdict.FALSE]

    @property
    def checked(self) -> int:
        """How many claims were checked (true or false)."""
        return sum(c.verdict is not Verdict.UNCHECKED for c in self.claims)


def check_step(text: str) -> list[ClaimCheck]:
    """Every claim of one step, checked. See :func:`inspect_step` for the numbers it mentions too."""
    return list(inspect_step(text).claims)


def inspect_step(
    text: str, *, conic: bool = False, directed: bool = False, estimate: bool = False, counts: bool = False
) -> StepCheck:
    """Claims and mentioned numbers of one step of a solution, in Chinese or English, plain or LaTeX.

    ``conic``: the question or the solution speaks of a conic, so ``e`` is not Euler's number
    (:func:`~reasoning_metrics.verify._normalize.normalize`). ``directed``: the question or an earlier step says
    values are raised or cut (进一法, 至少; :func:`says_directed`): a quotient of the step may then be raised or cut
    (45 ÷ 40 ≈ 2 buses), any number where the step itself says so. ``estimate``: the question
    or an earlier step asks for an estimate (估算; :func:`says_estimate`), as the step itself may. ``counts``: the
    question asks how many whole things (:func:`asks_count`): an ``≈`` of a quotient and a whole number is then a
    count, raised or cut (:func:`counts_things`), as it is where a count unit follows the number."""
    return _inspect(*_read(text), conic=conic, directed=directed, estimate=estimate, counts=counts)


@dataclass(frozen=True)
class _Said:
    """What a step's own words say of its values: they are raised or cut (:func:`says_directed`), or estimated
    (:func:`says_estimate`). Read once a step: :func:`check_steps` carries them to the later steps."""

    directed: bool
    estimate: bool


def _read(step: str) -> tuple[str, bool, _Said]:
    """The part of ``step`` read (its first :data:`MAX_STEP_CHARS`), whether that cut it, and what it says."""
    text = step[:MAX_STEP_CHARS]
    return text, len(step) > MAX_STEP_CHARS, _Said(says_directed(text), says_estimate(text))


def _inspect(
    text: str, truncated: bool, said: _Said, *, conic: bool, directed: bool, estimate: bool, counts: bool
) -> StepCheck:
    """:func:`inspect_step` of a step's ``text`` as read (its first :data:`MAX_STEP_CHARS`), ``said`` by its own
    words; ``directed`` and ``estimate``: said by the question or an earlier step."""
    checks: list[ClaimCheck] = []
    for match in _ANNOTATION.finditer(text):
        checks.extend(_check_annotation(match.group(1), match.group(2), conic))
    tokens = tokenize(normalize(_ANNOTATION.sub(" ", text), conic=conic))
    prepared = prepare(tokens)
    seen = {c.expression for c in checks}
    found = [(claim, "text", "") for claim in find_claims(prepared)]
    found += [(claim, "restated", name) for name, claim in restated_claims(prepared)]
    for claim, source, name in found:
        check = check_claim(
            claim,
            source=source,
            name=name,
            directed=said.directed or (directed and _is_quotient(claim)) or counts_things(claim, counts),
            estimate=estimate or said.estimate,
        )
        if check.expression not in seen:
            seen.add(check.expression)
            checks.append(check)
    mentioned = tuple(float(t.value) for t in tokens if t.value is not None)
    return StepCheck(
        tuple(checks),
        truncated,
        mentioned,
        stated_answers(text),
        alternatives=bool(_ALTERNATIVES.search(text)),
        defines=bool(_DEFINES.search(text)),
    )


_DIRECTED_ROUNDING = re.compile(
    r"进一|收尾|去尾|取整|至少|最少|最多|余数|round(?:ed|ing)?\s+(?:up|down)|ceil|floor|at\s+(?:least|most)|remainder",
    re.IGNORECASE,
)
"""Words saying a value is raised or cut at the digits written (进一法 or 收尾法 for buses, 去尾法 for boxes, a
quotient with its remainder)."""
PI_314 = Fraction(314, 100)
"""π as school takes it (π取3.14), stated or not: ``24π = 75.36`` is a right step."""


COUNT_UNITS = frozenset("个辆人名位条只本箱盒次天张件组瓶袋套台棵份支根把双副架艘座间头匹朵杯桶筐篮包捆页题道趟批")
"""Measure words (量词) of things counted whole: a number of them is raised or cut, not rounded (元, 米,
千克, 小时, 倍 and other measures of amounts are not here; 块 is also money, so it is not either)."""
_ASKS_COUNT = re.compile(r"最多|最少|至多|至少|(?:能|可以|够)[^，,。？?；;！!\n]{0,12}几")
"""Questions asking for a number of whole things: 最多/最少/至多/至少, 能 (可以, 够) … 几 (能装几盒, 可以包装几个)."""
_EXTREME, _WHOLE = re.compile(r"最大|最小"), re.compile(r"整数|自然数")


def asks_count(question: str) -> bool:
    """The question asks how many whole things (:data:`_ASKS_COUNT`), or the greatest or least whole number
    (最大 or 最小 in a question about 整数 or 自然数): a quotient it is answered with is raised or cut (进一法,
    去尾法), so ``25 ÷ 1.5 ≈ 16`` is right under 这根彩绳最多能包装几个礼盒."""
    return bool(_ASKS_COUNT.search(question) or (_EXTREME.search(question) and _WHOLE.search(question)))


def counts_things(claim: Claim, asked: bool = False) -> bool:
    """``claim`` says a quotient is about a whole number of things, so that number is right raised or cut
    (进一法, 去尾法: the quotient's floor or ceiling), not only rounded.

    The rule, from how primary school teaches the 近似数 of a quotient (人教版五年级上 商的近似数, 用进一法和
    去尾法解决问题): a count of bottles, boxes or buses is a whole number, and the question decides whether a part
    left over is dropped (最多能装几盒: 去尾法) or needs one more (至少需要几个瓶子: 进一法); a teacher writes
    ``25 ÷ 1.5 ≈ 16（个）`` or ``45 ÷ 40 ≈ 2（辆）`` with no word naming the method. So: an ``≈`` whose
    calculating side is a quotient and whose other side is a whole number written without decimals, followed
    by a count unit (:data:`COUNT_UNITS`: ``≈ 26（个）``, ``≈ 2辆``), or under a question that asks how many
    whole things (``asked``, :func:`asks_count`). An ``=`` claim, a number written with decimals and a
    number of a measure (``≈ 16（米）``, ``≈ 3（小时）``) stay rounded to the digits written.
    """
    claimed = literal_value(claim.right)
    if claim.relation != "≈" or claimed is None or not _is_quotient(claim):
        return False
    value, decimals, percent = claimed
    if decimals or percent or value.denominator != 1:
        return False
    return asked or claim.unit[:1] in COUNT_UNITS


_ESTIMATE = re.compile(r"估|\bestimat", re.IGNORECASE)
"""Words asking for an estimate (估算, 估一估, 估计, estimate): each number taken as a round one."""
ESTIMATE_FIGURES = (1, 2)
"""The significant figures an estimate keeps of each number: 31 × 49 ≈ 30 × 50, 347 + 256 ≈ 350 + 260."""


def says_estimate(text: str) -> bool:
    """``text`` (a question or a step) asks for an estimate: then ``31 × 49 ≈ 1500`` is right (30 × 50)."""
    return bool(_ESTIMATE.search(text))


def says_directed(text: str) -> bool:
    """``text`` (a question or a step) says values are raised or cut, not only rounded (至少需要几辆车, 进一法):
    the question's words hold for every step, as an earlier step's do for the later ones."""
    return bool(_DIRECTED_ROUNDING.search(text))


_ALTERNATIVES = re.compile(r"\b(?:or|either)\b|或", re.IGNORECASE)
_DEFINES = re.compile(
    r"\b(?:let|suppose|denote)\s+\$?\\?\(?\s*[A-Za-z](?:_\{?\w+\}?)?\s*\\?\)?\$?\s+(?:be|denote|represent|stand)"
    r"|\blet\s+\$?\\?\(?\s*[A-Za-z]\s*\\?\)?\$?\s+(?:=|equal)|设|令",
    re.IGNORECASE,
)


def stated_answers(text: str) -> tuple[float, ...]:
    """The first number of each final-answer statement in ``text``."""
    values = []
    for match in STATED_ANSWER.finditer(text):
        content = next(g for g in match.groups() if g is not None)
        number = next((t.value for t in tokenize(normalize(content)) if t.value is not None), None)
        if number is not None:
            values.append(float(number))
    return tuple(values)


def check_steps(steps: Sequence[str], question: str = "") -> list[StepCheck]:
    """:func:`inspect_step` of each step (checking the chain's time budget, :func:`reasoning_metrics.guard.tick`, between steps).

    A question or a solution that speaks of a conic anywhere makes ``e`` an eccentricity in every step: a right
    step ``e^2 = 3/4`` of an ellipse question need not say 离心率 itself."""
    conic = names_conic(question) or any(names_conic(step) for step in steps)
    directed, estimate, counts = says_directed(question), says_estimate(question), asks_count(question)
    out = []
    for step in steps:
        tick()
        text, truncated, said = _read(step)
        out.append(_inspect(text, truncated, said, conic=conic, directed=directed, estimate=estimate, counts=counts))
        directed, estimate = directed or said.directed, estimate or said.estimate
    return out


def _check_annotation(expression: str, result: str, conic: bool = False) -> list[ClaimCheck]:
    try:
        left = parse(tokenize(normalize(expression, conic=conic)))
        right = parse(tokenize(normalize(result, conic=conic)))
    except ParseFailure:
        return []
    return [check_claim(Claim(left, "=", right), source="annotation")]


def check_claim(
    claim: Claim, source: str = "text", name: str = "", *, directed: bool = False, estimate: bool = False
) -> ClaimCheck:
    """Check one claim (see the module doc for the tolerance); ``name`` is what a restated claim names;
    ``directed``: its step says it raises or cuts values (进一法, 去尾法), not only rounds them; ``estimate``: its
    chain asks for an estimate (估算), so an ``≈`` may take each number rounded."""
    left, right = claim.left, claim.right
    operands = _operands(claim)

    def result(
        verdict: Verdict,
        note: str,
        lv: float | None = None,
        rv: float | None = None,
        complex_values: tuple[complex, complex] | None = None,
    ) -> ClaimCheck:
        return ClaimCheck(
            left.render(),
            claim.relation,
            right.render(),
            verdict,
            lv,
            rv,
            note,
            source,
            operands,
            claim,
            name,
            complex_values,
        )

    if not left.is_operation() and not right.is_operation():
        return result(Verdict.UNCHECKED, "no calculation")
    if claim.relation == "=" and literal_value(left) is not None and not claim.chained:
        # "5 quarters = 5 * 25 = 125", "4 hours = 4 × 60": a number naming a quantity, not its value
        return result(Verdict.UNCHECKED, "number used as a label")
    if left.has_imaginary() or right.has_imaginary():
        verdict, note, values = _complex_verdict(claim)
        return result(verdict, note, complex_values=values)
    try:
        lv, rv = evaluate(left), evaluate(right)
    except Unevaluable as exc:
        return result(Verdict.UNCHECKED, str(exc))
    holds, note = _holds(claim, lv, rv, directed)
    if not holds and _pi_in_arithmetic(left, right):
        holds = _holds_with_pi_314(claim, directed)
        note = "π as 3.14" if holds else note
    if not holds and estimate and claim.relation == "≈" and _holds_estimated(claim):
        holds, note = True, "estimated"
    if not holds and claim.units_dropped and _power_of_ten_apart(lv, rv):
        return result(Verdict.UNCHECKED, "units differ by a prefix (W and kW?)", lv, rv)
    if claim.units_dropped and not note:
        note = "units dropped"
    return result(Verdict.TRUE if holds else Verdict.FALSE, note, lv, rv)


def _holds_with_pi_314(claim: Claim, directed: bool) -> bool:
    """Whether the claim holds with every π read as 3.14."""
    as_314 = replace(claim, left=claim.left.pi_as(PI_314), right=claim.right.pi_as(PI_314))
    try:
        return _holds(as_314, evaluate(as_314.left), evaluate(as_314.right), directed)[0]
    except Unevaluable:  # 1 / (π - 3.14)
        return False


def _is_quotient(claim: Claim) -> bool:
    """The claim's calculating side is a division (``45 ÷ 40 ≈ 2``): what 进一法 and 去尾法 raise or cut."""
    side = claim.left if claim.left.is_operation() else claim.right
    return side.op == "/"


def _holds_estimated(claim: Claim) -> bool:
    """Whether ``≈`` holds with each number of its calculating sides rounded to one or two significant figures
    (:data:`ESTIMATE_FIGURES`), as an estimate takes them; a bare number claimed stays as written."""
    for figures in ESTIMATE_FIGURES:
        sides = [_round_literals(side, figures) if side.is_operation() else side for side in (claim.left, claim.right)]
        try:
            if math.isclose(evaluate(sides[0]), evaluate(sides[1]), rel_tol=FLOAT_NOISE, abs_tol=FLOAT_NOISE):
                return True
        except Unevaluable:
            return False
    return False


def _round_literals(node: Node, figures: int) -> Node:
    """``node`` with each number literal rounded half up to ``figures`` significant figures (612 -> 600, 49 -> 50)."""
    if node.op == "num" and node.value:
        value = node.value
        unit = Fraction(10) ** (math.floor(math.log10(abs(value))) - figures + 1)
        rounded = math.floor(abs(value) / unit + Fraction(1, 2)) * unit * (1 if value > 0 else -1)
        return replace(node, value=rounded)
    if not node.args:
        return node
    return replace(node, args=tuple(_round_literals(arg, figures) for arg in node.args))


def _pi_in_arithmetic(*sides: Node) -> bool:
    """π is in the calculation, as an area's or a volume's factor, and in no function's argument (``sin π/6`` is an
    angle in radians, not 3.14 of them)."""

    def functions(node: Node) -> bool:
        return node.op == "fn" or any(functions(arg) for arg in node.args)

    return any(side.has_pi() for side in sides) and not any(functions(side) for side in sides)


def _complex_verdict(claim: Claim) -> tuple[Verdict, str, tuple[complex, complex] | None]:
    """Whether a claim with the imaginary unit holds: ``=`` to floating-point noise, ``≈`` within
    :data:`APPROX_RELATIVE`; numbers written with decimals, or other relations, are not checked
    (complex numbers are not ordered; their rounding is not modelled). Also a note and the two values."""
    literals = claim.left.literals() + claim.right.literals()
    if claim.relation not in ("=", "≈") or any(n.decimals for n in literals):
        return Verdict.UNCHECKED, "complex number", None
    try:
        lv, rv = evaluate_complex(claim.left), evaluate_complex(claim.right)
    except Unevaluable as exc:
        return Verdict.UNCHECKED, str(exc), None
    scale = max(1.0, abs(lv), abs(rv))
    tol = FLOAT_NOISE * scale if claim.relation == "=" else APPROX_RELATIVE * scale
    holds = abs(lv - rv) <= tol
    note = f"complex number: {complex_text(lv)} vs {complex_text(rv)}"
    return (Verdict.TRUE if holds else Verdict.FALSE), note, (lv, rv)


def complex_text(value: complex) -> str:
    """``2-2i``, ``3``, ``-i``: a complex value as a teacher writes it (a part that is rounding noise
    beside the other, ``-1-1.0e-28i``, is zero)."""
    noise = FLOAT_NOISE * max(1.0, abs(value))
    real, imag = (0.0 if abs(part) <= noise else float(f"{part:.6g}") for part in (value.real, value.imag))
    if imag == 0:
        return f"{real:g}"
    unit = "i" if abs(imag) == 1 else f"{abs(imag):g}i"
    if real == 0:
        return unit if imag > 0 else f"-{unit}"
    return f"{real:g}{'+' if imag > 0 else '-'}{unit}"


def _power_of_ten_apart(a: float, b: float) -> bool:
    if a == 0 or b == 0 or (a > 0) != (b > 0):
        return False
    exponent = math.log10(abs(a / b))
    return is_whole(exponent) and round(exponent) in (-6, -3, -2, -1, 1, 2, 3, 6)


def _operands(claim: Claim) -> tuple[float, ...]:
    """The numbers a ground calculation starts from: its computing side's literals.

    That is the left side (``3 × 4 = 12``), or the right side when the left is a
    bare number (``12 = 3 × 4``); a chained claim (``b = c`` of ``a = b = c``)
    and an equation with an unknown start from nothing new.
    """
    if claim.chained or claim.left.has_variable() or claim.right.has_variable():
        return ()
    if not claim.left.is_operation() and not claim.right.is_operation():
        return ()  # "in 8 years = 42": two bare numbers, no calculation starts anywhere
    side = claim.left if claim.left.is_operation() else claim.right
    return tuple(float(n.value) for n in side.literals() if n.value is not None)


def _holds(claim: Claim, lv: float, rv: float, directed: bool) -> tuple[bool, str]:
    """Whether ``lv relation rv`` holds within the tolerance; a note on how it was read."""
    readings: list[tuple[float, float, bool, str]] = [(lv, rv, False, "")]
    right, left = literal_value(claim.right), literal_value(claim.left)
    if right is not None and right[2]:
        readings.append((lv, float(right[0]), True, "percent as a plain number"))
    elif left is not None and left[2]:
        readings.append((float(left[0]), rv, True, "percent as a plain number"))
    for left_value, right_value, plain, note in readings:
        tol, rounded = _tolerance(claim, left_value, right_value, plain, directed)
        if _compare(claim.relation, left_value, right_value, tol):
            exact = math.isclose(left_value, right_value, rel_tol=1e-12, abs_tol=1e-12)
            rounded = rounded and not exact and claim.relation in ("=", "≈")
            return True, note or ("rounded" if rounded else "")
    return False, ""


def _tolerance(claim: Claim, lv: float, rv: float, percent_plain: bool, directed: bool) -> tuple[float, bool]:
    """Absolute tolerance for comparing the two sides, and whether it allows for rounding."""
    right = literal_value(claim.right)
    claimed, computed, computed_node = (
        (right, lv, claim.left) if right else (literal_value(claim.left), rv, claim.right)
    )
    tol = FLOAT_NOISE * max(1.0, abs(computed))
    rounded = False
    if claim.relation in ("≠", "<", ">"):
        return tol, False  # "1/97 + ... ≠ 0": no rounding slack for these
    if claimed is not None:
        _, decimals, percent = claimed
        places = decimals + (2 if percent and not percent_plain else 0)
        if not exact_at(computed, places):
            tol = max(tol, decimal_slack(places, directed=directed))
            rounded = True
    extra = carried_error(computed_node.literals())
    if extra:
        tol += carried_slack(extra, computed)
        rounded = True
    if claim.relation == "≈":
        tol = max(tol, APPROX_RELATIVE * abs(computed))
        rounded = True
    return tol, rounded


def _compare(relation: str, lv: float, rv: float, tol: float) -> bool:
    diff = lv - rv
    if relation in ("=", "≈"):
        return abs(diff) <= tol
    if relation == "≠":
        return abs(diff) > tol
    if relation == "<":
        return diff < 0
    if relation == ">":
        return diff > 0
    if relation == "≤":
        return diff <= tol
    if relation == "≥":
        return diff >= -tol
    return True
