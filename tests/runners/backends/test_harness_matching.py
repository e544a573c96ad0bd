"""Replay matching that cannot misattribute (#27 item 1): the harness's ids and texts, or a named failure.

The files are written here in the layouts lm-eval and OpenCompass write (the real ones are in
tests/conformance/); the banks are small CK12-format banks of our own Chinese questions.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from kg.records import Question
from runners.answering import question_texts
from runners.backends.base import GenerationRequest, LoglikelihoodRequest
from runners.backends.replay import ReplayBackend
from runners.store import RunStore
from tests._runs import question, write_bank
from tests.importer_helpers import write_jsonl, write_text

DATE = "2024-05-01T10-00-00.123456"
LABEL = "원인"  # kobest_copa's doc.question: "cause", in every prompt of the task


def _bank_questions() -> list[Question]:
    """Eight questions whose stems all hold the generic label, two of them the COPA premises below."""
    stems = [f"第{i}题（{LABEL}）：小明为什么迟到了？他的闹钟第{i}次没有响。" for i in range(6)]
    stems += [f"（{LABEL}）男人的杯子碎了。", f"（{LABEL}）屋里的灯突然全灭了。"]
    return [question(f"q{i}", "语文", "阅读", "因果", stem=s, options=["甲", "乙"]) for i, s in enumerate(stems)]


def _copa_line(doc_id: int, premise: str, answer: str) -> dict[str, Any]:
    doc = {"premise": premise, "question": LABEL, "alternative_1": "甲", "alternative_2": "乙", "label": 0}
    prompt = f"{premise} 왜냐하면"
    return {
        "doc_id": doc_id,
        "doc": doc,
        "arguments": {"gen_args_0": {"arg_0": prompt, "arg_1": {"until": ["\n"], "max_gen_toks": 32}}},
        "resps": [[answer]],
        "filtered_resps": [answer],
    }


def _requests(questions: list[Question]) -> list[GenerationRequest]:
    return [GenerationRequest(q.id, f"题目：{q.stem}\nA.甲\nB.乙\n答案：", texts=question_texts(q)) for q in questions]


def test_a_generic_label_never_matches_and_the_premise_matches_its_own_question(tmp_path: Path) -> None:
    questions = _bank_questions()
    lines = [_copa_line(0, "男人的杯子碎了。", "答案是 A"), _copa_line(1, "屋里的灯突然全灭了。", "答案是 B")]
    path = write_jsonl(tmp_path / f"samples_kobest_copa_{DATE}.jsonl", lines)
    results = ReplayBackend(str(path)).generate(_requests(questions))
    answered = {r.id: r.texts for r in results if r.error is None}
    assert answered == {"q6": ["答案是 A"], "q7": ["答案是 B"]}  # 0 misattributed
    assert all(r.error is not None and r.error.startswith("no recorded output") for r in results[:6])
    assert results[6].harness is not None and results[6].harness["matched_by"] == "doc.premise"


@pytest.mark.parametrize(("field", "task"), [("problem", "hendrycks_math_algebra"), ("sentence", "winogrande")])
def test_the_common_question_fields_are_read_and_named(tmp_path: Path, field: str, task: str) -> None:
    questions = [
        question(f"m{i}", "数学", "代数", "方程", "fill_in_blank", stem=f"解方程 {i}x + 3 = 11，x = ____")
        for i in (1, 2)
    ]
    lines = [
        {"doc_id": 0, "doc": {field: questions[1].stem, "answer": "4"}, "resps": [["x = 4"]]},
        {"doc_id": 1, "doc": {field: questions[0].stem, "answer": "8"}, "resps": [["x = 8"]]},
    ]
    path = write_jsonl(tmp_path / f"samples_{task}_{DATE}.jsonl", lines)
    requests = [GenerationRequest(q.id, f"{q.stem}\n答案：", texts=question_texts(q)) for q in questions]
    results = ReplayBackend(str(path)).generate(requests)
    assert [r.texts for r in results] == [["x = 8"], ["x = 4"]]
    assert all(r.harness is not None and r.harness["matched_by"] == f"doc.{field}" for r in results)


def test_opencompass_predictions_of_another_dataset_match_by_origin_prompt(tmp_path: Path) -> None:
    questions = [
        question(f"c{i}", "语文", "阅读", "推断", stem=s)
        for i, s in enumerate(["天空为什么是蓝色的？请说明理由。", "海水为什么是咸的？请说明理由。"])
    ]
    predictions = {
        str(i): {
            "origin_prompt": [
                {"role": "HUMAN", "prompt": f"阅读下面的问题并作答。\n{q.stem}\nA. 一\nB. 二\nC. 三\nD. 四"}
            ],
            "prediction": f"B{i}",
            "gold": "A",
        }
        for i, q in enumerate(reversed(questions))
    }
    path = write_text(
        tmp_path / "predictions" / "m" / "COREV2_winograd.json", json.dumps(predictions, ensure_ascii=False)
    )
    results = ReplayBackend(str(path)).generate(_plain(questions))
    assert [r.texts for r in results] == [["B1"], ["B0"]]
    assert results[0].harness is not None and results[0].harness["matched_by"] == "prompt"
    assert "天空为什么是蓝色的" in results[0].harness["prompt"]


def _plain(questions: list[Question]) -> list[GenerationRequest]:
    return [GenerationRequest(q.id, f"题目：{q.stem}\n答案：", texts=question_texts(q)) for q in questions]


def test_two_records_with_the_same_text_are_ambiguous_not_guessed(tmp_path: Path) -> None:
    (q,) = [question("d0", "数学", "几何", "三角形", stem="三角形的内角和是多少度？请写出过程。")]
    lines = [{"doc_id": i, "doc": {"question": q.stem}, "resps": [[text]]} for i, text in enumerate(["180", "360"])]
    path = write_jsonl(tmp_path / f"samples_geometry_{DATE}.jsonl", lines)
    (result,) = ReplayBackend(str(path)).generate(_plain([q]))
    assert result.texts == [] and result.error is not None and result.error.startswith("ambiguous")
    assert "line 1" in result.error and "line 2" in result.error


def test_a_record_two_questions_fit_is_given_to_one_only(tmp_path: Path) -> None:
    shared = "一个数加上五等于十二，这个数是多少？"
    questions = [
        question(f"s{i}", "数学", "代数", "方程", stem=shared + extra) for i, extra in enumerate(["", "（用方程解）"])
    ]
    path = write_jsonl(
        tmp_path / f"samples_arith_{DATE}.jsonl", [{"doc_id": 0, "doc": {"question": shared}, "resps": [["7"]]}]
    )
    first, second = ReplayBackend(str(path)).generate(_plain(questions))
    assert first.texts == ["7"]
    assert second.error is not None and second.error.startswith("ambiguous") and "'s0'" in second.error


def test_records_without_question_text_are_their_own_failure(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / f"samples_copa_{DATE}.jsonl", [{"doc_id": 0, "doc": {"label": 1}, "resps": [["A"]]}])
    (result,) = ReplayBackend(str(path)).generate(_plain(_bank_questions()[:1]))
    assert result.error is not None and result.error.startswith("no question text"), result.error


def test_a_replayed_record_keeps_the_harness_prompt_and_settings_and_the_page_shows_it(tmp_path: Path) -> None:
    questions = _bank_questions()
    bank = write_bank(tmp_path / "bank", questions)
    path = write_jsonl(
        tmp_path / "lm" / f"samples_kobest_copa_{DATE}.jsonl", [_copa_line(0, "男人的杯子碎了。", "答案是 A")]
    )
    run = tmp_path / "run"
    result = CliRunner().invoke(
        app, ["run", str(bank), "-b", "replay", "-m", "lm", "-B", f"path={path}", "-o", str(run)]
    )
    assert result.exit_code == 1, result.output  # seven questions have no recorded answer: failed, named
    assert "replayed files: 7 no recorded output (never another question's answer)" in result.output
    records = {r.question_id: r for r in RunStore(run).records()}
    kept = records["q6"].harness
    assert kept is not None and kept["prompt"] == "男人的杯子碎了。 왜냐하면" and kept["line"] == 1
    assert kept["generation"] == {"until": ["\n"], "max_gen_toks": 32}
    assert records["q6"].output == "答案是 A" and records["q0"].parse_status == "failed"
    header = json.loads((run / "run.json").read_text(encoding="utf-8"))
    assert header["harness"]["format"] == "lm-eval" and header["harness"]["generation"] == [kept["generation"]]
    report = tmp_path / "report"
    shown = CliRunner().invoke(app, ["report", str(run), "--out", str(report), "--no-plots"])
    assert shown.exit_code == 0, shown.output
    assert "왜냐하면" in (report / "index.html").read_text(encoding="utf-8")


def test_loglikelihood_requests_carry_the_texts_too(tmp_path: Path) -> None:
    q = question("w0", "语文", "阅读", "推断", stem="他把书放进了书包，因为＿＿很大。", options=["书包", "书"])
    line = {
        "doc_id": 0,
        "doc": {"sentence": q.stem, "option1": "书包", "option2": "书"},
        "resps": [[[-1.0, True]], [[-3.0, False]]],
    }
    path = write_jsonl(tmp_path / f"samples_winogrande_{DATE}.jsonl", [line])
    request = LoglikelihoodRequest(q.id, f"{q.stem}\n", (" 书包", " 书"), texts=question_texts(q))
    (result,) = ReplayBackend(str(path)).loglikelihood([request])
    assert result.logprobs == [-1.0, -3.0] and result.harness is not None


@pytest.mark.parametrize("stem", ["海水为什么是咸的？", "海水为什么是咸的？请结合所学的地理知识说明理由。"])
def test_a_stem_is_found_anywhere_in_a_long_harness_prompt(tmp_path: Path, stem: str) -> None:
    """Short stems are looked for in every prompt, long ones through the prompts' windows: both find it
    at any offset behind a few-shot preamble."""
    q = question("h0", "地理", "海洋", "盐度", stem=stem)
    for pad in range(9):
        preamble = "以下是地理考试的问题。" + "甲" * pad + "\n"
        record = {"origin_prompt": preamble + stem + "\nA. 一\nB. 二\nC. 三\nD. 四", "prediction": f"B{pad}"}
        folder = tmp_path / str(pad)
        path = write_text(
            folder / "geo.json",
            json.dumps({"0": record, "1": {"origin_prompt": "别的题目。" * 5, "prediction": "C"}}, ensure_ascii=False),
        )
        (result,) = ReplayBackend(str(path)).generate(_plain([q]))
        assert result.texts == [f"B{pad}"], (pad, result.error)


def test_opencompass_ppl_records_of_another_dataset_match_by_their_option_prompts(tmp_path: Path) -> None:
    stems = ["下列哪种动物属于哺乳动物？请选择。", "下列哪种植物属于裸子植物？请选择。"]
    options = [["鲸", "鲨鱼", "金枪鱼", "海马"], ["松树", "玫瑰", "小麦", "水稻"]]
    questions = [
        question(f"p{i}", "生物", "分类", "动植物", stem=s, options=o)
        for i, (s, o) in enumerate(zip(stems, options, strict=True))
    ]
    records = {}
    for key, q in enumerate(reversed(questions)):
        rendered = q.stem + "".join(f"\n{x}. {o.text}" for x, o in zip("ABCD", q.options, strict=True)) + "\n答案: "
        records[str(key)] = {
            f"label: {x}": {"testing input": q.stem, "prompt": rendered + x, "PPL": 1.0 + j}
            for j, x in enumerate("ABCD")
        }
        records[str(key)]["label: B"]["PPL"] = 0.5 if key == 0 else 3.0
    path = write_text(tmp_path / "bio-ppl.json", json.dumps(records, ensure_ascii=False))
    requests = [
        LoglikelihoodRequest(q.id, q.stem, tuple(" " + o.text for o in q.options), texts=question_texts(q))
        for q in questions
    ]
    first, second = ReplayBackend(str(path)).loglikelihood(requests)
    assert first.logprobs == [-1.0, -3.0, -3.0, -4.0] and second.logprobs == [-1.0, -0.5, -3.0, -4.0]
    assert first.harness is not None and first.harness["matched_by"] == "prompt" and first.harness["record"] == "1"


def test_a_generic_stem_at_the_right_position_is_checked_by_its_options(tmp_path: Path) -> None:
    """CMMLU has dozens of stems "下列说法正确的是": a record placed by its key must also have the options."""
    pytest.importorskip("pyarrow")
    from tests.runners.backends.test_backend_harness import cmmlu_bank

    cmmlu_bank(tmp_path)
    same = "下列说法正确的是"
    first, second = (("甲对", "乙对", "丙对", "丁对"), ("一对", "二对", "三对", "四对"))
    swapped = [(second, "B"), (first, "A")]  # the file's order is not the bank's
    predictions = {
        str(i): {
            "origin_prompt": f"{same}\n" + "\n".join(f"{x}. {o}" for x, o in zip("ABCD", opts, strict=True)),
            "prediction": answer,
        }
        for i, (opts, answer) in enumerate(swapped)
    }
    path = write_text(tmp_path / "cmmlu-agronomy.json", json.dumps(predictions, ensure_ascii=False))
    requests = [
        GenerationRequest(f"cmmlu/test/agronomy/{i}", f"{same}\n答案：", texts=(same, *opts))
        for i, opts in enumerate((first, second))
    ]
    results = ReplayBackend(str(path)).generate(requests)
    assert [r.texts for r in results] == [["A"], ["B"]]
    assert all(r.harness is not None and r.harness["matched_by"] == "prompt" for r in results)


@pytest.mark.shared_data
def test_opencompass_predictions_of_the_real_cmmlu_test_split_in_another_order(
    shared_data: Path, tmp_path: Path
) -> None:
    """OpenCompass-style predictions of the real CMMLU test split, shuffled, a third of them left out, each
    prediction its own question's answer: every one lands on its own question (all right), the questions
    left out fail as `no recorded output`. (Placed by position alone, as before #27, a file of every other
    record gave 446 of its 602 answers to other questions.)"""
    import csv
    import random

    folder = tmp_path / "predictions" / "m"
    folder.mkdir(parents=True)
    rng = random.Random(1)
    dropped = 0
    for file in sorted((shared_data / "cmmlu" / "test").glob("*.csv")):
        with file.open(encoding="utf-8-sig", newline="") as handle:
            rows = list(csv.DictReader(handle))
        rng.shuffle(rows)
        dropped += len(rows[2::3])
        rows = [r for i, r in enumerate(rows) if i % 3 != 2]
        predictions = {
            str(i): {
                "origin_prompt": [
                    {
                        "role": "HUMAN",
                        "prompt": f"以下是关于{file.stem}的单项选择题。\n题目：{r['Question']}\n"
                        + "\n".join(f"{x}. {r[x]}" for x in "ABCD")
                        + "\n答案是:",
                    }
                ],
                "prediction": f"答案：{r['Answer'].strip()}",
            }
            for i, r in enumerate(rows)
        }
        (folder / f"cmmlu-{file.stem}.json").write_text(json.dumps(predictions, ensure_ascii=False), encoding="utf-8")
    run = tmp_path / "run"
    args = ["run", str(shared_data / "cmmlu" / "test"), "-b", "replay", "-m", "oc", "-B", f"path={folder}"]
    result = CliRunner().invoke(app, [*args, "-o", str(run), "--batch-size", "256", "--max-failures", "100%"])
    assert result.exit_code == 0, result.output
    records = RunStore(run).records()
    failed = [r for r in records if r.parse_status == "failed"]
    assert len(records) > 1000 and len(failed) == dropped > 300
    assert all(str(r.error).startswith("no recorded output") for r in failed)
    assert all(r.correct for r in records if r.parse_status != "failed")


def test_a_short_question_matches_with_its_options(tmp_path: Path) -> None:
    """ "河姆渡遗址位于" (7 characters) is too short alone, long enough with its options, either way round."""
    q = question(
        "k0",
        "历史",
        "史前",
        "遗址",
        stem="河姆渡遗址位于",
        options=["长江流域", "雅鲁藏布江流域", "淮河流域", "黄河流域"],
    )
    other = question(
        "k1",
        "历史",
        "史前",
        "遗址",
        stem="半坡遗址位于",
        options=["长江流域", "雅鲁藏布江流域", "淮河流域", "黄河流域"],
    )
    doc = {"Question": q.stem, **dict(zip("ABCD", (o.text for o in q.options), strict=True))}
    lm = write_jsonl(tmp_path / f"samples_history_{DATE}.jsonl", [{"doc_id": 0, "doc": doc, "resps": [["A"]]}])
    rendered = q.stem + "".join(f"\nA. {o.text}" for o in q.options)
    oc = write_text(
        tmp_path / "history.json", json.dumps({"0": {"origin_prompt": rendered, "prediction": "A"}}, ensure_ascii=False)
    )
    prompts = [
        GenerationRequest(x.id, f"{x.stem}\n" + "\n".join(o.text for o in x.options), texts=question_texts(x))
        for x in (q, other)
    ]
    for path, by in ((lm, "doc.Question"), (oc, "prompt")):
        mine, theirs = ReplayBackend(str(path)).generate(prompts)
        assert mine.texts == ["A"] and mine.harness is not None and mine.harness["matched_by"] == by
        assert theirs.error is not None and theirs.error.startswith("no recorded output")


def test_a_placed_record_with_another_questions_prompt_fails_only_its_question(tmp_path: Path) -> None:
    """Without a document to say so, a prompt that lacks the question's texts is not proof the whole file
    is another release: that question fails, named, and the others are answered."""
    from tests.runners.backends.test_backend_harness import CMMLU, prompt_of

    other = ("小麦的播种季节多为____", ("春季", "夏季", "秋季", "冬季"), "C")  # CMMLU[1], in record 0's place
    predictions = {"0": {"origin_prompt": prompt_of(other), "prediction": "C"}}
    predictions["2"] = {"origin_prompt": prompt_of(CMMLU[2]), "prediction": "B"}
    path = write_text(tmp_path / "cmmlu-agronomy.json", json.dumps(predictions, ensure_ascii=False))
    requests = [
        GenerationRequest(f"cmmlu/test/agronomy/{i}", prompt_of(item), texts=(item[0], *item[1]))
        for i, item in enumerate(CMMLU)
    ]
    first, second, third = ReplayBackend(str(path)).generate(requests)
    assert first.error is not None and first.error.startswith("no recorded output") and "record 0" in first.error
    assert second.texts == ["C"]  # its own text, found in record 0
    assert third.texts == ["B"]


def test_a_resumed_run_never_gives_a_record_to_a_second_question(tmp_path: Path) -> None:
    """A record two questions fit, given to the first in one session, is ambiguous for the second when
    the run resumes in another (--limit stops the first session after one question)."""
    shared = "一个数加上五等于十二，这个数是多少？"
    questions = [
        question(f"s{i}", "数学", "代数", "方程", stem=shared + extra) for i, extra in enumerate(["", "（用方程解）"])
    ]
    bank = write_bank(tmp_path / "bank", questions)
    path = write_jsonl(
        tmp_path / "lm" / f"samples_arith_{DATE}.jsonl", [{"doc_id": 0, "doc": {"question": shared}, "resps": [["7"]]}]
    )
    args = ["run", str(bank), "-b", "replay", "-m", "lm", "-B", f"path={path}", "-o", str(tmp_path / "run")]
    first = CliRunner().invoke(app, [*args, "--limit", "1"])
    assert first.exit_code == 0, first.output
    second = CliRunner().invoke(app, args)
    assert second.exit_code == 1, second.output
    records = {r.question_id: r for r in RunStore(tmp_path / "run").records()}
    assert records["s0"].output == "7"
    assert records["s1"].parse_status == "failed" and str(records["s1"].error).startswith("ambiguous")
