"""What other packages add by entry point: a bank format, a metric, a backend, looked up by name when asked for.

Each kind has one explicit table of its own (``kg.importers.FORMATS``, ``reasoning_metrics.metric_table.METRICS``,
``runners.backends.BACKENDS``) and one entry-point group for the installed packages' additions
(``k12eval.bank_formats``, ``k12eval.metrics``, ``k12eval.backends``). Nothing registers itself when imported: a
group is read only for a name the table does not have (or to list the names, loading none), and a plugin is
loaded only when it is asked for; one that fails to load is one :class:`~kg.errors.InputError` line naming its
package, not a traceback.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from kg.errors import InputError

BACKEND_GROUP = "k12eval.backends"
"""Backends (``name = "package.module:Class"``, a ``runners.backends.Backend`` subclass); docs/python.md."""
FORMAT_GROUP = "k12eval.bank_formats"
"""Bank formats (``name = "package.module"``, a module with ``detect`` and ``read`` as ``kg.importers``' have)."""
METRIC_GROUP = "k12eval.metrics"
"""Metrics (``name = "package.module:RECORD"``, a ``reasoning_metrics.metric_table.Metric`` named ``name``)."""


def installed(group: str, built_in: Iterable[str] = ()) -> list[str]:
    """The names of ``group``'s entry points, sorted, those in ``built_in`` left out; none is loaded."""
    from importlib.metadata import entry_points

    return sorted({entry.name for entry in entry_points(group=group)} - set(built_in))


def find(group: str, name: str) -> Any | None:
    """The entry point ``name`` of ``group``, not loaded, or ``None``."""
    from importlib.metadata import entry_points

    return next((entry for entry in entry_points(group=group) if entry.name == name), None)


def where(entry: Any) -> str:
    """How an error names an entry point: ``kind 'name' (group entry point module:attr of package dist)``."""
    dist = getattr(getattr(entry, "dist", None), "name", None)
    value = getattr(entry, "value", entry.name)
    return f"{entry.group} entry point {value} of package {dist}" if dist else f"{entry.group} entry point {value}"


def load(entry: Any, kind: str) -> Any:
    """What ``entry`` names, loaded, or one :class:`InputError` line naming the package whose module broke."""
    try:
        return entry.load()
    except Exception as exc:  # anything a third party's module raises on import: one line, not a traceback
        lines = str(exc).strip().splitlines()
        reason = f"{type(exc).__name__}: {lines[0].strip()[:300]}" if lines else type(exc).__name__
        raise InputError(f"{kind} {entry.name!r} ({where(entry)}) is broken: {reason}") from None


def or_list(names: Sequence[str]) -> str:
    """``a, b or c``: names as a help text lists them."""
    *first, last = names
    return f"{', '.join(first)} or {last}" if first else last
