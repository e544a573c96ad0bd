"""Equations in one unknown that disagree with the previous equation in the same unknown.

Rewriting ``0.99B + 1.01B + B = 4500`` as ``3.01B = 4500``, or ``150 + x = 500``
as ``x = 350 - 150``, changes the solution: each linear equation in a single
unknown is solved (numerically, at three points, so nothing symbolic runs on
model text) and compared with the last solution found for that unknown. Once a
non-linear equation in an unknown appears (``(x-2)(x-3) = 0``), or a step gives it two values
as alternatives (``x - 3 = 5 or x - 3 = -5``), that unknown may have several values and is no
longer followed. A bare assignment (``n = 2``) is checked against the equation to solve before it
but does not replace it, so enumerating cases (``for n = 1 ..., for n = 2 ...``) is not a
conflict; neither is a bare assignment after a definition (``m = (6-2)/(4-2) = 2`` for one line,
``m = -1`` for another), nor an equation that only evaluates an expression at the value last
assigned (``x = 5``, so ``3x + 1 = 16``). A step that defines its unknowns ("Let x be the number
of pears", 设...) starts afresh.

An equation in one power of one unknown only (``4 - y^2 - y^2/3 = 1``) is linear in that power, which
is followed as an unknown of its own named ``y^2``: ``解得 y^2 = 9/2`` after it is a conflict (the
solution is 9/4). Whole powers from 2 to :data:`MAX_POWER` only; ``y`` and ``y^2`` in one equation is
not linear in either, and drops ``y`` (and so its powers).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from reasoning_metrics.guard import tick
from reasoning_metrics.verify._claims import Claim
from reasoning_metrics.verify._expr import Node, Unevaluable, evaluate
from reasoning_metrics.verify._tolerance import (
    FLOAT_NOISE,
    SAME_NUMBER,
    carried_error,
    carried_slack,
    decimal_slack,
    exact_at,
)
from reasoning_metrics.verify.rules.arithmetic import StepCheck

_POINTS = (Fraction(0), Fraction(1), Fraction(2), Fraction(3))
MAX_POWER = 4
"""``y^2``, ``y^3``, ``y^4`` are followed as unknowns; higher powers are not."""


@dataclass(frozen=True)
class EquationConflict:
    """An equation whose solution differs from the previous one in the same unknown."""

    variable: str
    value: float
    previous: float
    expression: str

    @property
    def message(self) -> str:
        """One line for a reader."""
        name = self.variable
        return f"{self.expression} gives {name} = {self.value:.6g}, but before {name} = {self.previous:.6g}"

    @property
    def message_zh(self) -> str:
        """The line in Chinese."""
        name = self.variable
        return f"由 {self.expression} 得 {name} = {self.value:.6g}，但前面 {name} = {self.previous:.6g}"


def linear_root(claim: Claim) -> tuple[str, float] | bool | None:
    """``(variable, value)`` for a linear equation in one unknown; ``False`` if it is non-linear in it;
    ``None`` when it is not an equation in exactly one unknown or has no single solution."""
    if claim.relation != "=":
        return None
    names = claim.left.variables() | claim.right.variables()
    if len(names) != 1:
        return None
    (name,) = names
    power = _single_power(claim.left, name) | _single_power(claim.right, name)
    if len(power) == 1 and None not in power:
        (exponent,) = power
        powered = f"{name}^{exponent}"
        claim = Claim(_as_unknown(claim.left, name, powered), "=", _as_unknown(claim.right, name, powered))
        name = powered
    values: list[tuple[Fraction, float]] = []
    for point in _POINTS:
        try:
            values.append((point, evaluate(claim.left, {name: point}) - evaluate(claim.right, {name: point})))
        except Unevaluable:
            continue
        if len(values) == 3:
            break
    if len(values) < 3:
        return None
    (x0, f0), (x1, f1), (x2, f2) = values
    slope = (f1 - f0) / float(x1 - x0)
    scale = max(1.0, abs(f0), abs(f1), abs(f2))
    if abs(f2 - (f1 + slope * float(x2 - x1))) > FLOAT_NOISE * scale:
        return False
    if abs(slope) < 1e-12 * scale:
        return None
    return name, float(x0) - f0 / slope


def _is_power_of(node: Node, name: str) -> bool:
    """Whether ``node`` is ``name`` raised to some power."""
    return node.op == "^" and node.args[0].op == "var" and node.args[0].text == name


def _single_power(node: Node, name: str) -> set[int | None]:
    """The exponents ``name`` is raised to in ``node``: a whole number 2..:data:`MAX_POWER` per ``name^k``,
    ``None`` for an occurrence that is not such a power."""
    if _is_power_of(node, name):
        exponent = node.args[1].value if node.args[1].op == "num" else None
        if exponent is not None and exponent.denominator == 1 and 2 <= exponent <= MAX_POWER:
            return {int(exponent)}
        return {None}
    if node.op == "var":
        return {None} if node.text == name else set()
    return set().union(*(_single_power(arg, name) for arg in node.args))


def _as_unknown(node: Node, name: str, powered: str) -> Node:
    """``node`` with each ``name^k`` replaced by one unknown named ``powered``."""
    if _is_power_of(node, name):
        return Node("var", text=powered)
    if not node.args:
        return node
    return replace(node, args=tuple(_as_unknown(arg, name, powered) for arg in node.args))


def _tolerance(claim: Claim, value: float, previous: float) -> float:
    """Rounding the written numbers allow: ``x = 33.3`` after ``3x = 100``, not ``x = 5`` after ``x = 4``."""
    rel = carried_error(claim.left.literals() + claim.right.literals())
    tol = max(SAME_NUMBER * max(1.0, abs(value)), carried_slack(rel, value))
    if claim.right.op == "num" and not exact_at(previous, claim.right.decimals):
        tol = max(tol, decimal_slack(claim.right.decimals))
    return tol


def equation_conflicts(checks: Sequence[StepCheck]) -> list[list[EquationConflict]]:
    """Per step, the equations that contradict the previous equation in the same unknown."""
    last: dict[str, float] = {}
    """Unknown -> solution of the last equation to solve in it (not a bare assignment ``x = 3``)."""
    defined: set[str] = set()
    """Unknowns whose last value came from a definition (``m = (6-2)/(4-2)``), not from an equation to solve."""
    assigned: dict[str, float] = {}
    """Unknown -> value of its last bare assignment (a case, a choice: ``x = 2``, then ``x = 5``)."""
    dropped: set[str] = set()
    found: list[list[EquationConflict]] = []
    for check in checks:
        tick()
        if check.defines:  # "Let x be the number of pears": a new unknown under an old name
            last.clear()
            defined.clear()
            assigned.clear()
            dropped.clear()
        solved = [(c, c.claim, linear_root(c.claim)) for c in check.claims if c.claim is not None]
        if check.alternatives:
            dropped |= _several_values([root for _, _, root in solved])
        step: list[EquationConflict] = []
        for claim_check, claim, root in solved:
            if root is False:
                dropped |= claim.left.variables() | claim.right.variables()
            if not isinstance(root, tuple) or root[0].split("^")[0] in dropped:
                continue
            name, value = root
            bare = _is_bare(claim, name)
            if not bare and name in assigned and _close(claim, value, assigned[name]):
                continue  # "x = 2, so 3x + 1 = 7": evaluated at the value given, not solved for it
            previous = last.get(name)
            if previous is not None and not (bare and name in defined) and not _close(claim, value, previous):
                step.append(EquationConflict(name, value, previous, claim_check.expression))
            if bare:
                assigned[name] = value
            else:
                last[name] = value
                if claim.left.op == "var" and not claim.right.has_variable():
                    defined.add(name)
                else:
                    defined.discard(name)
        found.append(step)
    return found


def _is_bare(claim: Claim, name: str) -> bool:
    """A bare assignment: ``x = 3``, or ``y^2 = 9/2`` to a power followed as an unknown."""
    left = claim.left
    named = left.op == "var" or ("^" in name and _is_power_of(left, name.split("^")[0]))
    return named and not claim.right.is_operation() and not claim.right.has_variable()


def _several_values(roots: Sequence[tuple[str, float] | bool | None]) -> set[str]:
    """Unknowns with more than one value among ``roots`` (a step that lists alternatives)."""
    values: dict[str, set[float]] = {}
    for root in roots:
        if isinstance(root, tuple):
            values.setdefault(root[0], set()).add(round(root[1], 9))
    return {name for name, found in values.items() if len(found) > 1}


def _close(claim: Claim, value: float, previous: float) -> bool:
    return abs(value - previous) <= _tolerance(claim, value, previous)
