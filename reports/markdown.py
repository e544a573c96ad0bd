"""Render a small DataFrame as a GitHub Markdown table (no extra dependency, cells escaped)."""

from __future__ import annotations

import pandas as pd


def cell(value: object) -> str:
    """One cell's text: pipes escaped, line breaks flattened, missing values empty."""
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return ""
    text = str(value).replace("\\", "\\\\").replace("|", "\\|")
    return " ".join(text.split())


def markdown(table: pd.DataFrame, title: str | None = None, note: str | None = None) -> str:
    """``table`` as Markdown, with an optional ``###`` title and a note line under it."""
    lines: list[str] = []
    if title:
        lines += [f"### {cell(title)}", ""]
    if table.empty:
        lines.append("_(no data)_")
    else:
        header = [cell(c) for c in table.columns]
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "|".join("---" for _ in header) + "|")
        for row in table.itertuples(index=False):
            lines.append("| " + " | ".join(cell(v) for v in row) + " |")
    if note:
        lines += ["", note]
    return "\n".join(lines) + "\n"
