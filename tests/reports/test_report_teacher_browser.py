"""The teacher's page as a teacher keeps, shares and reads it, in a real headless chromium: a link to a question
still opens that question after the report is rebuilt with another run (and a cut-off address still draws a page),
a question at two points is walked in the list the teacher came from, marks survive a rebuild, every label of the
Chinese page is Chinese and its rates say what they count, a given title heads the page, and a narrow window or an
unbroken 3,000-character line never makes a view wider than the window."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from reports import write_report
from tests._browser import UI_WAIT_S, console_errors
from tests._runs import Answer, question, replayed_report, write_bank, write_run
from tests.importer_helpers import FIXTURES
from tests.reports.test_report import page_data

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _index(page: Path) -> dict[str, int]:
    html = page.read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="report-data">(.*?)</script>', html, re.S).group(1))  # type: ignore[union-attr]
    return {qid: i for i, qid in enumerate(data["questions"]["id"])}


@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """One report of run A (point 甲 only), and the same rebuilt with run B, which answered point 乙 (tree order:
    乙 before 甲)."""
    root = tmp_path_factory.mktemp("rebuilt")
    qs = [question(f"{p}{i}", "数学", "代数", name) for p, name in (("a", "乙"), ("b", "甲")) for i in range(3)]
    by_id = {q.id: q for q in qs}
    bank = write_bank(root / "bank", qs)
    run_a = write_run(root / "a", by_id, {f"b{i}": Answer(i != 1) for i in range(3)}, model="模型甲", bank=bank)
    run_b = write_run(root / "b", by_id, {f"a{i}": Answer(True) for i in range(3)}, model="模型乙", bank=bank)
    write_report([run_a], root / "first", plots=False)
    write_report([run_a, run_b], root / "second", plots=False)
    return root / "first" / "index.html", root / "second" / "index.html"


def _wait(driver: Any, selector: str) -> Any:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, UI_WAIT_S).until(lambda d: d.find_element(By.CSS_SELECTOR, selector))


def _shown_id(driver: Any) -> str:
    chip = _wait(driver, ".card .chip.muted")
    return chip.text.split()[-1]


def test_a_question_link_opens_the_same_question_after_a_rebuild(driver: Any, rebuilt: tuple[Path, Path]) -> None:
    first, second = rebuilt
    # The rebuild moves b1: run B's questions (point 乙) come first in the second page.
    assert _index(first)["b1"] != _index(second)["b1"]
    driver.get(first.as_uri() + "#node/" + "l2:数学/代数/甲")
    link = _wait(driver, "table.data a[href^='#q/']")
    links = driver.execute_script(
        "return [...document.querySelectorAll(\"table.data a[href^='#q/']\")].map((a) => a.getAttribute('href'))"
    )
    driver.get(first.as_uri() + links[1])
    assert _shown_id(driver) == "b1", link
    # The address the teacher saved, opened in the rebuilt report: still b1, and the pager still walks 甲.
    driver.get(second.as_uri() + links[1])
    driver.refresh()
    assert _shown_id(driver) == "b1"
    pager = driver.execute_script("return document.querySelector('.pager').textContent")
    assert "2 / 3" in pager
    # The list's '#' is the place in the point, as the pager counts: the same in both builds.
    for page in (first, second):
        driver.get(page.as_uri() + "#node/" + "l2:数学/代数/甲")
        driver.refresh()
        _wait(driver, "table.data a[href^='#q/']")
        numbers = driver.execute_script(
            "return [...[...document.querySelectorAll('table.data')].pop().tBodies[0].rows].map((tr) => tr.cells[0].textContent)"
        )
        assert numbers == ["1", "2", "3"], page


def test_a_cut_off_address_draws_a_page(driver: Any, rebuilt: tuple[Path, Path]) -> None:
    first, _ = rebuilt
    driver.get(first.as_uri())
    console_errors(driver)
    driver.get(first.as_uri() + "#q/%E4%B8")
    driver.refresh()
    _wait(driver, "#tabs a")
    assert driver.execute_script("return document.getElementById('view').childElementCount") == 1
    assert console_errors(driver) == []


# What a Chinese page may still write in Latin letters: names (the tool, the language switch, the release,
# the NLI model's kind with its Chinese gloss beside it, AUROC explained beside its figure) and the command an
# evaluator runs on the teacher's marks.
NAMES = re.compile(r"k12eval meta-eval --format chains|\b(?:k12eval|English|K12|CK12|AUROC|NLI)\b")
UI_STRINGS = r"""
const out = [];
const skip = 'script, style, noscript, .stem, td.stemcol, .options, .steps > li > .text, pre.raw, .extracted, dd.gold, .goldline, .katex, .findings .msg';
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const node = walker.currentNode, parent = node.parentElement;
  if (parent && !parent.closest(skip) && node.textContent.trim()) out.push(node.textContent.trim());
}
for (const e of document.querySelectorAll('[title], [placeholder], [aria-label]'))
  for (const a of ['title', 'placeholder', 'aria-label']) if (e.getAttribute(a)) out.push(e.getAttribute(a));
