"""Lists of names as people type them, for the command line and the Python API alike."""

from __future__ import annotations


def comma_list(values: list[str] | None) -> tuple[str, ...]:
    """A repeated option whose values may also be comma lists (``-s 数学,物理 -s 化学``), in order, without repeats.

    A full-width comma (，) splits too: Chinese keyboards type it for subject lists.
    """
    items = (part.strip() for value in values or () for part in value.replace("，", ",").split(","))
    return tuple(dict.fromkeys(item for item in items if item))
