"""Elementary functions, e, pi in degrees and the imaginary unit in the arithmetic verifier, and equations
linear in one power of an unknown: true and false forms, and hostile inputs that must stay unchecked."""

from __future__ import annotations

import pytest

from reasoning_metrics.verify.rules.arithmetic import Verdict, check_step, check_steps
from reasoning_metrics.verify.rules.equations import equation_conflicts


def verdicts(text: str) -> dict[str, str]:
    return {c.expression: c.verdict.value for c in check_step(text)}


def only_verdict(text: str) -> str:
    """The verdict of the one checked claim of ``text`` (``unchecked`` when none is checked)."""
    checked = {c.verdict.value for c in check_step(text) if c.verdict is not Verdict.UNCHECKED}
    assert len(checked) <= 1, check_step(text)
    return checked.pop() if checked else "unchecked"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # GPT-4's 高考 slips (development half): pi/6 + 4pi/3 is 3pi/2, not 2pi
        (r"$\cos \left(\frac{\pi}{6}+\frac{4\pi}{3}\right)=\cos 2\pi$", "false"),
        (r"$\cos \left(\frac{\pi}{6}+\frac{5\pi}{6}\right)=\cos \pi$", "true"),
        (r"$\cos 2\pi=1$", "true"),
        (r"计算器得到$4 \sin \frac{1}{4}$的值，约等于1.000208。", "false"),
        (r"计算器得到$4 \sin \frac{1}{4}$的值，约等于0.98962。", "true"),
        (r"$\sin 30^\circ=\frac{1}{2}$", "true"),
        (r"$\sin 30^\circ=\frac{\sqrt{3}}{2}$", "false"),
        (r"sin30°=0.5", "true"),
        (r"$\cos(60°+30°) = 0.5$", "false"),
        (r"$\tan 45° = 1$", "true"),
        (r"$\sin^2 30° + \cos^{2} 30° = 1$", "true"),
        (r"$\sin^2 30° = \frac{1}{2}$", "false"),
        (r"$\ln e = 1$", "true"),
        (r"$\ln{e}=1$", "true"),
        (r"ln(e) = 2", "false"),
        (r"离心率 $\ln \mathrm{e}^{2} = 2$", "true"),  # \mathrm{e} is Euler's number, even beside a conic
        (r"sin(π/6) = 1/2", "true"),
        (r"sin(π)/6 = 1/2", "false"),
        (r"cos 0.5 ≈ 0.8776", "true"),  # a small angle without pi: radians
        (r"复数 $\frac{1+i}{2} = \frac{1}{2} + \frac{1}{2}i$", "true"),  # \frac{1}{2}i is not 1/(2i)
        (r"$\ln e^{2} = 3$", "false"),
        (r"$e^{2} \approx 7.39$", "true"),
        (r"$e^{2} \approx 8.39$", "false"),
        (r"$\lg 100 = 2$", "true"),
        (r"$\lg 1000 = 2$", "false"),
        (r"$\log_{2} 8 = 3$", "true"),
        (r"$\log_2 16 = 3$", "false"),
        (r"$\exp(0) = 1$", "true"),
        (r"$\sin \frac{\pi}{6} = 0.5$", "true"),
        (r"$\tan \frac{\pi}{4} = 2$", "false"),
    ],
)
def test_functions_of_numbers(text: str, expected: str) -> None:
    assert only_verdict(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # i(1+i) = i - 1, so the first equality is false; the second is right
        (
            r"得到$\mathrm{i} (1+\mathrm{i})+3 (1-\mathrm{i})=2\mathrm{i}+3-3\mathrm{i}=-\mathrm{i}+3$。",
            {"i * (1 + i) + 3 * (1 - i) = 2 * i + 3 - (3 * i)": "false", "2 * i + 3 - (3 * i) = -i + 3": "true"},
        ),
        (r"$\text{i}^2 = -1$", {"i ^ 2 = -1": "true"}),
        (r"复数 $(1+i)^2 = 2i$", {"(1 + i) ^ 2 = 2 * i": "true"}),
        (r"复数 $(1+i)(1-i) = 3$", {"(1 + i) * (1 - i) = 3": "false"}),
        (r"虚数单位满足 $\frac{1}{i} = i$", {"1 / i = i": "false"}),
    ],
)
def test_imaginary_unit(text: str, expected: dict[str, str]) -> None:
    assert verdicts(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        r"$\sin 10^{300} = 0$",  # huge angle
        r"$e^{1000000} = 1$",  # huge power
        r"$\exp(1000) = 1$",
        r"$\sin^{-1} 1 = 2$",  # arcsin, not a power
        r"$\sin(\sin(\sin(\sin(\cos(\tan(\ln(\lg(100)))))))) = 5$",  # nested: checked or not, never a crash
        r"sin 30 = 0.5",  # an angle without a unit (degrees? radians?)
        r"$\ln 0 = 1$",
        r"$\ln(-1) = 1$",
        r"$\log 100 = 2$",  # log without a base
        r"$\tan \frac{\pi}{2} = 1$",
        r"复数数列 $a_i$ 中，$i \times i = 1$",  # i an index (false were it the imaginary unit)
        r"所以，$y'(\pi)=2\cos \pi-\sin \pi=-2$。",  # y'(pi) names a value; the chain is right
        r"所以，y'(π)=2cosπ-sinπ=-2。",  # the same with Unicode π
        r"椭圆的离心率 $e^2 = \frac{3}{4}$",  # e is the eccentricity
        r"sin π/6 = 1/2",  # sin(π/6) or sin(π)/6? not read either way
        r"cos π/3 = 0.5",
        r"$\tan \pi/4 = 1$",
        r"sin 2π/3 = √3/2",
        r"ln 2/3 = 0.405",
        r"复数 $\overline{1+2\mathrm{i}} = 1-2\mathrm{i}$",  # the conjugate
        r"$\overline{2+3} = 6$",  # a bar over a calculation: a conjugate, a segment, a repeating decimal
        r"cos 22.5 ≈ 0.924",  # degrees without their sign
        r"复数 $\frac{1}{(1+i)(1-i)-2} = 1$",  # a divisor that is zero, though sympy does not decide it
        r"$\frac{1}{\sin^2 1+\cos^2 1-1}=1$",
        r"复数 (1+i)/2 = 1/2 + 1/2 i",  # (1/2) i or 1/(2i)?
    ],
)
def test_hostile_and_ambiguous_forms_are_not_false(text: str) -> None:
    assert "false" not in verdicts(text).values()


