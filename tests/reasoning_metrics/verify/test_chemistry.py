"""Chemistry a step states in symbols (``facts`` detector, :mod:`reasoning_metrics.verify.rules.chemistry`):
equations checked by counting atoms, formulas fixed by a compound's Chinese name; invented steps."""

from __future__ import annotations

import pytest

from reasoning_metrics.verify.detector import Evidence
from reasoning_metrics.verify.detectors.facts import Facts
from reasoning_metrics.verify.rules.chemistry import atoms, stated_chemistry


def test_atoms_of_a_formula() -> None:
    assert atoms("Ca(OH)2") == {"Ca": 1, "O": 2, "H": 2}
    assert atoms("Fe3O4") == {"Fe": 3, "O": 4}
    assert atoms("F1") is None and atoms("Xy2") is None and atoms("5O2P") is None


@pytest.mark.parametrize(
    ("step", "holds"),
    [
        ("铁在氧气中燃烧：\\[ Fe + 2 \\text{ O}_2 \\rightarrow Fe_3 \\text{O}_4 \\]", [False]),
        ("化学方程式为 3Fe + 2O₂ = Fe₃O₄", [True]),
        ("$$\\rm 2H_2+O_2\\xlongequal{点燃}2H_2O$$", [True]),
        ("过氧化氢分解：H2O2 = H2O + O2↑", [False]),
        ("Ca(OH)2 + CO2 = CaCO3↓ + H2O，所以石灰水变浑浊", [True]),
        # a 符号表达式 (arrow, no coefficient) is unbalanced on purpose; physics and letters are not chemistry
        ("H2O2 → H2O + O2", []),
        ("合力 F1 + F2 = F", []),
        ("C = B + C", []),
        ("Fe2O3 + mNa2O2 = nNa2FeO4 + Na2O", []),
        # the bank's LaTeX: \left( \right) around a group, \uparrow; a step that holds only part of an equation
        (
            "$${F}{{{e}}_2}{{{O}}_3}+3{{{H}}_2}{S}{{{O}}_4}={F}{{{e}}_2}{{\\left( {S}{{{O}}_4} \\right)}_3}+3{{{H}}_2}{O}$$",
            [True],
        ),
        ("$${2Al}+{6HCl}={2AlC}{{{l}}_3}+3{{{H}}_2}\\uparrow $$", [True]),
        ("+6HCl=2AlCl3", []),
        # a formula fixed by the name
        ("五氧化二磷的化学式是 \\(5\\text{O}_2\\text{P}\\)。", [False]),
        ("二氧化碳（CO）能使澄清石灰水变浑浊", [False]),
        ("二氧化碳（CO2）能使澄清石灰水变浑浊", []),
        ("四氧化三铁的化学式为Fe3O4", []),
        # 氧化铁 is Fe2O3: a name without its counts fixes nothing
        ("氧化铁（FeO）", []),
    ],
)
def test_stated_chemistry(step: str, holds: list[bool]) -> None:
    assert [fact.holds for fact in stated_chemistry(step)] == holds


def test_an_equation_the_question_writes_is_not_the_steps_claim() -> None:
    problem = "下列化学方程式书写正确的是（ ）\nA. 2H2O = H2 + O2\nB. 2H2 + O2 = 2H2O"
    assert stated_chemistry("A. 2H2O = H2 + O2", problem) == []
    assert [f.holds for f in stated_chemistry("A. 2H2O = H2 + O2")] == [False]


def test_the_facts_detector_flags_the_unbalanced_step() -> None:
    steps = ["铁在氧气中燃烧生成四氧化三铁。", "化学方程式为 Fe + 2O2 → Fe3O4", "故选A"]
    found = Facts().find(Evidence("铁在氧气中燃烧的化学方程式书写正确的是（ ）\nA. x\nB. y", steps, []))
    assert [[f.kind for f in flags] for flags in found.steps] == [[], ["false_fact"], []]
    assert "Fe：1 ≠ 3" in (found.steps[1][0].message_zh or "")


@pytest.mark.parametrize(
    ("step", "false"),
    [
        ("氢氧化钠是一种弱酸，它在水中的溶解度较低", ["氢氧化钠是一种弱酸"]),
        ("硫酸是一种强酸，而盐酸是一种弱酸", ["盐酸是一种弱酸"]),
        ("纯碱属于碱", ["纯碱属于碱"]),
        ("二氧化碳是酸", ["二氧化碳是酸"]),
        ("纯碱不是碱，是盐", []),
        ("氢氧化钠是强碱", []),
        ("碳酸是弱酸", []),
        ("氯化钠（NaCl）是一种盐", []),
        ("碳酸钠溶液是碱性的", []),
        ("氢氧化钠溶液显碱性", []),
        ("如果氢氧化钠是酸，那么它能与碱反应", []),
        ("石灰水是碱的溶液", []),
        # quoted to be judged, not asserted
        ("D．纯碱属于碱错误，纯碱是碳酸钠", []),
        ("“纯碱属于碱”这种说法是错误的", []),
    ],
)
def test_what_a_substance_is(step: str, false: list[str]) -> None:
    assert [f.statement for f in stated_chemistry(step) if not f.holds] == false
