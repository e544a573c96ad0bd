"""``facts``: a false fact about a number, formula, unit conversion or chemical equation a step states
(:mod:`..rules.facts`, :mod:`..rules.formulas`, :mod:`..rules.conversions`, :mod:`..rules.chemistry`), checked
with sympy, exact arithmetic and atom counts."""

from __future__ import annotations

import re

from reasoning_metrics.guard import tick
from reasoning_metrics.verify.detector import Detector, Evidence, Findings, Labels, flag
from reasoning_metrics.verify.flags import FlagKind, StepFlag
from reasoning_metrics.verify.rules.chemistry import stated_chemistry
from reasoning_metrics.verify.rules.conversions import stated_conversions
from reasoning_metrics.verify.rules.facts import Fact, stated_facts
from reasoning_metrics.verify.rules.formulas import stated_formulas


class Facts(Detector):
    """One flag per false statement of a step: ``false_fact`` for properties of numbers (prime, even,
    divisible, integer, square) and for chemistry (an equation that does not balance, a named compound's
    formula, :mod:`..rules.chemistry`), ``wrong_formula`` for formulas and unit conversions."""

    name = "facts"
    labels = Labels(zh="事实与公式检查", en="facts and formulas")
    orientation = "number of false facts, formulas and conversions"
    """What its score counts, as meta-eval reports it alone (higher = more suspect)."""
    reads = frozenset({"problem", "steps"})
    needs = frozenset()
    kinds = frozenset({FlagKind.FALSE_FACT, FlagKind.WRONG_FORMULA})

    def find(self, evidence: Evidence) -> Findings:
        """Flags per step."""
        steps: list[list[StepFlag]] = []
        for step in evidence.steps:
            tick()
            flags = [
                flag(
                    FlagKind.FALSE_FACT, f"{fact.statement} is false ({fact.why})", fact.statement, _zh(fact, "是错的")
                )
                for fact in stated_facts(step) + stated_chemistry(step, evidence.problem)
                if not fact.holds
            ]
            flags += [
                flag(
                    FlagKind.WRONG_FORMULA,
                    f"{fact.statement} does not hold ({fact.why})",
                    fact.statement,
                    _zh(fact, "不成立"),
                )
                for fact in stated_formulas(step) + stated_conversions(step)
                if not fact.holds
            ]
            steps.append(flags)
        return Findings.at_steps(steps)


def _zh(fact: Fact, verdict: str) -> str:
    """The Chinese line: the reason in brackets when it is written in symbols (``10 = 2 × 5``), not English words."""
    why = "" if re.search(r"[A-Za-z]{3,}", fact.why) else f"（{fact.why}）"
    return f"“{fact.statement}”{verdict}{why}"
