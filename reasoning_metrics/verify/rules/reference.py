"""Where a solution leaves the teacher's reference: the gold answer and the worked analysis.

:func:`read_reference` reads once what the analysis computes (bindings, named values and
relations of :mod:`.._quantities_named`, every number it writes) with the question's numbers and
the gold answer; :func:`compare_steps` then walks the model's steps once:

* a *value* finding: a step gives a variable, an expression in variables or a named quantity that
  the analysis also gives, a value the analysis never gives it (``x = 5`` where the analysis says
  ``x = 3``; ``速度为4m/s`` where it says ``速度为5m/s``);
* a *relation* finding: a step states ``x < 3`` where the analysis says ``x > 3`` (no value satisfies
  both, and the analysis states no relation that includes the step's);
* an *answer* finding: the step that states the final answer (or, without one, the last step giving
  a value) reaches a number, or a choice letter, that the gold answer does not hold.

A finding on a variable of the question is *hard*; a named quantity, a variable the solution
introduces itself (设 x ...) and the final answer are *soft*: names and letters may mean other
things in another route. A graded-right answer (``Reference.correct``) gets hard findings, and a
departure at the first calculation whose numbers are all known but whose result the analysis never
reaches (:func:`new_value` with ``from_known``: a right answer reached through ``7+3+4=14``).
A graded-wrong one always gets a step: the first finding, else a *departure* at the earliest step
whose computed values (results of calculations, bindings, named values, stated answers) are none of
the analysis's or question's numbers (a choice question's numbers without the options the gold answer rules
out: reaching a wrong option's value is leaving the analysis), else at the step that introduces the wrong final value, else
the last step.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from reasoning_metrics.guard import tick
from reasoning_metrics.split import split_steps
from reasoning_metrics.verify._expr import Unevaluable, evaluate
from reasoning_metrics.verify._plain import NUM, START, number, plain
from reasoning_metrics.verify._quantities_named import Named, Relation, bindings, keys_of, named_values, relations
from reasoning_metrics.verify.detector import Reference
from reasoning_metrics.verify.rules.arithmetic import StepCheck, check_steps
from reasoning_metrics.verify.rules.quantities import given_numbers
from runners.extraction.markers import CHOSEN_LETTER

Kind = Literal["value", "relation", "answer", "departure"]
_LETTER = re.compile(r"(?:选|答案(?:是|为|应为|应选)?\s*:?|answer is)\s*\(?\s*([A-H])(?![A-Za-z])")
_MARKERS = ("答案", "boxed", "answer", "Answer", "####")
_CIRCLED = re.compile(r"[\u2460-\u2473\u24f5-\u24fe\u2776-\u277f]")
_QUESTION_VARIABLE = re.compile(r"(?<![A-Za-z\\])[A-Za-z](?![A-Za-z])")


@dataclass
class ReadReference:
    """What the analysis computes, with the question's numbers and the gold answer."""

    bindings: dict[str, list[float]] = field(default_factory=dict)
    named: dict[str, list[Named]] = field(default_factory=dict)
    """Every suffix of every named value's key -> the named values under it."""
    relations: dict[str, list[Relation]] = field(default_factory=dict)
    values: list[float] = field(default_factory=list)
    """Sorted: every number of the analysis, the question and the gold answer."""
    gold: list[Fraction] = field(default_factory=list)
    letters: frozenset[str] = frozenset()
    """The gold answer's choice letters, when it is one."""
    question_variables: frozenset[str] = frozenset()
    solved: dict[str, float] = field(default_factory=dict)
    """Each variable the analysis gives exactly one value (``x = 5`` and nothing else)."""


@dataclass(frozen=True)
class Finding:
    """One place where a step leaves the reference."""

    step: int
    kind: Kind
    hard: bool
    message: str
    evidence: str = ""
    variables: frozenset[str] = frozenset()
    message_zh: str | None = None
    """``message`` in Chinese."""


