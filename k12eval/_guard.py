"""The top-level packages k12eval ships beside itself (``kg``, ``runners``, ``reasoning_metrics``, ``reports``)
are k12eval's own, or one line says whose they are.

PyPI has packages of the same names (``pip install reports``): installed beside k12eval, one of them
shadows k12eval's folder (an earlier entry of ``sys.path``) or writes its ``__init__.py`` over k12eval's
(the same folder of site-packages), and ``k12eval report`` then breaks somewhere far from the cause.
Each of k12eval's package faces carries the line ``__k12eval__ = True``; this module finds each package
without importing it, reads its face, and names the distribution that put it there when it is not
k12eval's. Standard library only: it runs on every ``import k12eval``.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

PACKAGES = ("kg", "runners", "reasoning_metrics", "reports")
"""k12eval's top-level packages besides ``k12eval`` itself."""
MARKER = "__k12eval__ = True"
"""The line every one of k12eval's package faces carries."""


def foreign_package(root: Path | None = None) -> str | None:
    """What is wrong, in one line, when a package of :data:`PACKAGES` is not k12eval's; None when all are.

    ``root`` is the folder that holds k12eval's packages (default: the one holding ``k12eval``).
    """
    root = root or Path(__file__).resolve().parents[1]
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        origin = Path(spec.origin).resolve() if spec is not None and spec.origin else None
        if origin is None or origin.name != "__init__.py":
            where = "is missing" if spec is None else "is not a regular package"
            return f"k12eval's package {name!r} {where}: reinstall k12eval (pip install --force-reinstall k12eval)"
        try:
            ours = MARKER in origin.read_text(encoding="utf-8", errors="replace")
        except OSError:
            ours = False
        if ours and origin.parent.parent == root:
            continue
        owners = [d for d in _distributions(name) if d.lower() != "k12eval"]
        by = f" of the distribution {', '.join(map(repr, owners))}" if owners else " of another distribution"
        fix = f"pip uninstall {' '.join(owners)}, then " if owners else ""
        return (
            f"the package {name!r} imported from {origin.parent} is not k12eval's but one{by} of the same name: "
            f"{fix}pip install --force-reinstall k12eval, or give k12eval a virtualenv of its own"
        )
    return None


def _distributions(name: str) -> list[str]:
    """The installed distributions that provide the top-level package ``name`` (read only when one clashes)."""
    from importlib.metadata import packages_distributions

    return sorted(set(packages_distributions().get(name, [])))
