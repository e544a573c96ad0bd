"""Chinese plot labels on a machine without system CJK fonts: the font a PyPI package carries."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

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
    pytest.importorskip("pylopdf_fonts_zh_cn")
    family = fonts.packaged_cjk_font()
    assert family == "Noto Sans SC"  # the simplified-Chinese cut, not the Japanese face of a collection
    assert _glyph_warnings(family, tmp_path) == []
    # The check can fail: a Latin-only font warns about every Chinese character.
    assert _glyph_warnings("DejaVu Sans", tmp_path)


@pytest.mark.slow
def test_plots_use_the_packaged_font_when_the_system_has_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pylopdf_fonts_zh_cn")
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


def _drawn_texts(nodes: pd.DataFrame, runs: list[dict[str, str]], out: Path, font: str | None) -> dict[str, list[str]]:
    """Titles, axis labels, tick labels and legend entries of every figure write_plots saves, by file name."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    texts: dict[str, list[str]] = {}
    save = Figure.savefig

    def spy(fig: Figure, path: Any, *args: Any, **kwargs: Any) -> None:
        found = []
        for ax in fig.axes:
            found += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
            found += [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
            legend = ax.get_legend()
            found += [t.get_text() for t in legend.get_texts()] if legend else []
        texts[Path(path).name] = [t for t in found if t]
        save(fig, path, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Figure, "savefig", spy)
        write_plots(nodes, runs, out, font=font)
    return texts


@pytest.mark.slow
def test_plots_name_runs_in_full_and_speak_the_pages_language(tmp_path: Path) -> None:
    """#23 item 5: run names were cut at 22 characters, so zero-shot-CoT and few-shot of one model looked
    the same; titles were English on a Chinese report."""
    pytest.importorskip("matplotlib")
    _, runs = demo_runs(tmp_path / "runs")
    write_report(runs, tmp_path / "report", plots=False)
    nodes = pd.read_parquet(tmp_path / "report" / "nodes.parquet")
    ids = list(dict.fromkeys(nodes["run"]))[:2]
    model = "Qwen2.5-Coder-0.5B-Instruct"
    labels = [{"id": ids[0], "label": f"{model} · zero-shot-cot · original"}]
    labels.append({"id": ids[1], "label": f"{model} · few-shot · original"})
    family = fonts.cjk_font()
    if family is None:
        pytest.skip("no CJK font here (pip install 'k12eval[plots]')")
    texts = _drawn_texts(nodes[nodes["run"].isin(ids)], labels, tmp_path / "plots", family)
    for name in ("heatmap.png", "groups.png", "unparsed.png"):
        ticks = [t for t in texts[name] if model in t.replace("\n", "")]
        assert len(set(ticks)) == 2, (name, ticks)
        assert any("zero-shot-cot" in t for t in ticks) and any("few-shot\n" in t for t in ticks), ticks
        assert "…" not in "".join(ticks)
    assert "各学科正确率" in texts["heatmap.png"] and "文科与理科" in texts["groups.png"]
    assert {"文科", "理科"} <= set(texts["groups.png"]) and "未解析的作答" in texts["unparsed.png"]
    assert any(t.startswith("最薄弱的知识点") for t in texts["weakest.png"])
    english = _drawn_texts(nodes[nodes["run"].isin(ids)], labels, tmp_path / "plots-en", "")
    assert "Accuracy by subject" in english["heatmap.png"] and "Arts vs science" in english["groups.png"]
