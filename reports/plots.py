"""PNG figures of the overview (matplotlib, Agg backend), with Chinese labels when a CJK font exists.

The CJK font is a system one or the one the ``plots`` extra's ``pylopdf-fonts-zh-cn`` package carries
(Noto Sans SC, :mod:`reports.fonts`). Without either (``pip install 'k12eval[plots]'``, or Debian's ``fonts-noto-cjk``),
Chinese labels would print as empty boxes: known subjects, types and groups are
then written in English and other Chinese labels by their position (``#3``),
and :func:`write_plots` says so in its notes.

Labels are bank and model text: matplotlib's mathtext is switched off (a name
such as ``$x^$`` would stop the report) and simple LaTeX is shown as plain text
(``$x^2$`` -> ``x²``), as in the page.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reports.aggregate import ROOT, weakest_points
from reports.fonts import CJK_FAMILIES, cjk_font
from reports.latex_text import simplify_latex

__all__ = ["CJK_FAMILIES", "Labeller", "cjk_font", "write_plots"]

ENGLISH = {
    "语文": "Chinese", "数学": "Math", "英语": "English", "物理": "Physics", "化学": "Chemistry",
    "生物": "Biology", "历史": "History", "政治": "Politics", "地理": "Geography",
}  # fmt: skip
_CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")

WORDS: dict[str, tuple[str, str]] = {
    "heatmap": ("各学科正确率", "Accuracy by subject"),
    "accuracy": ("正确率 %", "accuracy %"),
    "groups": ("文科与理科", "Arts vs science"),
    "interval": ("正确率 %（95% Wilson 置信区间）", "accuracy % (95% Wilson interval)"),
    "weakest": ("最薄弱的知识点：{run}", "Weakest knowledge points: {run}"),
    "ranked": ("正确率 %（按 95% 置信区间上限排序）", "accuracy % (ranked by the upper end of the 95% interval)"),
    "unparsed": ("未解析的作答", "Unparsed answers"),
    "unreadable": ("读不出答案的作答 %", "% of answers with no readable answer"),
    "arts": ("文科", "arts"),
    "science": ("理科", "science"),
}
"""Titles and axis labels: Chinese where a CJK font can draw them (the page's first language), else English."""


class Labeller:
    """Turns labels into text the chosen font can draw."""

    def __init__(self, has_cjk: bool) -> None:
        self.has_cjk = has_cjk
        self.replaced = 0

    def word(self, key: str, **values: str) -> str:
        """The plot's own text ``key`` of :data:`WORDS`, in Chinese when the font draws it."""
        zh, en = WORDS[key]
        return (zh if self.has_cjk else en).format(**values)

    def __call__(self, text: str, position: int | None = None) -> str:
        text = simplify_latex(text)
        if self.has_cjk or not _CJK.search(text):
            return text
        self.replaced += 1
        if text in ENGLISH:
            return ENGLISH[text]
        return f"#{position + 1}" if position is not None else _CJK.sub("?", text)


def write_plots(nodes: pd.DataFrame, runs: list[dict[str, str]], out: Path, font: str | None = None) -> list[str]:
    """Write heatmap.png, groups.png, weakest.png and unparsed.png into ``out``; returns notes for the user.

    ``runs`` are ``{"id", "label"}`` in report order. ``font`` overrides the CJK font
    search (``""`` means: pretend none is installed).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    family = cjk_font() if font is None else (font or None)
    label = Labeller(family is not None)
    notes: list[str] = []
    style: dict[str, Any] = {
        "font.family": [family, "DejaVu Sans"] if family else ["DejaVu Sans"],
        "axes.unicode_minus": False,
        "text.parse_math": False,  # labels are untrusted text, never mathtext
    }
    with plt.rc_context(style):  # type: ignore[arg-type]
        _heatmap(nodes, runs, out / "heatmap.png", label, plt)
        _groups(nodes, runs, out / "groups.png", label, plt)
        _weakest(nodes, runs, out / "weakest.png", label, plt)
        _unparsed(nodes, runs, out / "unparsed.png", label, plt)
    if label.replaced:
        from reports.runs import Note

        text = (
            "no CJK font found: Chinese plot labels were replaced (pip install 'k12eval[plots]', or apt fonts-noto-cjk)"
        )
        notes.append(
            Note(text, "没有中文字体：图中的中文标签已被替换（pip install 'k12eval[plots]'，或 apt fonts-noto-cjk）")
        )
    return notes


def _short(label: str, width: int = 28) -> str:
    return label if len(label) <= width else label[: width - 1] + "…"


def _run_name(label: str, width: int = 20) -> str:
    """A run's whole name (``model · mode · variant``), one part a line, long parts wrapped, never cut:
    two runs of one model differ only after its name (zero-shot-CoT and few-shot looked the same)."""
    import textwrap

    lines = [line for part in label.split(" · ") for line in textwrap.wrap(part, width, break_long_words=True)]
    return "\n".join(lines)


def _run_ticks(ax: Any, runs: list[dict[str, str]], label: Labeller) -> None:
    ax.set_xticks(range(len(runs)), [label(_run_name(r["label"])) for r in runs], fontsize=7)


def _error_bars(acc: Any, lo: Any, hi: Any) -> list[Any]:
    """Lower and upper bar lengths, never negative (matplotlib refuses those; NaN stays NaN: no bar)."""
    acc, lo, hi = (np.asarray(a, dtype=float) for a in (acc, lo, hi))
    return [np.fmax(acc - lo, 0.0), np.fmax(hi - acc, 0.0)]


def _heatmap(nodes: pd.DataFrame, runs: list[dict[str, str]], path: Path, label: Labeller, plt: Any) -> None:
    subjects = nodes[(nodes["slice"] == "all") & (nodes["kind"] == "subject")]
    table = subjects.pivot_table(index="name", columns="run", values="acc_micro", aggfunc="first", dropna=False)
    table = table.reindex(columns=[r["id"] for r in runs])
    fig, ax = plt.subplots(figsize=(2.2 + 1.3 * len(runs), 1.2 + 0.45 * max(1, len(table))))
    values = table.to_numpy(dtype=float) * 100
    image = ax.imshow(values, cmap="RdYlGn", vmin=0, vmax=100, aspect="auto")
    _run_ticks(ax, runs, label)
    ax.set_yticks(range(len(table)), [label(str(s), i) for i, s in enumerate(table.index)], fontsize=9)
    for (i, j), value in pd.DataFrame(values).stack(future_stack=True).items():
        ax.text(j, i, "—" if math.isnan(value) else f"{value:.0f}", ha="center", va="center", fontsize=8)
    fig.colorbar(image, ax=ax, label=label.word("accuracy"))
    ax.set_title(label.word("heatmap"))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _groups(nodes: pd.DataFrame, runs: list[dict[str, str]], path: Path, label: Labeller, plt: Any) -> None:
    rows = nodes[(nodes["slice"] == "group") & (nodes["node"] == ROOT)]
    groups = sorted(rows["slice_value"].unique())
    fig, ax = plt.subplots(figsize=(2.5 + 1.2 * len(runs), 3.4))
    width = 0.8 / max(1, len(groups))
    for g, group in enumerate(groups):
        part = rows[rows["slice_value"] == group].set_index("run").reindex([r["id"] for r in runs])
        acc = part["acc_micro"].to_numpy(dtype=float) * 100
        err = _error_bars(acc, part["acc_micro_lo"].to_numpy(dtype=float) * 100, part["acc_micro_hi"] * 100)
        xs = [i + (g - (len(groups) - 1) / 2) * width for i in range(len(runs))]
        ax.bar(xs, acc, width, yerr=err, capsize=3, label=label.word(group) if group in WORDS else label(group))
    _run_ticks(ax, runs, label)
    ax.set_ylim(0, 100)
    ax.set_ylabel(label.word("interval"))
    ax.set_title(label.word("groups"))
    if groups:
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _weakest(nodes: pd.DataFrame, runs: list[dict[str, str]], path: Path, label: Labeller, plt: Any) -> None:
    weakest = weakest_points(nodes, top=12)
    first = weakest[weakest["run"] == runs[0]["id"]] if runs else weakest
    first = first.iloc[::-1]
    fig, ax = plt.subplots(figsize=(7.5, 1.2 + 0.38 * max(1, len(first))))
    acc = first["acc_micro"].to_numpy(dtype=float) * 100
    lo = first["acc_micro_lo"].to_numpy(dtype=float) * 100
    hi = first["acc_micro_hi"].to_numpy(dtype=float) * 100
    names = [
        label(f"{s} / {n} (n={int(k)})", i)
        for i, (s, n, k) in enumerate(zip(first["subject"], first["name"], first["n"], strict=True))
    ]
    ax.barh(range(len(first)), acc, xerr=_error_bars(acc, lo, hi), capsize=3, color="#d9534f")
    ax.set_yticks(range(len(first)), [_short(n, 34) for n in names], fontsize=8)
    ax.set_xlim(0, 100)
    ax.set_xlabel(label.word("ranked"))
    ax.set_title(label.word("weakest", run=label(runs[0]["label"]) if runs else ""), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _unparsed(nodes: pd.DataFrame, runs: list[dict[str, str]], path: Path, label: Labeller, plt: Any) -> None:
    rows = nodes[(nodes["slice"] == "all") & (nodes["node"] == ROOT)].set_index("run").reindex([r["id"] for r in runs])
    fig, ax = plt.subplots(figsize=(2.5 + 1.0 * len(runs), 3.2))
    ax.bar(range(len(runs)), rows["unparsed_rate"].to_numpy(dtype=float) * 100, color="#f0ad4e")
    _run_ticks(ax, runs, label)
    ax.set_ylabel(label.word("unreadable"))
    ax.set_title(label.word("unparsed"))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
