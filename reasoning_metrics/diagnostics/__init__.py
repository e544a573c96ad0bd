"""Diagnostic sets: reference solutions with one known error planted at one known step.

``load_source`` reads GSM8K JSONL or any question bank with analyses;
``build_diagnostic_set`` applies the perturbations of :data:`KINDS`;
``write_jsonl`` writes chains JSONL for ``k12eval meta-eval --format chains``.
"""

from reasoning_metrics.diagnostics.make import DiagnosticSet, build_diagnostic_set, write_jsonl
from reasoning_metrics.diagnostics.perturb import KINDS, PERTURBATIONS, Perturbation
from reasoning_metrics.diagnostics.sources import SourceItem, load_source

__all__ = [
    "KINDS",
    "PERTURBATIONS",
    "DiagnosticSet",
    "Perturbation",
    "SourceItem",
    "build_diagnostic_set",
    "load_source",
    "write_jsonl",
]