def test_derivative_value_then_a_false_calculation() -> None:
    assert only_verdict(r"所以，$y'(\pi)=2\cos \pi-\sin \pi=-3$。") == "false"
    assert only_verdict(r"所以，y'(π)=2cosπ-sinπ=-3。") == "false"


def test_the_quantifiers_of_the_rewrites_are_bounded() -> None:
    # a letter or 的值 before a long run of spaces cost quadratic time (20,000 spaces: 1.4 s)
    from reasoning_metrics.verify import _normalize

    for pattern in (_normalize._FUNCTION_VALUE, _normalize._VALUE_OF, _normalize._EULER_POWER, _normalize._LN_E):
        assert "*" not in pattern.pattern and "+" not in pattern.pattern.replace("[+-]", ""), pattern.pattern
    assert _normalize.normalize("的值" + " " * 5 + "约等于 3").split() == ["≈", "3"]


def test_a_false_complex_claim_is_flagged_with_its_values() -> None:
    from reasoning_metrics.verify.detector import Evidence
    from reasoning_metrics.verify.detectors.arithmetic import Arithmetic

    step = r"得到$\mathrm{i} (1+\mathrm{i})+3 (1-\mathrm{i})=2\mathrm{i}+3-3\mathrm{i}$。"
    findings = Arithmetic().find(Evidence(problem="", steps=[step], checks=check_steps([step])))
    (flags,) = findings.steps
    assert [f.message for f in flags] == ["i * (1 + i) + 3 * (1 - i) = 2 * i + 3 - (3 * i) does not hold "
                                          "(complex number: 2-2i vs 3-i)"]  # fmt: skip
    assert [f.message_zh for f in flags] == [
        "i * (1 + i) + 3 * (1 - i) = 2 * i + 3 - (3 * i) 不成立（复数 2-2i 与 3-i）"
    ]


def test_a_complex_value_is_written_without_rounding_noise() -> None:
    from reasoning_metrics.verify.rules.arithmetic import complex_text

    assert [complex_text(z) for z in (complex(-1, -1.00974e-28), complex(1e-30, 2), complex(2, -2))] == [
        "-1",
        "2i",
        "2-2i",
    ]


