"""A restricted arithmetic parser and a guarded evaluator: model text is data, never code.

The grammar knows numbers, ``+ - * / ^``, ``%``, ``!``, parentheses, ``sqrt``,
the elementary functions ``sin cos tan cot ln lg log_b exp`` (``sin^2 x``, not ``sin^{-1}``),
``pi``, ``e``, the imaginary unit ``i`` and single variables; anything else does not parse. Evaluation builds
sympy numbers from the tree (no string ever reaches sympy) and refuses work
that could explode before doing it: exponents, factorials, nesting and operand
counts are bounded, so ``9**9**9**9`` or ``10^10^10`` is answered at once with
:class:`Unevaluable`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from reasoning_metrics.verify._lexer import Kind, Token

if TYPE_CHECKING:  # imported where a calculation is checked: a report that only names the detectors never loads it
    import sympy

MAX_TOKENS = 120
"""Longer calculations are not checked."""
MAX_DEPTH = 30
"""Deeper nesting (parentheses, unary signs, powers) is not parsed."""
MAX_RESULT_DIGITS = 300
"""Results (and intermediate powers) beyond 10**300 are not computed."""
MAX_FACTORIAL = 170
MAX_ANGLE = 1e6
"""Trigonometric functions of larger arguments are not computed."""
MAX_EXP = 690.0
"""``exp`` of a larger argument is beyond 10**300 and not computed."""
NEAR_ZERO = 1e-12
"""A divisor that is not an exact fraction and this small (relative to the dividend) is taken for zero."""
MAX_FUNCTION_POWER = 9
"""``sin^2 x`` reads as ``(sin x)^2`` up to this exponent; ``sin^{-1} x`` (arcsin) does not parse."""
TRIG = frozenset({"sin", "cos", "tan", "cot"})
_POWER_BASE_BRACKETED = frozenset({"+", "-", "*", "/", "neg"})
"""Operations that a power's base written after them would split: ``(6/3)^2`` is not ``6/3^2``."""


class ParseFailure(Exception):
    """The tokens are not one well-formed calculation."""


class Unevaluable(Exception):
    """A well-formed calculation that is not checked: a variable, a division by zero, a huge power."""


@dataclass(frozen=True)
class Node:
    """One node of a calculation: ``op`` is num, var, pi, const (``e``, ``i``: ``text``), neg, %, !, sqrt,
    fn (a function named by ``text`` of its one argument) or a binary operator."""

    op: str
    args: tuple[Node, ...] = ()
    value: Fraction | None = None
    decimals: int = 0
    text: str = ""

    def literals(self) -> list[Node]:
        """The number literals of the tree, left to right."""
        if self.op == "num":
            return [self]
        return [leaf for arg in self.args for leaf in arg.literals()]

    def has_variable(self) -> bool:
        """Whether the tree names a variable (then it has no numeric value)."""
        return self.op == "var" or any(arg.has_variable() for arg in self.args)

    def variables(self) -> set[str]:
        """Names of the variables in the tree."""
        own = {self.text} if self.op == "var" else set()
        return own.union(*(arg.variables() for arg in self.args))

    def has_imaginary(self) -> bool:
        """Whether the tree names the imaginary unit (then its value is a complex number)."""
        return (self.op == "const" and self.text == "i") or any(arg.has_imaginary() for arg in self.args)

    def has_pi(self) -> bool:
        """Whether the tree names pi (an angle in radians written as such)."""
        return self.op == "pi" or any(arg.has_pi() for arg in self.args)

    def pi_as(self, value: Fraction) -> Node:
        """The tree with every pi read as the number ``value`` (``3.14``, as a school chain takes it)."""
        if self.op == "pi":
            return Node("num", value=value, text=str(float(value)))
        if not self.has_pi():
            return self
        return Node(self.op, tuple(arg.pi_as(value) for arg in self.args), self.value, self.decimals, self.text)

    def is_operation(self) -> bool:
        """Whether the tree computes something (more than one literal, possibly signed or a percentage)."""
        node = self
        while node.op in ("neg", "%") and node.args:
            node = node.args[0]
        return node.op not in ("num", "var", "pi", "const")

    def render(self) -> str:
        """Plain-text form, fully parenthesised only where needed for reading."""
        if self.op in ("num", "var", "const"):
            return self.text
        if self.op == "pi":
            return "pi"
        if self.op in ("neg", "%", "!"):
            inner = self.args[0].render()
            if self.args[0].op not in ("num", "var", "pi", "const", "sqrt", "fn", "%", "!"):
                inner = f"({inner})"  # -(a + b), (5 - 2)!
            return f"-{inner}" if self.op == "neg" else f"{inner}{self.op}"
        if self.op in ("sqrt", "fn"):
            return f"{self.text or self.op}({self.args[0].render()})"
        left, right = (arg.render() for arg in self.args)
        if (self.args[0].op in ("+", "-") and self.op in "*/") or (
            self.args[0].op in _POWER_BASE_BRACKETED and self.op == "^"
        ):
            left = f"({left})"  # (a + b) * c, (6 / 3) ^ 2, (-2) ^ 2
        if self.args[1].op in "+-*/" and self.op in "-*/^":
            right = f"({right})"
        return f"{left} {self.op} {right}"


