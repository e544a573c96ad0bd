"""Question records, question-bank importers and the knowledge graph.

Public names are loaded on first use, so that ``import kg.errors`` (which the
command line needs at start-up) does not pull in networkx and pydantic.
"""

from __future__ import annotations

__k12eval__ = True  # this folder is k12eval's own, not a PyPI namesake (k12eval._guard reads it)

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "InputError": "kg.errors",
    "Problem": "kg.errors",
    "KnowledgeGraph": "kg.graph",
    "build_graph": "kg.graph",
    "level1_id": "kg.graph",
    "level2_id": "kg.graph",
    "node_ids": "kg.graph",
    "question_id": "kg.graph",
    "subject_id": "kg.graph",
    "FORMATS": "kg.importers",
    "ImportResult": "kg.importers",
    "detect_format": "kg.importers",
    "load_questions": "kg.importers",
    "Knowledge": "kg.records",
    "Option": "kg.records",
    "Question": "kg.records",
    "QuestionType": "kg.records",
    "Stage": "kg.records",
}
__all__ = [
    "FORMATS",
    "ImportResult",
    "InputError",
    "Knowledge",
    "KnowledgeGraph",
    "Option",
    "Problem",
    "Question",
    "QuestionType",
    "Stage",
    "build_graph",
    "detect_format",
    "level1_id",
    "level2_id",
    "load_questions",
    "node_ids",
    "question_id",
    "subject_id",
]

if TYPE_CHECKING:
    from kg.errors import InputError, Problem
    from kg.graph import KnowledgeGraph, build_graph, level1_id, level2_id, node_ids, question_id, subject_id
    from kg.importers import FORMATS, ImportResult, detect_format, load_questions
    from kg.records import Knowledge, Option, Question, QuestionType, Stage


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'kg' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