def test_a_power_of_a_quotient_keeps_its_brackets() -> None:
    assert verdicts(r"$(\frac{6}{3})^2=5$") == {"(6 / 3) ^ 2 = 5": "false"}
    assert verdicts(r"$(-2)^2 = 5$") == {"(-2) ^ 2 = 5": "false"}
    assert verdicts(r"$2^3 \times 2 = 15$") == {"2 ^ 3 * 2 = 15": "false"}


def test_refused_before_computing_and_a_zero_divisor_named() -> None:
    (huge,) = check_step(r"$\exp(10^{299}) = 1$")
    assert (huge.verdict, huge.note) == (Verdict.UNCHECKED, "exp too large to check")
    (zero,) = check_step(r"$\frac{1}{\sin^2 1+\cos^2 1-1}=1$")  # not "not a real number"
    assert (zero.verdict, zero.note) == (Verdict.UNCHECKED, "division by zero")


def test_nested_functions_evaluate() -> None:
    assert only_verdict(r"$\sin(\cos(0)) \approx 0.84$") == "true"
    assert only_verdict(r"$\sin(\cos(0)) \approx 0.5$") == "false"


def test_function_of_a_variable_is_not_checked() -> None:
    assert only_verdict(r"$\sin \alpha = \frac{1}{2}$") == "unchecked"
    assert only_verdict(r"$2\sin x \cos x = \sin 2x$") == "unchecked"


def test_equation_linear_in_a_power_of_one_unknown() -> None:
    step = r"我们得到$4 - y^2 - y^2/3 = 1$，解得$y^2 = 9/2$，所以$y = \pm 3/\sqrt{2}$"
    (conflicts,) = equation_conflicts(check_steps([step]))
    assert [(c.variable, c.value, round(c.previous, 9)) for c in conflicts] == [("y^2", 4.5, 2.25)]
    right = step.replace("9/2", "9/4")
    assert equation_conflicts(check_steps([right])) == [[]]


def test_mixed_powers_are_not_followed() -> None:
    steps = [r"$x^2 - x = 2$", r"$x^2 = 9$", r"$x^3 = 8$", r"$2y^2 = 8$", r"$y^3 = 8$"]
    assert equation_conflicts(check_steps(steps)) == [[], [], [], [], []]


def test_vectors_are_names_of_their_own_not_their_coefficient() -> None:
    # GAOKAO Math II 111 (right answer, right steps): \overrightarrow{AB} was dropped as a unit word, so
    # AD = 1/2 AB + 1/2 AC read as AD = 1/2, and AE = 1/2 AD = 1/4 AB + ... as a conflicting AD = 1/4
    steps = [
        r"我们知道$\overrightarrow{AD} = \frac{1}{2} \overrightarrow{AB} + \frac{1}{2} \overrightarrow{AC}$。",
        r"所以$\overrightarrow{AE} = \frac{1}{2} \overrightarrow{AD} = \frac{1}{4} \overrightarrow{AB} + \frac{1}{4} \overrightarrow{AC}$。",
    ]
    assert equation_conflicts(check_steps(steps)) == [[], []]
    assert only_verdict(r"$\overrightarrow{AD} = \frac{1}{2}\overrightarrow{AB}$") == "unchecked"
    assert only_verdict(r"$\vec{a} = 2 + 3 = 6$") == "false"  # the arithmetic beside a vector is still read


def test_an_accented_name_is_not_the_plain_name() -> None:
    # z and its conjugate, x and its mean, are different unknowns: no conflict between z = 1+i and z̄ = 1-i
    steps = [r"复数$z=1+\mathrm{i}$，", r"则$\bar{z}=1-\mathrm{i}$，$\overline{x+1} = 3$"]
    assert equation_conflicts(check_steps(steps)) == [[], []]
    assert only_verdict(r"$\overline{2+3} = 6$") == "unchecked"  # a conjugate, a segment, a repeating decimal


def test_a_question_about_a_conic_makes_e_its_eccentricity_in_every_step() -> None:
    # The step need not say 离心率: the question (or another step) about an ellipse says what e is.
    steps = [r"由题意 $a=2, c=\sqrt{3}$，", r"所以 $e^2 = \frac{3}{4}$。"]
    assert [c.false_claims for c in check_steps(steps, "已知椭圆 $\\frac{x^2}{4}+y^2=1$，求其离心率")] == [[], []]
    assert [c.false_claims for c in check_steps([*steps, "椭圆的离心率是 e"])] == [[], [], []]
    assert check_steps(steps)[1].false_claims  # with nothing about a conic, e^2 is Euler's number squared
