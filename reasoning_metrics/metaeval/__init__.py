"""Meta-evaluation: do the step scores and detectors find the wrong solutions and the wrong steps?

``load_solutions`` reads ProcessBench, MR-MATH / MR-GSM8K or our chains JSONL;
``run_detectors`` scores them; ``meta_evaluate`` computes every statistic;
``to_markdown`` / ``to_json`` write the report.
"""

from reasoning_metrics.metaeval.data import FORMATS, LabelledSolution, load_solutions
from reasoning_metrics.metaeval.detection_stats import auroc, bootstrap_ci, processbench_scores, somers_d
from reasoning_metrics.metaeval.detectors import MEASURED, DetectionContext, DetectorResult, run_detectors
from reasoning_metrics.metaeval.harness import DetectorReport, MetaEvalReport, meta_evaluate
from reasoning_metrics.metaeval.report_writer import to_json, to_markdown

__all__ = [
    "FORMATS",
    "MEASURED",
    "DetectionContext",
    "DetectorReport",
    "DetectorResult",
    "LabelledSolution",
    "MetaEvalReport",
    "auroc",
    "bootstrap_ci",
    "load_solutions",
    "meta_evaluate",
    "processbench_scores",
    "run_detectors",
    "somers_d",
    "to_json",
    "to_markdown",
]