return out;
"""


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[str]]:
    """The demo's report (3 subjects, 4 runs with step scores and hostile outputs): its URL and the teacher's
    walk through it (overview, a subject, a level-1 and a level-2 point, a question and its steps, the
    comparison, the marks, the papers' tables)."""
    from tests._runs import demo_runs

    root = tmp_path_factory.mktemp("demo")
    _, runs = demo_runs(root / "runs")
    write_report(runs, root / "report", plots=False)
    page = root / "report" / "index.html"
    first = min(_index(page).items(), key=lambda item: item[1])[0]
    addresses = ["overview", "node/all", "node/subject:数学", "node/l1:数学/函数", "node/l2:数学/函数/一次函数"]
    return page.as_uri(), [*addresses, f"q/{first}", "compare", "verdicts", "tables"]


def test_every_label_of_the_chinese_page_is_chinese(driver: Any, demo: tuple[str, list[str]]) -> None:
    """Every label, caption, tooltip and placeholder of the walk is Chinese; model output, the bank's text and
    the models' names are the data, not labels (the papers' tables name the tools they reproduce)."""
    url, walk = demo
    driver.get(url)
    driver.execute_script("localStorage.setItem('k12eval.lang', 'zh')")
    english: dict[str, set[str]] = {}
    for address in walk[:-1]:
        driver.get(f"{url}#{address}")
        driver.refresh()
        _wait(driver, "#view > *")
        for text in driver.execute_script(UI_STRINGS):
            left = NAMES.sub("", re.sub(r"qwen-tiny|glm-tiny|[\w-]+-\d+", "", text))
            if re.search(r"[A-Za-z]{2,}", left):
                english.setdefault(address, set()).add(text[:120])
    assert english == {}
    footer = driver.execute_script("return document.getElementById('footer').textContent")
    assert "生成时间" in footer and not re.search(r"\dT\d", footer), footer  # a date as a teacher reads one


def test_a_narrow_window_shows_every_view_without_sideways_scrolling(driver: Any, demo: tuple[str, list[str]]) -> None:
    """At a phone's width (375 px) no view is wider than the window (a wide table scrolls in its own frame) and
    the bar of views takes a line or two at the top, not the screen: sticky, its tabs stood one character a
    line and covered 470 of 900 px; a grid's card and a run's list were as wide as a run's long name."""
    url, walk = demo
    driver.set_window_size(375, 900)
    try:
        for address in walk:
            driver.get(f"{url}#{address}")
            driver.refresh()
            _wait(driver, "#view > *")
            wide, inner, bar = driver.execute_script(
                "return [document.documentElement.scrollWidth, document.documentElement.clientWidth,"
                " document.querySelector('.topbar').getBoundingClientRect().height]"
            )
            assert wide <= inner, address
            assert bar < 160, address
            driver.execute_script("window.scrollTo(0, 2000)")
            top = driver.execute_script("return document.querySelector('.topbar').getBoundingClientRect().bottom")
            assert top <= 0 or driver.execute_script("return document.documentElement.scrollHeight") <= 900, address
    finally:
        driver.set_window_size(1400, 1000)


LONG = "x=" + "1" * 3000


def test_an_unbroken_line_wraps_inside_the_page(driver: Any, tmp_path: Path) -> None:
    """A model's step, its extracted answer, a stem and an option, each one line of 3,000 characters with no
    space (a runaway output, a URL): each wraps inside the page, which stays as wide as the window."""
    q = question("long", "数学", "代数", "方程", stem="解方程 " + LONG, options=[LONG, "二", "三", "四"])
    bank = write_bank(tmp_path / "bank", [q])
    output = f"第一步：{LONG}\n第二步：{'—' * 2000}\n答案：{LONG}"
    run = write_run(tmp_path / "run", {"long": q}, {"long": Answer(False, output=output, extracted=[LONG])}, bank=bank)
    write_report([run], tmp_path / "report", plots=False)
    url = (tmp_path / "report" / "index.html").as_uri()
    driver.get(url + "#q/long")
    driver.refresh()
    _wait(driver, ".answer .steps")
    driver.execute_script("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    wide, inner = driver.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert wide <= inner


XIEZHI = [  # written here in the release's layout: the second question carries labels of two 门类
    {
        "question": "光在真空中沿_____传播",
        "labels": ["物理学", "理学"],
        "answer": "直线",
        "options": "曲线\n直线\n螺旋线\n折线",
    },
    {
        "question": "材料抵抗变形的能力称为_____",
        "labels": ["工学", "理学"],
        "answer": "刚度",
        "options": "强度\n刚度\n硬度\n韧性",
    },
    {
        "question": "桥梁设计首先考虑的是_____",
        "labels": ["工学"],
        "answer": "安全",
        "options": "美观\n安全\n造价\n工期",
    },
    {
        "question": "科学研究的基本方法是_____",
        "labels": ["理学"],
        "answer": "实验",
        "options": "猜测\n实验\n抄写\n背诵",
    },
]


def test_a_question_at_two_points_is_walked_in_the_list_the_teacher_came_from(driver: Any, tmp_path: Path) -> None:
    """A Xiezhi question labelled 工学 and 理学 is listed under both points. Opened from 理学's list, its crumbs
    are 理学's and its pager walks 理学's list (the page showed 工学's crumbs and walked 工学's list)."""
    from typer.testing import CliRunner

    from k12eval.cli import app
    from kg.importers import load_questions

    shutil.copytree(FIXTURES / "xiezhi" / "discipline_taxonomy", tmp_path / "bank" / "discipline_taxonomy")
    bank = tmp_path / "bank" / "xiezhi_spec_chn.jsonl"
    bank.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in XIEZHI), encoding="utf-8")
    ids = [q.id for q in load_questions(bank).questions]
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"question_id": x, "output": "答案是 B"}) + "\n" for x in ids), "utf-8")
    run = ["run", str(bank), "-m", "m", "-b", "replay", "-B", f"path={answers}", "--variant", "original"]
    assert CliRunner().invoke(app, [*run, "-o", str(tmp_path / "run")]).exit_code == 0
    assert CliRunner().invoke(app, ["report", str(tmp_path / "run"), "-o", str(tmp_path / "report")]).exit_code == 0
    url = (tmp_path / "report" / "index.html").as_uri()
    driver.get(url + "#node/" + "l2:理学/理学/理学")
    driver.refresh()
    _wait(driver, "table.data a[href^='#q/']")
    rows = driver.execute_script(
        "return [...document.querySelectorAll(\"table.data a[href^='#q/']\")].map((a) => [a.getAttribute('href'), a.textContent])"
    )
    hrefs = [href for href, _ in rows]
    (two,) = [href for href, stem in rows if stem.startswith("材料抵抗变形")]
    driver.get(url + two)
    driver.refresh()
    assert _shown_id(driver) == ids[1]
    crumbs = driver.execute_script("return document.querySelector('.crumbs').textContent")
    assert "理学" in crumbs and "工学" not in crumbs
    pager = driver.execute_script("return document.querySelector('.pager').textContent")
    assert f"{hrefs.index(two) + 1} / 2" in pager
    # The neighbour the pager offers is 理学's other question, and it keeps the point.
    step = driver.execute_script("return [...document.querySelectorAll('.pager a')].map((a) => a.getAttribute('href'))")
    driver.get(url + step[0])
    driver.refresh()
    assert _shown_id(driver) == ids[3]


