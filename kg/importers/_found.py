"""What every importer shares: the options it may be asked and a good record with its place.

The importers import these from here, not from the package face :mod:`kg.importers`, which imports the
importers by name (a face that imports its modules while they import it back is a loop).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kg.errors import Problem
from kg.records import Question


@dataclass(frozen=True)
class ImportOptions:
    """What an importer may be asked besides the path."""

    variant: str = "original"
    """CK12 released variant to read at the release root."""
    mapping: Path | None = None
    """Mapping file for the ``mapped`` format (JSONL / CSV with named columns)."""
    taxonomy: Path | None = None
    """Xiezhi discipline taxonomy (``subjects_tree_chn.json`` or its folder); found beside the data if omitted."""


@dataclass(frozen=True)
class Found:
    """A good record and where it was read, so that a later duplicate of its id can point at both."""

    question: Question
    path: Path
    """File the record came from."""
    line: int
    """1-based line of the record in that file."""


def located(item: Question | Problem, path: Path, line: int) -> Found | Problem:
    """A reader's result for one record, with the place of a good one kept beside it."""
    return Found(item, path, line) if isinstance(item, Question) else item
