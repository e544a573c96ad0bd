"""Chinese number words and arithmetic words rewritten as Arabic numerals and operator symbols.

Only what appears in worked solutions is handled: numerals up to the hundreds of
millions (``三万五千`` -> ``35000``, ``两`` -> ``2``, ``三点五`` -> ``3.5``),
``百分之二十`` -> ``20%``, ``三分之一`` -> ``(1/3)``, ``3万`` -> ``30000``, and the
operator words ``加 减 乘以 除以 等于 约等于 大于 小于`` when they stand between numbers.
"""

from __future__ import annotations

import re

_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
MAX_NUMERAL_CHARS = 40
"""Longer Chinese numerals are left as written (``int`` refuses to read over 4,300 digits, and nothing
checks numbers that long)."""
_SMALL_UNITS = {"十": 10, "百": 100, "千": 1000}
_BIG_UNITS = {"万": 10_000, "亿": 100_000_000}
_NUMERAL_CHARS = "".join(_DIGITS) + "".join(_SMALL_UNITS) + "".join(_BIG_UNITS)

# 千 before a measure word is the metric prefix kilo (千克 kg, 千米 km), not a thousand.
# Each number pattern starts only where a number starts (the lookbehinds): otherwise a run of n digits
# is rescanned from each of its positions, n² steps (a 5,000-digit step took seconds).
_NUMERAL = re.compile(rf"(?<![{_NUMERAL_CHARS}\d.])[{_NUMERAL_CHARS}]+(?:点[{''.join(_DIGITS)}]+)?")
_KILO_PREFIXED = re.compile(r"千(?=[克米瓦焦帕赫])")
_PERCENT = re.compile(r"百分之(\d+(?:\.\d+)?)")
_FRACTION = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)分之(\d+(?:\.\d+)?)")
_ARABIC_BIG = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)([万亿])")

_NUM_LEFT = r"(?<=[\d)%])\s*"
_NUM_RIGHT = r"\s*(?=[\d(\-])"
_OPERATOR_WORDS = [
    ("约等于", "≈"),
    ("大于或等于", "≥"),
    ("大于等于", "≥"),
    ("小于或等于", "≤"),
    ("小于等于", "≤"),
    ("不等于", "≠"),
    ("等于", "="),
    ("大于", ">"),
    ("小于", "<"),
    ("乘以", "×"),
    ("除以", "÷"),
    ("加上", "+"),
    ("减去", "-"),
    ("加", "+"),
    ("减", "-"),
    ("乘", "×"),
]
_OPERATOR_PATTERNS = [(re.compile(_NUM_LEFT + word + _NUM_RIGHT), f" {symbol} ") for word, symbol in _OPERATOR_WORDS]
_OF = re.compile(r"(?<=\d)的(?=\d+(?:\.\d+)?%|\()")


def numeral_value(text: str) -> float | int | None:
    """Value of one Chinese numeral such as ``三万零五百`` or ``三点五``; ``None`` if it is not one."""
    whole, _, decimals = text.partition("点")
    value = _integer_value(whole)
    if value is None:
        return None
    if not decimals:
        return value
    digits = "".join(str(_DIGITS[c]) for c in decimals if c in _DIGITS)
    if len(digits) != len(decimals):
        return None
    return float(f"{value}.{digits}")


def _integer_value(text: str) -> int | None:
    if not text or len(text) > MAX_NUMERAL_CHARS:
        return None
    if all(c in _DIGITS for c in text) and len(text) > 1:
        return int("".join(str(_DIGITS[c]) for c in text))  # 二〇二三: read digit by digit
    total, section, number = 0, 0, 0
    for char in text:
        if char in _DIGITS:
            number = _DIGITS[char]
        elif char in _SMALL_UNITS:
            section += (number or 1) * _SMALL_UNITS[char]
            number = 0
        elif char in _BIG_UNITS:
            total = (total + section + number) * _BIG_UNITS[char]
            section, number = 0, 0
        else:
            return None
    return total + section + number


def _format(value: float | int) -> str:
    if isinstance(value, float):
        return f"{value:.10g}"
    return str(value)


def _replace_numeral(match: re.Match[str]) -> str:
    value = numeral_value(match.group(0))
    return match.group(0) if value is None else _format(value)


def _replace_arabic_big(match: re.Match[str]) -> str:
    number, unit = match.group(1), match.group(2)
    scaled = float(number) * _BIG_UNITS[unit]
    return _format(int(scaled) if scaled.is_integer() else scaled)


def rewrite_chinese(text: str) -> str:
    """Chinese numerals and arithmetic words in ``text`` rewritten as digits and operator symbols."""
    if not re.search(r"[\u4e00-\u9fff]", text):
        return text
    text = _KILO_PREFIXED.sub("\x00", text)  # keep 千克 out of the numeral pass
    text = _NUMERAL.sub(_replace_numeral, text)
    text = text.replace("\x00", "千")
    text = _PERCENT.sub(r"\1%", text)
    text = _FRACTION.sub(r"(\2/\1)", text)
    text = _ARABIC_BIG.sub(_replace_arabic_big, text)
    for pattern, symbol in _OPERATOR_PATTERNS:
        text = pattern.sub(symbol, text)
    return _OF.sub(" × ", text)