def test_the_title_a_teacher_gives_heads_the_page(driver: Any, rebuilt: tuple[Path, Path], tmp_path: Path) -> None:
    """``k12eval report --title 初二数学期中诊断`` names the page in its bar and its tab (the page replaced it with
    its own name as soon as it drew); without a title, the page's own name in the reader's language."""
    first, _ = rebuilt
    run = first.parent.parent / "a"
    write_report([run], tmp_path / "titled", plots=False, title="初二数学期中诊断 <第1次>")
    for page, name in ((tmp_path / "titled" / "index.html", "初二数学期中诊断 <第1次>"), (first, "知识点诊断报告")):
        driver.get(page.as_uri())
        driver.execute_script("localStorage.setItem('k12eval.lang', 'zh')")
        driver.refresh()
        _wait(driver, "#view > *")
        assert driver.execute_script("return document.getElementById('title').textContent") == name
        assert driver.title == name + " · k12eval"


def test_the_rates_say_what_they_count_in_a_teachers_words(driver: Any, demo: tuple[str, list[str]]) -> None:
    """Micro-average, macro-average and the unparsed rate are statisticians' words: each column's heading
    says on hover what it counts, in Chinese."""
    url, _ = demo
    driver.get(url)
    driver.execute_script("localStorage.setItem('k12eval.lang', 'zh')")
    driver.get(url + "#node/subject:数学")
    driver.refresh()
    _wait(driver, "table.data th")
    heads = driver.execute_script(
        "return [...document.querySelectorAll('table.data th')].map((th) => [th.textContent, th.title])"
    )
    helps = {text: title for text, title in heads if text in ("正确率（微平均）", "宏平均", "未解析率")}
    assert set(helps) == {"正确率（微平均）", "宏平均", "未解析率"}
    assert all(re.search(r"[\u4e00-\u9fff]{8}", title) for title in helps.values()), helps