def read_reference(problem: str, reference: Reference) -> ReadReference:
    """What :func:`compare_steps` compares with (see the module doc)."""
    read = ReadReference()
    texts = split_steps(reference.analysis)
    values: set[float] = set(given_numbers(_without_wrong_options(problem, reference.answer)))
    # In the question's context, as the model's steps are checked: an ellipse question's e is an eccentricity in
    # the analysis too (read alone, e^2 = 3/4 also gave Euler's number squared), its 进一法 and 估算 hold there.
    analysis_checks = check_steps(texts, problem)
    for text, check in zip(texts, analysis_checks, strict=True):
        tick()
        for b in bindings(check):
            read.bindings.setdefault(b.key, []).append(b.value)
            values.add(b.value)
        for n in named_values(text):
            for key in keys_of(n.key):
                read.named.setdefault(key, []).append(n)
            values.add(n.value)
        for r in relations(text):
            read.relations.setdefault(r.variable, []).append(r)
        values.update(check.mentioned)
        values.update(v for c in check.claims for v in (c.left_value, c.right_value) if v is not None)
    answer = plain(reference.answer)
    if _CIRCLED.search(reference.answer):
        pass  # ①⑤ names statements; NFKC would read it as the number 15
    elif re.fullmatch(r"\s*[A-H]+\s*", answer):
        read.letters = frozenset(answer.strip())
    else:
        read.gold = [v for v in (number(m.group(0)) for m in re.finditer(rf"{NUM}(?:/\d+)?", answer)) if v is not None]
        values.update(float(v) for v in read.gold)
    read.values = sorted(values)
    for key, given in read.bindings.items():
        if re.fullmatch(r"[A-Za-z](?:_\w+)?", key) and all(same(v, given[0]) for v in given):
            read.solved[key] = given[0]
    for i, check in enumerate(analysis_checks):
        for finding in _equations_at(i, check, read):
            # the analysis's own equation fails there: its letters take other values elsewhere (cases, parts)
            for variable in finding.variables:
                read.solved.pop(variable, None)
    read.question_variables = frozenset(_QUESTION_VARIABLE.findall(plain(problem)))
    return read


def _without_wrong_options(problem: str, answer: str) -> str:
    """The question's text without the options the gold answer rules out: a value only a wrong option
    holds (``D. 16 g``) is one the analysis does not reach, so a step that computes it leaves the analysis."""
    from reasoning_metrics.verify.verdicts import OPTION_LINE, gold_letters, options_of

    letters = options_of(problem)
    gold = gold_letters(answer, letters)
    if len(letters) < 2 or not gold:
        return problem
    starts = list(OPTION_LINE.finditer(problem))
    kept = [problem[: starts[0].start()]]
    for m, after in zip(starts, [*starts[1:], None], strict=True):
        if m.group(1) in gold:
            kept.append(problem[m.start() : after.start() if after else len(problem)])
    return "\n".join(kept)


def same(a: float, b: float) -> bool:
    """Equal, allowing a value rounded at a few decimals where either is not whole."""
    if float(a).is_integer() and float(b).is_integer():
        return a == b
    return abs(a - b) <= 0.005 * max(1.0, abs(a), abs(b))


def _known(values: list[float], value: float) -> bool:
    tolerance = 0.005 * max(1.0, abs(value))
    i = bisect.bisect_left(values, value - tolerance)
    return any(same(v, value) for v in values[i : i + 8] if v <= value + tolerance)


