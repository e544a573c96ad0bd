"""The teacher's audit report: one self-contained HTML page plus tables, aggregates and plots."""

from reports.writer import ReportResult, write_report

__all__ = ["ReportResult", "write_report"]