def test_marks_survive_a_rebuild_that_adds_a_run(driver: Any, tmp_path: Path) -> None:
    """A teacher marks a step, then the report is rebuilt in its folder with a second model's run: the mark is
    still on the page (the page keyed marks by its runs too, so they vanished from it)."""
    qs = [question("q1", "数学", "代数", "方程")]
    by_id = {q.id: q for q in qs}
    bank = write_bank(tmp_path / "bank", qs)
    steps = "第一步：2+3=6\n第二步：所以选 B"
    run_a = write_run(tmp_path / "a", by_id, {"q1": Answer(False, output=steps)}, model="模型甲", bank=bank)
    run_b = write_run(tmp_path / "b", by_id, {"q1": Answer(True)}, model="模型乙", bank=bank)
    out = tmp_path / "report"
    write_report([run_a], out, plots=False)
    url = (out / "index.html").as_uri() + "#q/0"  # an index: this page has one question
    driver.get(url)
    driver.refresh()
    _wait(driver, ".answer [data-step='0'] [data-verdict='right']").click()
    _wait(driver, ".answer [data-step='0'] .vbtn.right.on")
    write_report([run_a, run_b], out, plots=False)
    driver.get(url)
    driver.refresh()
    panel = _wait(driver, ".answer[data-run='a']")
    assert panel.find_elements("css selector", "[data-step='0'] .vbtn.right.on")
    driver.get(url.replace("#q/0", "#verdicts"))
    driver.refresh()
    assert "(1)" in _wait(driver, "#export-verdicts").text


def test_cmmlu_categories_are_named_in_chinese(driver: Any, tmp_path: Path) -> None:
    """A CMMLU run's categories (STEM, Humanities, Social Science, Other, China specific) head the overview's
    table and the CMMLU table's columns in Chinese (they showed in English)."""
    replayed_report(Path(__file__).parents[1] / "fixtures" / "cmmlu_slice", tmp_path)
    url = (tmp_path / "report" / "index.html").as_uri()
    driver.get(url)
    driver.execute_script("localStorage.setItem('k12eval.lang', 'zh')")
    english: dict[str, list[str]] = {}
    for address, selector in (("overview", "#view"), ("tables", "#table-cmmlu_categories")):
        driver.get(f"{url}#{address}")
        driver.refresh()
        _wait(driver, selector)
        heads = driver.execute_script(
            f"return [...document.querySelectorAll('{selector} th')].map((th) => th.textContent)"
        )
        english[address] = [h for h in heads if re.search(r"[A-Za-z]{2,}", NAMES.sub("", h.replace("STEM", "")))]
    assert english == {"overview": [], "tables": []}
    assert "人文学科" in driver.execute_script("return document.getElementById('table-cmmlu_categories').textContent")
    driver.get(f"{url}#overview")
    driver.refresh()
    _wait(driver, "#view h3")
    headings = driver.execute_script("return [...document.querySelectorAll('#view h3')].map((h) => h.textContent)")
    assert "各类别正确率" in headings and "文科与理科" not in headings  # CMMLU's categories are not arts / science


