"""The report in a real headless chromium: opens from disk, fetches nothing, runs no injected code,
drills down from a subject to a question, switches language and exports teacher verdicts.

Screenshots land in the test's tmp folder; with K12EVAL_DOCS_SCREENSHOTS=1 one is copied to
docs/img/report.png for the README.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from reports import write_report
from tests._browser import UI_WAIT_S, chromium, console_errors, copy_if_asked, requested_urls, save_screenshot
from tests._runs import demo_runs

pytestmark = [pytest.mark.browser, pytest.mark.slow]
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    root = tmp_path_factory.mktemp("browser")
    _, runs = demo_runs(root)
    out = root / "report"
    write_report(runs, out, plots=False)
    return out, runs


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Path]]:
    root = tmp_path_factory.mktemp("chromium")
    downloads = root / "downloads"
    downloads.mkdir()
    driver = chromium(root / "profile", downloads)
    try:
        yield driver, downloads
    finally:
        driver.quit()


def wait(driver: Any, condition: Any, timeout: float = UI_WAIT_S) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(condition)


def go(driver: Any, hash_: str) -> None:
    driver.execute_script("location.hash = arguments[0]", hash_)
    wait(driver, lambda d: d.execute_script("return location.hash") == "#" + hash_)


def css(driver: Any, selector: str) -> Any:
    from selenium.webdriver.common.by import By

    return wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, selector))


def show_answer(driver: Any, question: int, run_id: str) -> None:
    """Open a question's page with ``run_id`` as run A."""
    go(driver, f"q/{question}")
    select = css(driver, "select[aria-label='运行']")
    driver.execute_script(
        "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('change'))", select, run_id
    )


