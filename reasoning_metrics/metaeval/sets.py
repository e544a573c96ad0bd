"""Labelled sets named on the command line: ``[NAME=][FORMAT:]PATH[,PATH...]``.

``processbench:gsm8k.json`` is the set ``gsm8k``; ``mr-gsm8k=mr-math:a.json,b.json`` reads both files
as one set. Solutions of a set read from several files get ids ``<file stem>:<id>`` (one question may
be answered in each file) and keep the original id as ``meta["question_id"]``, the split key
(:mod:`.halves`), so a question's solutions stay in one half.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from kg.errors import InputError
from reasoning_metrics.metaeval.data import FORMATS, LabelledSolution, load_solutions


@dataclass(frozen=True)
class SetSpec:
    """One labelled set: its name, format and files."""

    name: str
    fmt: str
    paths: tuple[Path, ...]


def parse_set(spec: str, default_format: str | None = None) -> SetSpec:
    """Read ``[NAME=][FORMAT:]PATH[,PATH...]``; without ``FORMAT:`` the ``default_format`` applies."""
    name, _, rest = spec.partition("=") if "=" in spec.split(":", 1)[0] else ("", "", spec)
    fmt, sep, paths = rest.partition(":")
    if not sep or fmt not in FORMATS:
        fmt, paths = default_format or "", rest
    if not fmt:
        formats = ", ".join(FORMATS)
        raise InputError(lambda name: f"{spec!r}: no format; write FORMAT:PATH ({formats}) or pass {name('fmt')}")
    files = tuple(Path(p) for p in paths.split(",") if p)
    if not files:
        raise InputError(f"{spec!r}: no file named")
    if not name:
        name = files[0].stem if len(files) == 1 else (files[0].parent.name or files[0].stem)
    return SetSpec(name, fmt, files)


def load_set(spec: SetSpec) -> list[LabelledSolution]:
    """Every solution of every file of ``spec`` (ids made unique across files, see the module doc)."""
    if len(spec.paths) == 1:
        return load_solutions(spec.paths[0], spec.fmt)
    out = []
    for path in spec.paths:
        for s in load_solutions(path, spec.fmt):
            meta = {"question_id": s.id, **s.meta}
            out.append(dataclasses.replace(s, id=f"{path.stem}:{s.id}", meta=meta))
    return out
