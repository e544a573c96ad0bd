"""The teacher's audit report: one self-contained HTML page plus tables, aggregates and plots."""

__k12eval__ = True  # this folder is k12eval's own, not a PyPI namesake (k12eval._guard reads it)

from reports.writer import ReportResult, write_report

__all__ = ["ReportResult", "write_report"]