def test_report_in_chromium(report: tuple[Path, list[Path]], browser: tuple[Any, Path], tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    out, runs = report
    driver, downloads = browser
    shots = tmp_path / "screenshots"
    shots.mkdir()
    driver.get("about:blank")
    requested_urls(driver), console_errors(driver)  # drain what the browser did on its own before our page
    page = (out / "index.html").resolve().as_uri()
    driver.get(page)
    driver.execute_script("localStorage.clear()")
    driver.refresh()

    # Renders, in Chinese by default, with the hostile outputs inert.
    assert css(driver, "#title").text == "知识点诊断报告"
    heat_rows = driver.find_elements(By.CSS_SELECTOR, "table.heat tbody tr")
    assert [r.find_element(By.TAG_NAME, "th").text for r in heat_rows] == ["数学", "物理", "语文"]
    save_screenshot(driver, shots / "overview.png")

    # Drill down: subject -> level 1 -> level 2 -> question, checking the page's numbers against nodes.csv.
    nodes = pd.read_csv(out / "nodes.csv")
    first_run = runs[0].name
    css(driver, "table.heat tbody tr:first-child th a").click()
    wait(driver, lambda d: d.find_element(By.TAG_NAME, "h2").text == "数学")
    row = nodes[(nodes["run"] == first_run) & (nodes["node"] == "subject:数学") & (nodes["slice"] == "all")].iloc[0]
    here = driver.find_elements(By.CSS_SELECTOR, ".card table.data tbody tr")[0].find_elements(By.TAG_NAME, "td")
    assert here[1].text == str(
        row["records"]
    )  # 题数: the questions answered; a judgment's statements count in the accuracy
    assert here[2].text.startswith(f"{100 * row['acc_micro']:.1f}%")
    accuracy = here[2].find_element(By.CSS_SELECTOR, ".acc").get_attribute("title")
    assert accuracy.startswith(f"{round(row['correct'])}/{row['n']}"), accuracy
    save_screenshot(driver, shots / "subject.png")
    css(driver, "a[href^='#node/l1']").click()
    wait(driver, lambda d: "node/l1" in d.current_url)
    css(driver, "a[href^='#node/l2']").click()
    wait(driver, lambda d: "node/l2" in d.current_url)
    css(driver, "a[href^='#q/']").click()
    stem = css(driver, ".stem")
    assert stem.find_elements(By.CSS_SELECTOR, ".katex .mfrac")  # LaTeX typeset by the bundled KaTeX
    assert "$$" not in stem.text and "\\frac" not in stem.text

    # A question with a hostile model output: shown as text, never run.
    data = driver.execute_script("return JSON.parse(document.getElementById('report-data').textContent)")
    target = _hostile_question(data, first_run)
    go(driver, f"q/{target}")
    panel = css(driver, f".answer[data-run='{first_run}']")
    panel.find_element(By.TAG_NAME, "summary").click()
    raw = panel.find_element(By.CSS_SELECTOR, "pre.raw").text
    assert "<" in raw and ("<script>" in raw or "<img src=x" in raw or "<div onclick" in raw)
    assert driver.execute_script("return window.__pwned") is None
    assert driver.execute_script("return document.images.length") == 0
    assert driver.execute_script("return document.scripts.length") == 3  # the data block, KaTeX and the report's own
    save_screenshot(driver, shots / "hostile.png")

    # Teacher verdicts: mark the first wrong step of a scored solution, export the labels.
    qi, run_id, steps = _wrong_cot_answer(data)
    show_answer(driver, qi, run_id)
    panel = css(driver, f".answer[data-run='{run_id}']")
    panel.find_element(By.CSS_SELECTOR, "li[data-step='1'] button[data-verdict='first']").click()
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, f".answer[data-run='{run_id}'] li.t-wrong"))
    assert len(driver.find_elements(By.CSS_SELECTOR, f".answer[data-run='{run_id}'] li.t-right")) == 1
    flagged = driver.find_elements(By.CSS_SELECTOR, f".answer[data-run='{run_id}'] li.flagged")
    assert flagged, "the detector flags should highlight steps"
    # Beside the flags, what they can and cannot find (in the page's language).
    help_text = css(driver, f".answer[data-run='{run_id}'] p[data-help='findings']").text
    assert "以教师判断为准" in help_text and "docs/" not in help_text  # no repository doc a teacher cannot open
    flagged[0].find_element(By.CSS_SELECTOR, ".text").click()
    assert "f(2)=1/2×4+3=5" in flagged[0].find_element(By.CSS_SELECTOR, ".detail").text  # matched reference step
    # The detectors' flags: kind and message on the step, the first suspect step outlined.
    suspect = css(driver, f".answer[data-run='{run_id}'] li[data-step='1']")
    assert {"suspect", "severe", "finding-arithmetic"} <= set(suspect.get_attribute("class").split())
    findings = suspect.find_element(By.CSS_SELECTOR, "ul.findings").text
    assert "计算错误 2 + 3 = 6 不成立（5 与 6）" in findings  # kind and line both in the page's language (#26 item 8)
    assert "首个可疑步骤" in suspect.text
    assert not driver.find_elements(By.CSS_SELECTOR, f".answer[data-run='{run_id}'] li[data-step='0'] ul.findings")
    save_screenshot(driver, shots / "question.png")
    copy_if_asked(shots / "question.png", REPO / "docs" / "img" / "report.png", "K12EVAL_DOCS_SCREENSHOTS")

    # A suspect solution without a flagged step: its fallback suspect is marked as a guess, not a flag.
    qi_g, run_g, guess = _guessed_suspect(data)
    show_answer(driver, qi_g, run_g)
    guessed = css(driver, f".answer[data-run='{run_g}'] li[data-step='{guess}']")
    assert "suspect" in guessed.get_attribute("class").split() and "可能出错的步骤（推测）" in guessed.text
    assert "首个可疑步骤" not in css(driver, f".answer[data-run='{run_g}']").text

    # A flag message quoting hostile model text is shown as text and runs nothing.
    qi_h, run_h, quoted = _hostile_finding(data)
    show_answer(driver, qi_h, run_h)
    shown = css(driver, f".answer[data-run='{run_h}'] li ul.findings .msg")
    assert shown.text == quoted
    assert driver.execute_script("return window.__pwned") is None
    assert driver.execute_script("return document.images.length") == 0

    css(driver, "a[data-tab='verdicts']").click()
    text = css(driver, "#verdict-jsonl").get_attribute("value")
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert len(lines) == 1
    label = lines[0]
    assert label["step_labels"] == [True, False] + [None] * (steps - 2)
    assert (label["first_error"], label["complete"], label["run"]) == (1, True, run_id)
    assert label["question_id"] == data["questions"]["id"][qi] and len(label["steps"]) == steps
    assert {"id", "source", "model", "mode"} <= label.keys()
    css(driver, "#export-verdicts").click()
    saved = downloads / "k12eval-step-labels.jsonl"
    wait(driver, lambda _: saved.exists() and saved.read_text(encoding="utf-8") == text)

    # Verdicts survive a reload (localStorage); the language switch, and it persists too.
    driver.refresh()
    css(driver, "#lang").click()
    wait(driver, lambda d: d.find_element(By.ID, "title").text == "Knowledge-point audit report")
    assert css(driver, "a[data-tab='overview']").text == "Overview"
    assert "Download JSONL (1)" in css(driver, "#export-verdicts").text
    save_screenshot(driver, shots / "verdicts-en.png")
    driver.refresh()
    assert css(driver, "#title").text == "Knowledge-point audit report"
    css(driver, "#lang").click()
    wait(driver, lambda d: d.find_element(By.ID, "title").text == "知识点诊断报告")

    # Sortable tables: sort the drill-down by accuracy.
    go(driver, "node/all")
    header = css(driver, "h3 + div table.data th:nth-child(3)")
    header.click()
    assert header.get_attribute("aria-sort") in ("ascending", "descending")

    # Nothing fetched but the page itself (and the verdict download's blob), and no console errors.
    urls = requested_urls(driver)
    assert urls and all(u.startswith((page.split("#")[0], "blob:", "data:")) for u in urls), urls
    assert console_errors(driver) == []
    assert len(list(shots.glob("*.png"))) == 5

    # Second line of defence, and proof the monitors see things: HTML forced into the page by
    # a script (which the report never does) is still stopped by the page's CSP, and logged.
    driver.execute_script(
        "document.body.insertAdjacentHTML('beforeend', arguments[0])", '<img src="x" onerror="window.__pwned=1">'
    )
    wait(driver, lambda d: console_errors(d) or requested_urls(d))
    assert driver.execute_script("return window.__pwned") is None


