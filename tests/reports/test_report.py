"""The report folder, the command line, the page's escaping, LaTeX display, step splitting and plots."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import warnings
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import reports
from k12eval.cli import app
from reports import write_report
from reports.html import embed_json, render
from reports.latex_text import simplify_latex
from reports.plots import write_plots
from reports.steps import split_steps
from tests._runs import HOSTILE_OUTPUTS, SMALL_ANSWERS, demo_runs, small_bank, write_bank, write_run


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path], Path]:
    root = tmp_path_factory.mktemp("demo")
    bank, runs = demo_runs(root)
    out = root / "report"
    write_report(runs, out)
    return bank, runs, out


def page_data(html: str) -> dict:
    match = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)
    assert match, "no data block"
    return json.loads(match.group(1))


def test_report_folder(demo: tuple[Path, list[Path], Path]) -> None:
    _, runs, out = demo
    for name in ("index.html", "nodes.csv", "nodes.parquet", "questions.csv", "summary.json", "tables.md"):
        assert (out / name).is_file(), name
    for plot in ("heatmap", "groups", "weakest", "unparsed"):
        assert (out / "plots" / f"{plot}.png").read_bytes()[:4] == b"\x89PNG"
    assert (out / "tables" / "ck12_table1_type_by_mode.md").read_text(encoding="utf-8").startswith("### Accuracy")
    csv = pd.read_csv(out / "nodes.csv")
    parquet = pd.read_parquet(out / "nodes.parquet")
    assert len(csv) == len(parquet) and set(parquet["run"]) == {r.name for r in runs}
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    whole = parquet[(parquet["slice"] == "all") & (parquet["node"] == "all")].set_index("run")
    for run in summary["runs"]:
        assert run["acc_micro"] == pytest.approx(whole.loc[run["id"], "acc_micro"], abs=1e-4)
        assert len(run["weakest"]) == 5


def test_questions_csv_holds_lists_as_json(demo: tuple[Path, list[Path], Path]) -> None:
    """``groups`` (and Xiezhi's ``further_places``) are lists: the CSV held Python's ``('science',)``."""
    import csv

    _, _, out = demo
    with (out / "questions.csv").open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    parquet = pd.read_parquet(out / "questions.parquet")
    assert rows and len(rows) == len(parquet)
    for row, groups in zip(rows, parquet["groups"], strict=True):
        assert json.loads(row["groups"]) == list(groups), row["groups"]
    assert any(json.loads(row["groups"]) for row in rows)


def test_page_data_matches_aggregates(demo: tuple[Path, list[Path], Path]) -> None:
    _, runs, out = demo
    data = page_data((out / "index.html").read_text(encoding="utf-8"))
    nodes = pd.read_parquet(out / "nodes.parquet")
    assert (
        len(data["questions"]["id"]) == nodes[(nodes["node"] == "all") & (nodes["slice"] == "all")]["questions"].iloc[0]
    )
    run = runs[0].name
    # Judgment questions count per statement (the protocol's rule, #26 item 5): the page weighs each by its
    # statements (w) and right statements (r), as nodes.csv counts them.
    result = data["results"][run]
    weights, rights = result.get("w") or [None] * len(result["c"]), result.get("r") or [None] * len(result["c"])
    assert any(w is not None and w > 1 for w in weights)  # the demo has multi-statement judgments
    scored = sum(w if w is not None else 1 for c, w in zip(result["c"], weights, strict=True) if c is not None)
    right = sum(r if r is not None else c for c, r in zip(result["c"], rights, strict=True) if c is not None)
    row = nodes[(nodes["run"] == run) & (nodes["node"] == "all") & (nodes["slice"] == "all")].iloc[0]
    assert (scored, right) == (row["n"], row["correct"])
    # the shuffled run carries the options it saw
    shuffled = next(r.name for r in runs if "shuffled" in r.name)
    assert all("options" in answer for answer in data["answers"][shuffled].values())


def test_page_data_carries_the_detectors_flags(demo: tuple[Path, list[Path], Path]) -> None:
    _, runs, out = demo
    data = page_data((out / "index.html").read_text(encoding="utf-8"))
    answers = [a for run in data["answers"].values() for a in run.values()]
    suspects = [a for a in answers if a["first_suspect"] is not None and a["suspect_rule"] == "flag"]
    assert suspects and all(a["correct"] is False for a in suspects)  # the demo's wrong chains only
    guessed = [a for a in answers if a["first_suspect"] is not None and a["suspect_rule"] == "fallback"]
    assert guessed
    for a in guessed:  # no step reaches the flag threshold: the solution's own flags made it suspect
        assert a["solution_flags"] and all(s.get("sus", 0) < 0.5 for s in a["steps"])
    assert {a["suspect_rule"] for a in answers if a["first_suspect"] is None} <= {"none", None}
    for a in suspects:
        step = a["steps"][a["first_suspect"]]
        arithmetic = {
            "kind": "arithmetic",
            "message": "2 + 3 = 6 does not hold (5 vs 6)",
            "zh": "2 + 3 = 6 不成立（5 与 6）",
            "evidence": "2 + 3 = 6",
            "severity": 0.9,
        }
        assert arithmetic in step["findings"]
        assert step["sus"] >= 0.5
        assert all(s.get("sus", 0) < 0.5 for s in a["steps"][: a["first_suspect"]])
    quoted = [f["message"] for a in answers for s in a["steps"] for f in s.get("findings", []) if "<" in f["message"]]
    assert any(h in m for m in quoted for h in HOSTILE_OUTPUTS)  # model text kept verbatim, shown as text
    flags = {f["kind"] for a in answers for f in a["solution_flags"]}
    assert "unused_given" in flags
    unscored = next(a for a in data["answers"][runs[1].name].values())  # the few-shot run has no scores
    assert (unscored["solution_flags"], unscored["first_suspect"]) == ([], None)


def test_hostile_output_cannot_break_out(demo: tuple[Path, list[Path], Path]) -> None:
    _, _, out = demo
    html = (out / "index.html").read_text(encoding="utf-8")
    data_block = html.split('id="report-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data_block and ">" not in data_block
    outputs = [a["output"] for run in page_data(html)["answers"].values() for a in run.values()]
    for hostile in HOSTILE_OUTPUTS:
        assert hostile in outputs  # kept verbatim in the data, shown as text by the page
    assert "window.__pwned" not in html.replace("window.__pwned", "", 0).split("report-data")[0]


def test_embed_json_round_trips_and_escapes() -> None:
    value = {"x": "</script><!-- <b>&amp;", "y": [1.5, None]}
    text = embed_json(value)
    assert "</" not in text and "<!--" not in text and "&" not in text
    assert json.loads(text) == value


def test_csp_allows_exactly_the_inline_scripts_and_styles() -> None:
    html = render({"meta": {}}, title="<T>")
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert policy
    for tag, directive in (("script", "script-src"), ("style", "style-src")):
        bodies = re.findall(rf"<{tag}>(.*?)</{tag}>", html, re.S)
        assert len(bodies) == 2  # KaTeX's and the report's own
        allowed = re.search(rf"{directive} ([^;]+);", policy.group(1))
        hashes = {"'sha256-" + base64.b64encode(hashlib.sha256(b.encode()).digest()).decode() + "'" for b in bodies}
        assert allowed and set(allowed.group(1).split()) == hashes
    assert "default-src 'none'" in policy.group(1) and "unsafe-inline" not in policy.group(1)
    assert "font-src data:;" in policy.group(1)  # KaTeX's fonts are inlined, never fetched
    assert "<title>&lt;T&gt;</title>" in html
    scripts = re.findall(r"<script>(.*?)</script>", html, re.S)
    assert "KaTeX" in scripts[0] and "The MIT License" in scripts[0]  # the bundled copy keeps its notice
    assert all("innerHTML" not in s and "insertAdjacentHTML" not in s for s in scripts)
    assert "url(fonts/" not in html  # one self-contained file: KaTeX's fonts inlined, never fetched
    # of bounded size: beside the bundled KaTeX (about 630 KiB with its fonts), the page's own code and this small
    # report's data stay under 200 kB (106 kB at 9ea9bef; a stray asset inlined would not)
    assets = Path(reports.__file__).parent / "assets"
    katex = sum(len((assets / name).read_text(encoding="utf-8")) for name in ("katex.min.js", "katex.min.css"))
    assert len(html) - katex < 200_000


def test_placeholder_text_in_data_is_not_substituted() -> None:
    html = render({"meta": {"title": "{{JS}} {{DATA}}"}})
    assert page_data(html)["meta"]["title"] == "{{JS}} {{DATA}}"


@pytest.mark.parametrize(
    ("latex", "text"),
    [
        ("$$\\frac{1}{2}$$", "1/2"),
        ("$$\\frac{x+1}{x-1}$$", "(x+1)/(x-1)"),
        ("$$3\\times 4 \\div 2$$", "3×4 ÷2"),
        ("$$x^{2}+y^2\\le 1$$", "x²+y²≤1"),
        ("$$\\sqrt{2}$$ 与 $$\\sqrt{x+1}$$", "√2 与 √(x+1)"),
        ("$$\\angle A=60^\\circ$$", "∠A=60°"),
        ("$$a_{n+1}$$", "aₙ₊₁"),
        ("$$\\frac{\\sqrt{3}}{2}$$", "√3/2"),
        ("$$\\text{千克}$$", "千克"),
        ("$$\\unknown{x}$$", "\\unknown{x}"),
        # CK12 fill-in blanks and a model's equation system, as tooltips and plots show them (#23 item 5)
        ("秦朝废除了 $$\\underline{}$$ ，又实行 $$\\underline{}$$ 。", "秦朝废除了 ____ ，又实行 ____ 。"),
        ("$$\\underline{\\quad}$$ 和 $$\\underline{5}$$", "____ 和 5"),
        ("$$\\begin{cases}x+y=1\\\\x-y=2\\end{cases}$$", "{x+y=1 x-y=2"),
        ("没有公式的句子。", "没有公式的句子。"),
        # vectors as a teacher writes them: a mark over each letter (#36)
        (
            "$$\\overrightarrow{AB}+\\overrightarrow{BC}=\\overrightarrow{AC}$$",
            "A\u20d7B\u20d7+B\u20d7C\u20d7=A\u20d7C\u20d7",
        ),
        ("$$\\overleftarrow{CD}$$", "C\u20d6D\u20d6"),
        ("$$\\tilde{x}=\\widetilde{y}$$", "x\u0303=y\u0303"),
        ("$$\\overrightarrow{<b>}$$", "<\u20d7b\u20d7>\u20d7"),  # text stays text: escaped where the page shows it
    ],
)
def test_simplify_latex(latex: str, text: str) -> None:
    assert simplify_latex(latex) == text


@pytest.mark.parametrize(
    ("latex", "text"),
    [
        ("\\sqrt[3", "√[3"),  # no closing bracket: once an endless loop
        ("答案是 2\\", "答案是 2\\"),  # a trailing backslash: once an AssertionError
        ("a\\\nb", "a\\\nb"),
    ],
)
def test_simplify_latex_survives_broken_model_output(latex: str, text: str) -> None:
    assert simplify_latex(latex) == text


def test_split_steps() -> None:
    assert split_steps("") == [] and split_steps(None) == []
    assert split_steps("第一步。\n\n第二步：计算。\n故选A。") == ["第一步。", "第二步：计算。", "故选A。"]
    long_line = "因为甲乙两地相距一百二十千米，所以汽车需要行驶两个小时才能到达。" * 3 + "对。"
    steps = split_steps(long_line)  # 98 characters: cut into sentences
    assert len(steps) == 3 and steps[-1].endswith("到达。对。")  # the 2-character tail joins the step before


def test_plots_without_a_cjk_font(demo: tuple[Path, list[Path], Path], tmp_path: Path) -> None:
    _, _, out = demo
    nodes = pd.read_parquet(out / "nodes.parquet")
    runs = [{"id": r, "label": r} for r in dict.fromkeys(nodes["run"])]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        notes = write_plots(nodes, runs, tmp_path, font="")
    assert any("no CJK font" in n for n in notes)
    assert not [w for w in caught if "Glyph" in str(w.message)]
    assert (tmp_path / "heatmap.png").stat().st_size > 1000


def test_cli_report(tmp_path: Path) -> None:
    bank = small_bank()
    root = write_bank(tmp_path / "bank", list(bank.values()))
    run = write_run(tmp_path / "run", bank, SMALL_ANSWERS, bank=root)
    result = CliRunner().invoke(app, ["report", str(run), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    # the judgment question's two statements count one by one (CK12's released scorer, the protocol's rule)
    assert "run: 8 scored (judgment per statement), accuracy 62.5%" in result.output
    assert (tmp_path / "out" / "index.html").is_file()


def test_cli_report_prints_the_accuracy_of_its_counts_rounded_once(tmp_path: Path) -> None:
    """1 right of 26 is 3.8 %; summary.json's acc_micro is 0.0385 (4 digits), which printed 3.9 %."""
    from tests._runs import Answer, question

    bank = {f"q{i:02d}": question(f"q{i:02d}", "数学", "数与式", "分数") for i in range(26)}
    root = write_bank(tmp_path / "bank", list(bank.values()))
    answers = {qid: Answer(qid == "q00", output="正确答案是：A" if qid == "q00" else "正确答案是：B") for qid in bank}
    run = write_run(tmp_path / "run", bank, answers, bank=root)
    result = CliRunner().invoke(app, ["report", str(run), "--out", str(tmp_path / "out"), "--no-plots"])
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))["runs"][0]
    assert (summary["correct"], summary["n"]) == (1, 26)
    assert f"run: 26 scored, accuracy {100 / 26:.1f}%" in result.output  # no judgment question: no rule named