def _fnv(text: str) -> str:
    """The page's ``hashText``: FNV-1a over the text's UTF-16 code units, in hex."""
    h = 0x811C9DC5
    units = text.encode("utf-16-le")
    for k in range(0, len(units), 2):
        h = ((h ^ int.from_bytes(units[k : k + 2], "little")) * 0x01000193) & 0xFFFFFFFF
    return f"{h:x}"


def test_marks_saved_by_the_released_page_show_after_a_rebuild(driver: Any, tmp_path: Path) -> None:
    """A teacher marked steps on the released page (ac11d53), which stored them under a name made of the folder
    and the runs, each keyed by model, mode, variant, question and the steps' hash. Rebuilt with today's code, the
    mark shows on the answer it was given to and on no other (they were all gone); a saved mark whose question is
    worded otherwise here (another bank's) shows nowhere and stays where it was."""
    from reports.payload import legacy_report_identity
    from reports.runs import load_runs

    qs = [question("q1", "数学", "代数", "方程", stem="2+3=?")]
    by_id = {q.id: q for q in qs}
    bank = write_bank(tmp_path / "bank", qs)
    run_a = write_run(
        tmp_path / "a",
        by_id,
        {"q1": Answer(False, output="第一步：2+3=6\n第二步：所以选 B")},
        model="模型甲",
        bank=bank,
    )
    run_b = write_run(
        tmp_path / "b", by_id, {"q1": Answer(True, output="第一步：2+3=5\n第二步：所以选 A")}, model="模型乙", bank=bank
    )
    out = tmp_path / "report"
    write_report([run_a, run_b], out, plots=False)
    # The released page's storage name (its report_identity(runs, out): tests/reports/test_report_identity.py).
    runs, _ = load_runs([run_a, run_b])
    legacy = "k12eval.verdicts.v2." + legacy_report_identity(runs, out)
    # Its entries, as its setLabels wrote them.
    data = page_data((out / "index.html").read_text(encoding="utf-8"))
    qi = data["questions"]["id"].index("q1")
    problem = data["detail"][str(qi)]["stem"]["t"]
    saved = {}
    # Run a's answer as it is here; run b's answer, its question worded otherwise (another bank's q1).
    for run_id, wording, labels in (("a", problem, [True, False]), ("b", "乙卷：2+3=?", [False, False])):
        run = next(r for r in data["runs"] if r["id"] == run_id)
        steps = [s["t"] for s in data["answers"][run_id][str(qi)]["steps"]]
        assert len(steps) == 2
        saved["|".join([run["model"], run["mode"], run["variant"], "q1", _fnv("\n".join(steps))])] = {
            "run": run_id, "model": run["model"], "mode": run["mode"], "variant": run["variant"],
            "question_id": "q1", "problem": wording, "steps": steps, "labels": labels, "correct": False,
            "at": "2026-11-29T05:00:00.000Z",
        }  # fmt: skip
    url = (out / "index.html").as_uri() + f"#q/{qi}"
    driver.get(url)
    driver.execute_script(
        "localStorage.clear(); localStorage.setItem(arguments[0], arguments[1])", legacy, json.dumps(saved)
    )
    driver.refresh()
    mine = _wait(driver, ".answer[data-run='a']")
    assert mine.find_elements("css selector", "[data-step='0'] .vbtn.right.on")
    assert mine.find_elements("css selector", "[data-step='1'] .vbtn.wrong.on")
    assert not driver.find_elements("css selector", ".answer[data-run='b'] .vbtn.on")
    assert not driver.find_elements("css selector", ".answer [data-step='0'] .vbtn.wrong.on")
    # The moved mark left the old storage; the one for another wording stays there, and the mark stays after a reload.
    left = json.loads(driver.execute_script("return localStorage.getItem(arguments[0])", legacy))
    assert [e["problem"] for e in left.values()] == ["乙卷：2+3=?"]
    driver.refresh()
    assert _wait(driver, ".answer[data-run='a']").find_elements("css selector", "[data-step='0'] .vbtn.right.on")