HOSTILE_TRAINING = "<img src=x onerror=\"window.__pwned='training'\">"
SUSPECT_AT = 0.5  # a flag's severity from here on shows as severe without a combiner (report.js)


@pytest.fixture(scope="module")
def combined_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The demo runs, one of them scored with a learned combiner whose training set has a hostile name."""
    root = tmp_path_factory.mktemp("combined")
    _, runs = demo_runs(root)
    run = runs[-1]
    _add_combined(run, root / "combiner.json")
    out = root / "report"
    write_report(runs, out, plots=False)
    return out, run.name


def test_a_combiners_probabilities_replace_the_opaque_severity(
    combined_report: tuple[Path, str], browser: tuple[Any, Path]
) -> None:
    """Each step shows P(first wrong), the combiner's first suspect is marked (the rule's is not), a flag
    is severe by the probability, not its severity, and the help text names the combiner and its data,
    escaped (#15 item 4)."""
    from selenium.webdriver.common.by import By

    out, run_id = combined_report
    driver, _ = browser
    driver.get((out / "index.html").resolve().as_uri())
    driver.execute_script("localStorage.clear()")
    driver.refresh()
    data = driver.execute_script("return JSON.parse(document.getElementById('report-data').textContent)")
    answers = {int(i): a for i, a in data["answers"][run_id].items() if a["combined"]}
    # One where a mild flag (severity below SUSPECT_AT) sits on a step the combiner puts at or above its
    # threshold, one where the rule guessed a suspect and the combiner places its own elsewhere (a graded-wrong
    # answer always gets one, docs/detectors.md): the page must follow the combiner.
    mild = next(i for i, a in answers.items() if any(_mild_but_likely(s, a["combined"]) for s in a["steps"]))
    # The rule's guess (a fallback) the combiner overrules, else any first suspect the two place differently.
    differ = [i for i, a in answers.items() if a["combined"]["first_suspect"] != a["first_suspect"]]
    guessed = next((i for i in differ if answers[i]["suspect_rule"] == "fallback"), differ[0])
    right = next(i for i, a in answers.items() if not a["combined"]["graded_wrong"] and len(a["steps"]) > 1)
    wrong = next(i for i, a in answers.items() if a["combined"]["graded_wrong"] and len(a["steps"]) > 1)
    severe = 0  # findings shown severe because of the probability
    for qi in dict.fromkeys((mild, guessed, right, wrong)):
        answer = answers[qi]
        show_answer(driver, qi, run_id)
        panel = css(driver, f".answer[data-run='{run_id}']")
        threshold, suspect = answer["combined"]["threshold"], answer["combined"]["first_suspect"]
        shares = []
        for k, step in enumerate(answer["steps"]):
            li = panel.find_element(By.CSS_SELECTOR, f"li[data-step='{k}']")
            assert f"P(出错｜前面都对) {step['p']:.2f}" == li.find_element(By.CSS_SELECTOR, ".chip.prob").text
            shares += [float(c.get_attribute("data-share")) for c in li.find_elements(By.CSS_SELECTOR, ".chip.share")]
            assert ("suspect" in li.get_attribute("class").split()) == (k == suspect)
            assert ("首个可疑步骤（学习组合器）" in li.text) == (k == suspect)
            assert "可疑度" not in li.text and "推测" not in li.text  # the rule's numbers and guess give way
            for finding in li.find_elements(By.CSS_SELECTOR, "ul.findings li"):
                classes = finding.get_attribute("class").split()
                # A kind meta-eval --flag-rates found not pointing at errors stays grey context (#36 item 2).
                assert ("bad" in classes) == (step["p"] >= threshold and "ctx" not in classes), classes
                severe += "bad" in classes
        help_text = panel.find_element(By.CSS_SELECTOR, "p[data-help='combiner']").text
        assert HOSTILE_TRAINING in help_text and "combiner.json" in help_text
        # What is outlined and what the numbers say agree (#23 item 3): the hazard decoding, in words.
        assert "前面都对" in help_text and "不是“这一步就是首错”的概率" in help_text
        reached = [k for k, s in enumerate(answer["steps"]) if s["p"] >= threshold]
        likeliest = answer["combined"]["locate"] == "likeliest"
        if answer["combined"]["graded_wrong"] or (likeliest and reached):
            assert len(shares) == len(answer["steps"]) and sum(shares) == pytest.approx(1, abs=1e-6)
            assert shares.index(max(shares)) == suspect  # the largest "chance it is the first error"
            assert "百分比最大的一步" in help_text
        else:
            assert shares == []
            assert suspect == (reached[0] if reached else None)
        if not answer["combined"]["graded_wrong"]:
            # Graded right: called wrong when a step reaches the threshold; which step then, as the combiner locates.
            rule = f"有步骤达到 {threshold:.2f} 时判为推理有错" if likeliest else f"第一个达到 {threshold:.2f} 的步骤"
            assert rule in help_text
        assert driver.execute_script("return window.__pwned") is None
        assert driver.execute_script("return document.images.length") == 0

    assert severe  # the check above saw the probability make a finding severe, not only grey ones

    # A run scored without a combiner looks as before: the rule's suspect, no probabilities, no combiner help.
    plain = next(r["id"] for r in data["runs"] if r["id"] != run_id and r["mode"] == "few-shot-cot")
    qp = next(int(i) for i, a in data["answers"][plain].items() if a["first_suspect"] == 1 and a["steps"])
    show_answer(driver, qp, plain)
    panel = css(driver, f".answer[data-run='{plain}']")
    assert "首个可疑步骤" in panel.find_element(By.CSS_SELECTOR, "li[data-step='1']").text
    assert not panel.find_elements(By.CSS_SELECTOR, ".chip.prob, p[data-help='combiner']")
    show_answer(driver, mild, run_id)
    css(driver, "#lang").click()
    wait(driver, lambda d: d.find_element(By.ID, "title").text == "Knowledge-point audit report")
    k, step = next(
        (k, s) for k, s in enumerate(answers[mild]["steps"]) if _mild_but_likely(s, answers[mild]["combined"])
    )
    shown = css(driver, f".answer[data-run='{run_id}'] li[data-step='{k}'] .chip.prob").text
    assert shown == f"P(wrong | earlier right) {step['p']:.2f}"
    english_help = css(driver, f".answer[data-run='{run_id}'] p[data-help='combiner']").text
    assert "it is not the chance that this step is the first error" in english_help
    assert "fitted on: " + HOSTILE_TRAINING in css(driver, f".answer[data-run='{run_id}'] p[data-help='combiner']").text
    css(driver, "#lang").click()
    assert console_errors(driver) == []


def _mild_but_likely(step: dict[str, Any], combined: dict[str, Any]) -> bool:
    """Flagged only below SUSPECT_AT severity, yet at or above the combiner's threshold."""
    findings = step.get("findings", [])
    return bool(findings) and all(f["severity"] < SUSPECT_AT for f in findings) and step["p"] >= combined["threshold"]


def _add_combined(run: Path, combiner_file: Path) -> None:
    """What ``score --combiner FILE`` adds: each record's verdict (the real combiner on its real assessment)
    and the combiner's name in the score header.

    The file is the shipped combiner's weights, said to be fitted on a set with a hostile name, with its
    threshold just under the likeliest step that carries only mild flags, so that the page has a step whose
    display the probability and the severity would decide differently, whatever the weights are refitted to.
    """
    from reasoning_metrics.combine import load_combiner, parse_combiner
    from reasoning_metrics.combine.apply import combine_one, fingerprint
    from reasoning_metrics.score_store import ScoreConfig, ScoreRecord, header_path
    from reasoning_metrics.verify.rules.arithmetic import check_steps
    from reasoning_metrics.verify.scored import roscoe_detail
    from runners.store import RunStore

    graded = {r.question_id: r.correct for r in RunStore(run).records()}
    records = [ScoreRecord.model_validate_json(line) for line in (run / "scores.jsonl").read_text("utf-8").splitlines()]

    def verdicts(combiner: Any) -> list[Any]:
        out = []
        for record in records:
            assert record.assessment is not None
            steps = [step.text for step in record.steps]
            out.append(
                combine_one(
                    combiner,
                    steps,
                    record.assessment,
                    roscoe_detail(record),
                    graded[record.question_id],
                    checks=check_steps(steps),
                )
            )
        return out

    default = load_combiner("default")
    mild = [
        p
        for record, verdict in zip(records, verdicts(default), strict=True)
        if verdict is not None and record.assessment is not None
        for p, step in zip(verdict.step_probabilities, record.assessment.steps, strict=True)
        if step.flags and all(f.severity < SUSPECT_AT for f in step.flags)
    ]
    raw = json.loads(default.to_json())
    raw["threshold"] = round(max(mild) * 0.95, 6)
    for own in raw.get("languages", {}).values():  # a chain's language's combiner decides its steps (the sample: zh)
        own["threshold"] = raw["threshold"]
    raw["training"] = [{**raw["training"][0], "name": HOSTILE_TRAINING}, *raw["training"][1:]]
    combiner_file.write_text(json.dumps(raw, ensure_ascii=False), encoding="utf-8")
    combiner = parse_combiner(combiner_file.read_text("utf-8"), str(combiner_file))
    lines = [
        r.model_copy(update={"combined": v}).model_dump_json() for r, v in zip(records, verdicts(combiner), strict=True)
    ]
    (run / "scores.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    config = ScoreConfig(metrics=[], combiner=fingerprint(str(combiner_file), combiner))
    header_path(run / "scores.jsonl").write_text(config.model_dump_json(), encoding="utf-8")


def _hostile_question(data: dict[str, Any], run_id: str) -> int:
    for index, answer in data["answers"][run_id].items():
        if answer["output"] and ("<script>" in answer["output"] or "onerror" in answer["output"]):
            return int(index)
    raise AssertionError("the demo runs have hostile outputs")


def _guessed_suspect(data: dict[str, Any]) -> tuple[int, str, int]:
    for run_id, answers in data["answers"].items():
        for index, answer in answers.items():
            if answer.get("suspect_rule") == "fallback":
                return int(index), run_id, answer["first_suspect"]
    raise AssertionError("the demo runs have a solution with a fallback suspect (no final answer)")


def _hostile_finding(data: dict[str, Any]) -> tuple[int, str, str]:
    for run_id, answers in data["answers"].items():
        for index, answer in answers.items():
            for step in answer["steps"]:
                for finding in step.get("findings", []):
                    if "<" in finding["message"]:
                        return int(index), run_id, finding["zh"]  # the page opens in Chinese
    raise AssertionError("the demo runs have flag messages quoting hostile outputs")


def _wrong_cot_answer(data: dict[str, Any]) -> tuple[int, str, int]:
    for run in data["runs"]:
        if run["mode"] != "few-shot-cot":
            continue
        for index, answer in data["answers"][run["id"]].items():
            if answer["correct"] is False and len(answer["steps"]) >= 3 and answer["first_suspect"] == 1:
                return int(index), run["id"], len(answer["steps"])
    raise AssertionError("the demo runs have wrong CoT answers with scored steps")


def test_table_captions_show_under_their_tables(report: tuple[Path, list[Path]], browser: tuple[Any, Path]) -> None:
    # Table 1 says how judgment is scored (#16 item 4; per statement, the protocol's rule: #26 item 5),
    # Table 2 over which questions (#16 item 3).
    driver, _ = browser
    driver.get((report[0] / "index.html").as_uri())
    go(driver, "tables")
    caption = css(driver, "#table-ck12_table1_type_by_mode .caption").text
    assert caption.startswith("判断题按判断计分")  # the page opens in Chinese
    assert css(driver, "#table-ck12_table2_cot_step_scores .caption").text == "题目范围：全部题目。"
    driver.find_element("id", "lang").click()
    assert css(driver, "#table-ck12_table1_type_by_mode .caption").text.startswith("Judgment scored per statement")
    assert css(driver, "#table-ck12_table2_cot_step_scores .caption").text == "Questions: all."
    driver.find_element("id", "lang").click()