def test_cli_report_names_a_run_with_no_records_yet_and_reports_the_others(tmp_path: Path) -> None:
    """A run stopped before its first checkpoint (run.json only): one line for it, no KeyError (#23 item 7)."""
    bank = small_bank()
    root = write_bank(tmp_path / "bank", list(bank.values()))
    done = write_run(tmp_path / "done", bank, SMALL_ANSWERS, bank=root)
    stopped = write_run(tmp_path / "stopped", bank, {}, mode="zero-shot-cot", bank=root)
    (stopped / "records.jsonl").unlink(missing_ok=True)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["report", str(done), str(stopped), "--out", str(out), "--no-plots"])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    about_stopped = [line for line in result.output.splitlines() if "stopped" in line]
    assert len(about_stopped) == 1 and "no answered questions yet" in about_stopped[0], result.output
    assert re.search(r"^done: \d+ scored \(judgment per statement\), accuracy \d", result.output, re.M), result.output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert [run["id"] for run in summary["runs"]] == ["done"]
    assert any("还没有作答" in w for w in summary["warnings_zh"])  # the Chinese page's line for it


def test_cli_report_missing_bank_warns_and_data_overrides(tmp_path: Path) -> None:
    bank = small_bank()
    run = write_run(tmp_path / "run", bank, SMALL_ANSWERS, bank=tmp_path / "gone")
    result = CliRunner().invoke(app, ["report", str(run), "--out", str(tmp_path / "a"), "--no-plots"])
    assert result.exit_code == 0 and "warning:" in result.output and "--data" in result.output
    root = write_bank(tmp_path / "bank", list(bank.values()))
    result = CliRunner().invoke(app, ["report", str(run), "-o", str(tmp_path / "b"), "--data", str(root), "--no-plots"])
    assert result.exit_code == 0 and "warning" not in result.output
    assert not (tmp_path / "b" / "plots").exists()


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("missing", "no such run folder"),
        ("not-a-run", "not a run folder"),
        ("bad-record", "line 1, field"),
        ("bad-scores", "scores.jsonl, line 1, field 'scores.faithfulness'"),
    ],
)
def test_cli_report_bad_input_is_one_line(tmp_path: Path, setup: str, message: str) -> None:
    run = tmp_path / "run"
    if setup != "missing":
        run.mkdir()
    if setup in ("bad-record", "bad-scores"):
        write_run(run, small_bank(), {"q1": SMALL_ANSWERS["q1"]})
    if setup == "bad-record":
        (run / "records.jsonl").write_text('{"question_id": 3}\n', encoding="utf-8")
    if setup == "bad-scores":
        (run / "scores.jsonl").write_text(
            '{"id": "q1", "question_id": "q1", "lang": "zh", "nodes": {}, "scores": {"faithfulness": "high"}}\n',
            encoding="utf-8",
        )
    result = CliRunner().invoke(app, ["report", str(run), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: ") and message in result.output
    assert "Traceback" not in result.output


def test_metric_titles_follow_the_registry_with_their_direction() -> None:
    from reports.payload import metric_entry

    lower = metric_entry("source_contradiction_max")
    assert lower["better"] == "lower" and lower["en"].endswith("↓") and lower["zh"].endswith("↓")
    by_roscoe_key = metric_entry("faithfulness")
    assert by_roscoe_key["en"] == "Faithfulness-Step ↑" and by_roscoe_key["better"] == "higher"
    unknown = metric_entry("my_own_score")
    assert unknown == {"key": "my_own_score", "zh": "my_own_score", "en": "my_own_score", "better": None}
