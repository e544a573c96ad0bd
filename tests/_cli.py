"""The command line invoked in-process, for end-to-end tests."""

from __future__ import annotations

from typer.testing import CliRunner

from k12eval.cli import app


def cli_ok(*args: str) -> str:
    """Run ``k12eval ARGS``; fail the test with the command's output unless it exits 0; return the output."""
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output
