"""Chinese plot labels on a machine without system CJK fonts: the font a PyPI package carries."""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd
import pytest

from reports import fonts, write_report
from reports.plots import write_plots
from tests._runs import demo_runs

LABEL = "三角形的内角和 / 一元二次方程"


def _glyph_warnings(family: str, tmp_path: Path) -> list[str]:
    """Draw ``LABEL`` with ``family`` and return matplotlib's missing-glyph warnings."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with warnings.catch_warnings(record=True) as caught, plt.rc_context({"font.family": [family]}):
        warnings.simplefilter("always")
        fig, ax = plt.subplots()
        ax.set_title(LABEL)
        ax.set_yticks([0], [LABEL])
        fig.savefig(tmp_path / "label.png")
        plt.close(fig)
    return [str(w.message) for w in caught if "missing from font" in str(w.message)]


def test_the_packaged_font_draws_chinese_labels(tmp_path: Path) -> None:
    pytest.importorskip("paperang_p2_fonts_cjk")
    family = fonts.packaged_cjk_font()
    assert family == "WenQuanYi Micro Hei"
    assert _glyph_warnings(family, tmp_path) == []
    # The check can fail: a Latin-only font warns about every Chinese character.
    assert _glyph_warnings("DejaVu Sans", tmp_path)


def test_plots_use_the_packaged_font_when_the_system_has_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("paperang_p2_fonts_cjk")
    bank_root = tmp_path / "runs"
    _, runs = demo_runs(bank_root)
    write_report(runs, tmp_path / "report", cjk_font="")
    nodes = pd.read_parquet(tmp_path / "report" / "nodes.parquet")
    assert nodes["name"].astype(str).str.contains(r"[\u4e00-\u9fff]").any()  # Chinese labels to draw
    # A fresh machine: no system font directory and no known family in matplotlib's list.
    monkeypatch.setattr(fonts, "FONT_DIRS", ())
    monkeypatch.setattr(fonts, "CJK_FAMILIES", ("No Such CJK Font",))
    fonts.cjk_font.cache_clear()
    try:
        assert fonts.cjk_font() == fonts.packaged_cjk_font()
        labels = [{"id": r, "label": r} for r in dict.fromkeys(nodes["run"])]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            notes = write_plots(nodes, labels, tmp_path / "plots")
    finally:
        fonts.cjk_font.cache_clear()
    assert not any("no CJK font" in n for n in notes), notes
    assert not [w for w in caught if "missing from font" in str(w.message)]
