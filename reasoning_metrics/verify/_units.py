"""Physics units written as single letters right after numbers: ``100m/20s = 5m/s``.

A letter after a number is a variable in algebra (``3m + 2 = 8``) and a unit in
physics (``100m``). A claim is read the physics way only when *both* its sides
carry such units, each unit letter sits right after a number (no space), after
``/`` behind one, or in braces after one (``100{m}``), and nothing else in the
claim is a variable, and no bare number is added to or taken from a quantity
(``12m - 2`` is algebra); then the unit letters are dropped and the numbers
checked. Sides a power of ten apart are taken for a unit prefix (``W`` and
``kW``) and not judged.
"""

from __future__ import annotations

from reasoning_metrics.verify._lexer import Kind, Token

SI_LETTERS = {"m", "s", "g", "h", "N", "J", "W", "V", "A", "K", "L", "Ω", "C"}
"""Single-letter units: metre, second, gram, hour, newton, joule, watt, volt, ampere, kelvin, litre, ohm,
coulomb."""


def strip_units(run: list[Token]) -> tuple[list[Token], int]:
    """``run`` without the unit groups attached to its numbers, and how many were dropped (-1 when
    another variable remains: then this is not a physics quantity)."""
    out: list[Token] = []
    bare: set[int] = set()  # positions in ``out`` of numbers without a unit
    dropped = 0
    i = 0
    while i < len(run):
        if out and out[-1].kind is Kind.NUM:
            end = _unit_group_end(run, i)
            if end > i:
                dropped += 1
                bare.discard(len(out) - 1)
                i = end
                continue
        if run[i].kind is Kind.WORD:
            return run, -1
        if run[i].kind is Kind.NUM:
            bare.add(len(out))
        out.append(run[i])
        i += 1
    for k in bare:  # "12m - 2": a length minus a pure number is algebra, not physics
        if any(0 <= j < len(out) and out[j].symbol in "+-" for j in (k - 1, k + 1)) and dropped:
            return run, -1
    return out, dropped


def _unit_group_end(run: list[Token], i: int) -> int:
    """End of the unit group at ``i`` (``m``, ``m/s^2``, ``(m/s)``), or ``i`` when there is none."""
    if _unit_letter(run[i]) and not run[i].gap:
        return _unit_tail(run, i)
    if run[i].kind is Kind.LP and i + 1 < len(run) and _unit_letter(run[i + 1]):
        end = _unit_tail(run, i + 1)
        if end < len(run) and run[end].kind is Kind.RP:
            return _past_exponent(run, end + 1)  # (m)^(2) from {m}^{2}
    return i


def _unit_tail(run: list[Token], i: int) -> int:
    """Past the unit letter at ``i`` and its exponent and per-units: ``m``, ``m^2``, ``m/s/s``."""
    j = _past_exponent(run, i + 1)
    while j + 1 < len(run) and run[j].symbol == "/" and _unit_letter(run[j + 1]):
        j = _past_exponent(run, j + 2)
    return j


def _past_exponent(run: list[Token], j: int) -> int:
    if j + 1 < len(run) and run[j].symbol == "^" and run[j + 1].kind is Kind.NUM:
        return j + 2
    if j + 3 < len(run) and run[j].symbol == "^" and run[j + 1].kind is Kind.LP and run[j + 3].kind is Kind.RP:
        return j + 4  # m^(2)
    return j


def _unit_letter(token: Token) -> bool:
    return token.kind is Kind.WORD and token.text in SI_LETTERS