def parse(tokens: list[Token]) -> Node:
    """The calculation that ``tokens`` spell, or :class:`ParseFailure`."""
    if not tokens or len(tokens) > MAX_TOKENS:
        raise ParseFailure("empty or too long")
    parser = _Parser(tokens)
    node = parser.expression(0)
    if parser.pos != len(tokens):
        raise ParseFailure(f"unexpected {tokens[parser.pos].text!r}")
    return node


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.pos = 0

    def _peek(self) -> Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def _take(self) -> Token:
        token = self._peek()
        if token is None:
            raise ParseFailure("unexpected end")
        self.pos += 1
        return token

    def _is(self, kind: Kind, *symbols: str) -> bool:
        token = self._peek()
        return token is not None and token.kind is kind and (not symbols or token.symbol in symbols)

    def expression(self, depth: int) -> Node:
        node = self.term(depth)
        while self._is(Kind.OP, "+", "-"):
            op = self._take().symbol
            node = Node(op, (node, self.term(depth)))
        return node

    def term(self, depth: int) -> Node:
        node = self.factor(depth)
        while self._is(Kind.OP, "*", "/"):
            op = self._take().symbol
            node = Node(op, (node, self.factor(depth, divisor=op == "/")))
        return node

    def factor(self, depth: int, divisor: bool = False) -> Node:
        """A signed power and the implicit products after it, which bind tighter than ``×`` and ``÷``:
        ``40π ÷ 2π`` is ``(40π) / (2π)``. A divisor followed by the imaginary unit (``1/2 i``: ``(1/2) i``
        or ``1/(2i)``?) is ambiguous and does not parse."""
        node = self.unary(depth)
        while self._implicit_product():
            if divisor and self._is(Kind.CONST) and self.tokens[self.pos].text == "i":
                raise ParseFailure("a quotient before the imaginary unit")
            node = Node("*", (node, self.power(depth)))
        return node

    def _implicit_product(self) -> bool:
        """``2(3+4)``, ``2x``, ``3 sqrt(2)``, ``2 pi``; not ``0.20 (20 cents)``, where a space comes first."""
        token = self._peek()
        if token is None:
            return False
        return token.kind in (Kind.FUNC, Kind.CONST) or (token.kind in (Kind.LP, Kind.WORD) and not token.gap)

    def _peek_kind(self) -> Kind | None:
        token = self._peek()
        return token.kind if token else None

    def unary(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise ParseFailure("nested too deeply")
        if self._is(Kind.OP, "-", "+"):
            sign = self._take().symbol
            operand = self.unary(depth + 1)
            return Node("neg", (operand,)) if sign == "-" else operand
        return self.power(depth)

    def power(self, depth: int) -> Node:
        base = self.postfix(depth)
        if self._is(Kind.OP, "^"):
            self._take()
            return Node("^", (base, self.unary(depth + 1)))
        return base

    def postfix(self, depth: int) -> Node:
        node = self.primary(depth)
        while self._peek_kind() in (Kind.PCT, Kind.FACT):
            node = Node(self._take().text, (node,))
        return node

    def primary(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise ParseFailure("nested too deeply")
        token = self._take()
        if token.kind is Kind.NUM:
            if token.value is None:
                raise ParseFailure("numeral too long")
            return Node("num", value=token.value, decimals=token.decimals, text=token.text)
        if token.kind is Kind.CONST:
            return Node("pi") if token.text == "pi" else Node("const", text=token.text)
        if token.kind is Kind.WORD:
            return Node("var", text=token.text)
        if token.kind is Kind.FUNC:
            if token.text == "sqrt":
                return Node("sqrt", (self.power(depth + 1),))
            return self.function(token.text, depth + 1)
        if token.kind is Kind.LP:
            node = self.expression(depth + 1)
            if not self._is(Kind.RP):
                raise ParseFailure("unbalanced parenthesis")
            self._take()
            return node
        raise ParseFailure(f"unexpected {token.text!r}")

    def function(self, name: str, depth: int) -> Node:
        """``sin(x)``, ``sin x``, ``cos 2 pi`` (the argument runs over implicit products up to the next
        function: ``sin x cos x`` is two factors) and ``sin^2 x``, which is ``(sin x)^2``. An argument
        without brackets followed by ``/`` or ``^`` (``sin π/6``) is ambiguous and does not parse."""
        exponent = None
        if self._is(Kind.OP, "^"):
            self._take()
            exponent = self._function_exponent()
        if self._is(Kind.LP):
            argument = self.primary(depth)
        else:
            argument = self.power(depth)
            while self._implicit_product() and not self._is(Kind.FUNC):
                argument = Node("*", (argument, self.power(depth)))
            if self._is(Kind.OP, "/", "^"):  # sin π/6, ln 2/3: sin(π/6) or sin(π)/6? not read either way
                raise ParseFailure(f"{name} of an argument without brackets, then a division or a power")
        node = Node("fn", (argument,), text=name)
        return node if exponent is None else Node("^", (node, exponent))

    def _function_exponent(self) -> Node:
        """The ``2`` of ``sin^2 x`` or ``sin^(2) x``: a whole number from 2 to :data:`MAX_FUNCTION_POWER`."""
        parenthesised = self._is(Kind.LP)
        if parenthesised:
            self._take()
        token = self._take()
        if parenthesised and not self._is(Kind.RP):
            raise ParseFailure("power of a function")
        if parenthesised:
            self._take()
        value = token.value
        if (
            token.kind is not Kind.NUM
            or value is None
            or value.denominator != 1
            or not 2 <= value <= MAX_FUNCTION_POWER
        ):
            raise ParseFailure("power of a function (sin^{-1} is arcsin)")
        return Node("num", value=value, text=token.text)


def evaluate(node: Node, env: dict[str, Fraction] | None = None) -> float:
    """Value of ``node`` (variables read from ``env``), or :class:`Unevaluable` saying why it has none."""
    import sympy

    value = _value(node, env or {})
    if not value.is_real:
        raise Unevaluable("not a real number")
    result = float(sympy.N(value, 20))
    if math.isnan(result) or math.isinf(result):
        raise Unevaluable("not a finite number")
    return result


def evaluate_complex(node: Node) -> complex:
    """Complex value of ``node`` (which names no variable), or :class:`Unevaluable`."""
    import sympy

    value = _value(node, {})
    if value.is_finite is False:
        raise Unevaluable("not a finite number")
    result = complex(sympy.N(value, 20))
    if not (math.isfinite(result.real) and math.isfinite(result.imag)):
        raise Unevaluable("not a finite number")
    return result


def _value(node: Node, env: dict[str, Fraction]) -> sympy.Expr:
    import sympy

    op = node.op
    if op == "num" or (op == "var" and node.text in env):
        value = node.value if op == "num" else env[node.text]
        assert value is not None
        return sympy.Rational(value.numerator, value.denominator)
    if op == "var":
        raise Unevaluable(f"names the variable {node.text!r}")
    if op == "pi":
        return sympy.pi
    if op == "const":
        return sympy.I if node.text == "i" else sympy.E
    args = [_value(arg, env) for arg in node.args]
    if op == "neg":
        return -args[0]
    if op == "%":
        return args[0] / 100
    if op == "!":
        return _factorial(args[0])
    if op == "fn":
        return _function(node.text, args[0], node.args[0].has_pi())
    if op == "sqrt":
        if args[0].is_negative:
            raise Unevaluable("square root of a negative number")
        return _bounded(sympy.sqrt(args[0]))
    left, right = args
    if op == "+":
        return _bounded(left + right)
    if op == "-":
        return _bounded(left - right)
    if op == "*":
        return _bounded(left * right)
    if op == "/":
        if right == 0 or _nearly_zero(right, left):
            raise Unevaluable("division by zero")
        return _bounded(left / right)
    if op == "^":
        return _power(left, right)
    raise Unevaluable(f"unknown operation {op!r}")


def _function(name: str, argument: sympy.Expr, in_radians: bool) -> sympy.Expr:
    """``name(argument)`` for a real argument in its domain and range, or :class:`Unevaluable`.

    A trigonometric argument that names no pi and is 2 or more in size (``sin 30``, ``cos 22.5``) is
    an angle in degrees written without its sign, or in radians: it is not read either way.
    """
    import sympy

    if argument.is_real is not True:
        raise Unevaluable(f"{name} of a non-real number")
    x = float(sympy.N(argument, 15))
    if name in TRIG:
        if abs(x) > MAX_ANGLE:
            raise Unevaluable(f"{name} of a huge angle")
        if not in_radians and abs(x) >= 2:
            raise Unevaluable(f"{name} of an angle without a unit")
        value = {"sin": sympy.sin, "cos": sympy.cos, "tan": sympy.tan, "cot": sympy.cot}[name](argument)
    elif name == "exp":
        if x > MAX_EXP:
            raise Unevaluable("exp too large to check")
        value = sympy.exp(argument)
    else:
        if x <= 0:
            raise Unevaluable(f"{name} of a number that is not positive")
        if name == "log":
            raise Unevaluable("log without a base")
        base = 10 if name == "lg" else None if name == "ln" else int(name.removeprefix("log_"))
        if base is not None and base < 2:
            raise Unevaluable("log of a base below 2")
        value = sympy.log(argument) if base is None else sympy.log(argument, base)
    if value.is_finite is not True:
        raise Unevaluable(f"{name} is not finite there")
    return _bounded(value)


def _nearly_zero(divisor: sympy.Expr, dividend: sympy.Expr) -> bool:
    """Whether a divisor that is not an exact fraction is zero to within rounding: ``(1+i)(1-i)-2`` and
    ``sin^2 1 + cos^2 1 - 1`` are zero, which sympy does not always decide. A division by it is not
    read (the quotient of rounding noise would be a huge number, or not real)."""
    import sympy

    if isinstance(divisor, sympy.Rational):
        return False
    scale = max(1.0, abs(complex(sympy.N(dividend, 15))))
    return abs(complex(sympy.N(divisor, 30))) <= NEAR_ZERO * scale


def _log10_abs(value: sympy.Expr) -> float:
    import sympy

    magnitude = abs(complex(sympy.N(value, 15)))
    return -math.inf if magnitude == 0 else math.log10(magnitude)


_MAX_BITS = math.ceil(MAX_RESULT_DIGITS / math.log10(2))
""":data:`MAX_RESULT_DIGITS` in bits: sizes are measured with ``int.bit_length``, never by printing a
number, since ``str()`` of an integer over 4,300 digits raises (and is slow long before)."""


def _bits(value: sympy.Expr) -> int:
    """Bits of the larger of numerator and denominator of a rational ``value`` (0 for anything else)."""
    import sympy

    if not isinstance(value, sympy.Rational):
        return 0
    return max(int(value.p).bit_length(), int(value.q).bit_length())


def _bounded(value: sympy.Expr) -> sympy.Expr:
    import sympy

    if _log10_abs(value) > MAX_RESULT_DIGITS:
        raise Unevaluable("result too large to check")
    if isinstance(value, sympy.Rational) and int(value.q).bit_length() > _MAX_BITS:
        raise Unevaluable("result too precise to check")
    return value


def _power(base: sympy.Expr, exponent: sympy.Expr) -> sympy.Expr:
    import sympy

    if exponent.is_real is not True:
        raise Unevaluable("power with a non-real exponent")
    exp_float = float(sympy.N(exponent, 15))
    if base in (0, 1):
        if base == 0 and exp_float < 0:
            raise Unevaluable("division by zero")
        return base
    if base == -1 and exponent.is_integer:
        return sympy.Integer(-1 if int(exponent) % 2 else 1)
    if abs(exp_float) > 10_000 or abs(exp_float) * abs(_log10_abs(base)) > MAX_RESULT_DIGITS:
        raise Unevaluable("power too large to check")
    if abs(exp_float) * _bits(base) > 4 * _MAX_BITS:
        # (1 + 0.001)^5000 is near 148 but its exact fraction has 15,000 digits: refuse before computing it.
        raise Unevaluable("result too precise to check")
    if base.is_negative and not exponent.is_integer:
        raise Unevaluable("fractional power of a negative number")
    return _bounded(base**exponent)


def _factorial(value: sympy.Expr) -> sympy.Expr:
    import sympy

    if not value.is_integer or value < 0:
        raise Unevaluable("factorial of a non-integer")
    if value > MAX_FACTORIAL:
        raise Unevaluable("factorial too large to check")
    return sympy.factorial(int(value))