def compare_steps(steps: Sequence[str], checks: Sequence[StepCheck], read: ReadReference) -> list[Finding]:
    """Every finding of the module doc, in step order (the departure excluded: see :func:`departure`)."""
    found: list[Finding] = []
    for i, (text, check) in enumerate(zip(steps, checks, strict=True)):
        tick()
        for b in bindings(check):
            known = read.bindings.get(b.key)
            if known and not any(same(b.value, v) for v in known):
                hard = b.variables <= read.question_variables
                message = f"{b.key} = {b.value:g}; the analysis gives {b.key} = {_listed(known)}"
                zh = f"{b.key} = {b.value:g}；解析中 {b.key} = {_listed(known, '或')}"
                found.append(Finding(i, "value", hard, message, f"{b.key} = {b.value:g}", message_zh=zh))
        found += _equations_at(i, check, read)
        for n in named_values(text):
            others = [o for o in read.named.get(n.key, []) if o.unit == n.unit]
            if others and not any(same(n.value, o.value) for o in others):
                listed = _listed([o.value for o in others])
                message = f"{n.key} = {n.value:g}{n.unit}; the analysis gives {others[0].key} = {listed}"
                zh = f"{n.key} = {n.value:g}{n.unit}；解析中 {others[0].key} = {_listed([o.value for o in others], '或')}"
                found.append(Finding(i, "value", False, message, f"{n.key} {n.value:g}", message_zh=zh))
        for r in relations(text):
            theirs = read.relations.get(r.variable, [])
            against = next((t for t in theirs if r.disjoint(t)), None)
            if against is not None and not any(r.within(t) for t in theirs):
                message = (
                    f"{r.variable} {r.relation} {r.bound:g}; the analysis says "
                    f"{against.variable} {against.relation} {against.bound:g}"
                )
                zh = (
                    f"{r.variable} {r.relation} {r.bound:g}；解析中 "
                    f"{against.variable} {against.relation} {against.bound:g}"
                )
                hard = r.variable in read.question_variables
                evidence = f"{r.variable} {r.relation} {r.bound:g}"
                found.append(Finding(i, "relation", hard, message, evidence, message_zh=zh))
    answer = _answer_finding(steps, checks, read)
    if answer is not None:
        found.append(answer)
    return sorted(found, key=lambda f: f.step)


def _equations_at(step: int, check: StepCheck, read: ReadReference) -> list[Finding]:
    """Equations of the step that do not hold at the values the analysis solves for (``3(x+5) = 20`` where
    the analysis finds ``x = 5``): a wrong equation set up from the text."""
    found = []
    for c in check.claims:
        claim = c.claim
        if claim is None or c.relation != "=" or not (claim.left.has_variable() or claim.right.has_variable()):
            continue
        variables = claim.left.variables() | claim.right.variables()
        if claim.left.op == "var" or claim.right.op == "var" or not variables <= read.solved.keys():
            continue  # a bare binding (x = 5/3) is compared as a value
        env = {v: Fraction(read.solved[v]).limit_denominator(10**6) for v in variables}
        try:
            left, right = evaluate(claim.left, env), evaluate(claim.right, env)
        except (Unevaluable, OverflowError):
            continue
        if not same(left, right):
            at = ", ".join(f"{v} = {read.solved[v]:g}" for v in sorted(variables))
            message = f"{c.expression} does not hold at the analysis's {at} ({left:g} vs {right:g})"
            zh = f"代入解析的 {at}，{c.expression} 不成立（{left:g} 与 {right:g}）"
            hard = variables <= read.question_variables
            found.append(Finding(step, "value", hard, message, c.expression, frozenset(variables), zh))
    return found


def _chosen_letters(text: str) -> list[str]:
    """The letters a step chooses, in order: the run grader's markers (``CHOSEN_LETTER``: 选择B, 正确选项是B,
    答案是：B) and this module's (``选A``, "answer is (A)")."""
    found = {m.start(1): m.group(1) for m in CHOSEN_LETTER.finditer(text)}
    found.update({m.start(1): m.group(1) for m in _LETTER.finditer(text)})
    return [found[k] for k in sorted(found)]


def _listed(values: Sequence[float], word: str = "or") -> str:
    return f" {word} ".join(f"{v:g}" for v in sorted(set(values))[:3])


def _answer_finding(steps: Sequence[str], checks: Sequence[StepCheck], read: ReadReference) -> Finding | None:
    if read.letters:
        for i in range(len(steps) - 1, -1, -1):
            letters = _chosen_letters(plain(steps[i]))
            if letters:
                if letters[-1] not in read.letters:
                    gold = "".join(sorted(read.letters))
                    message = f"chooses {letters[-1]}; the gold answer is {gold}"
                    return Finding(
                        i, "answer", False, message, letters[-1], message_zh=f"选了 {letters[-1]}；标准答案是 {gold}"
                    )
                return None
        return None
    if not read.gold:
        return None
    final = final_value(steps, checks)
    if final is None:
        return None
    stated = _stated_numbers(steps[final[0]])
    other = next((v for v in stated if not any(same(v, float(g)) for g in read.gold)), None)
    if other is None:
        return None
    gold = ", ".join(f"{float(g):g}" for g in read.gold[:3])
    message = f"reaches {other:g}; the gold answer is {gold}"
    return Finding(final[0], "answer", False, message, f"{other:g}", message_zh=f"得到 {other:g}；标准答案是 {gold}")


def _stated_numbers(step: str) -> list[float]:
    """The numbers after the last answer marker of a step (all of them: ``x_1 = -1, x_2 = -2``)."""
    text = plain(step)
    at = max(text.rfind(marker) for marker in _MARKERS)
    values = (number(m.group(0)) for m in re.finditer(rf"{START}{NUM}(?:/\d+)?", text[max(at, 0) :]))
    return [float(v) for v in values if v is not None]


def final_value(steps: Sequence[str], checks: Sequence[StepCheck]) -> tuple[int, float] | None:
    """The last step stating a final answer (``故答案为``, ``\\boxed``) and its value: a value merely given
    last may be a check or a side result, which the gold answer need not hold."""
    for i in range(len(checks) - 1, -1, -1):
        if checks[i].answers:
            return i, checks[i].answers[-1]
    return None


def computed(text: str, check: StepCheck) -> list[float]:
    """What a step computes, in order: results of its calculations, bindings, named values, stated answers."""
    values = [c.right_value for c in check.claims if c.left_value is not None and c.right_value is not None]
    values += [c.right_value for c in check.claims if c.claim is not None and c.claim.left.is_operation()
               and c.right_value is not None and c.left_value is None]  # fmt: skip
    values += [b.value for b in bindings(check)]
    values += [n.value for n in named_values(text)]
    return values + list(check.answers)


def departure(steps: Sequence[str], checks: Sequence[StepCheck], read: ReadReference) -> Finding:
    """Where a graded-wrong solution first leaves the reference (see the module doc)."""
    found = new_value(steps, checks, read)
    if found is not None:
        return found
    final = final_value(steps, checks)
    if final is not None:
        first = next((i for i, c in enumerate(checks) if any(same(final[1], v) for v in c.mentioned)), final[0])
        message = f"introduces {final[1]:g}, the final value graded wrong"
        return Finding(first, "departure", False, message, message_zh=f"引入了 {final[1]:g}，即判错的最终答案")
    message = "the answer is graded wrong; no step computes a value"
    return Finding(len(steps) - 1, "departure", False, message, message_zh="答案判错；没有哪一步算出数值")


def new_value(
    steps: Sequence[str], checks: Sequence[StepCheck], read: ReadReference, *, from_known: bool = False
) -> Finding | None:
    """The earliest step that computes a value none of the analysis's, question's or gold answer's numbers
    is (results of calculations, bindings, named values, stated answers), if one does. ``from_known``: only
    the result of a calculation whose every number is one of those (``7+3+4=14`` where the analysis has 7,
    3 and 4 but never 14): a value reached from the solution's own new values (``3000÷30=100`` after
    ``3千米=3000米``) may be another route's, not a departure."""
    for i, (text, check) in enumerate(zip(steps, checks, strict=True)):
        tick()
        values = _from_known(check, read) if from_known else computed(text, check)
        new = next((v for v in values if not _known(read.values, v)), None)
        if new is not None:
            message = f"computes {new:g}, which the analysis never reaches"
            return Finding(i, "departure", False, message, f"{new:g}", message_zh=f"算出 {new:g}，解析中没有这个数")
    return None


def _from_known(check: StepCheck, read: ReadReference) -> list[float]:
    """Results of the step's calculations whose every number is a known value."""
    out = []
    for c in check.claims:
        if c.claim is None or c.left_value is None or c.right_value is None or not c.claim.left.is_operation():
            continue
        literals = [n.value for n in c.claim.left.literals()]
        if literals and all(v is not None and _known(read.values, float(v)) for v in literals):
            out.append(c.right_value)
    return out
