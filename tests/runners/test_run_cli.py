"""`k12eval run` through the replay backend (no model): header, records, progress, summary and --config."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from kg.graph import node_ids
from kg.records import Question
from runners.options import RunOptions
from runners.run import run_questions
from runners.store import RunStore
from tests._runs import question, write_bank

QUESTIONS = [
    question("s1", "数学", "函数", "一次函数", stem="下列函数中是一次函数的是"),
    question("s2", "数学", "函数", "一次函数", stem="直线 y=2x+1 的斜率是"),
    question("s3", "数学", "函数", "二次函数", stem="抛物线的顶点在"),
    question("m1", "数学", "几何", "三角形", "multiple_choice", answer=["A", "C"], stem="下列说法正确的有"),
    question(
        "j1", "物理", "力学", "浮力", "judgment", options=["浮力竖直向上。", "浮力与密度无关。"], stem="判断下列说法"
    ),
]
RECORDED = {  # what the "model" said, and how many tokens and seconds it took
    "s1": ("正确答案是：A", 31, 5, 0.25),
    "s2": ("我认为答案是 B。", 28, 7, 0.5),
    "s3": ("我不知道。", 25, 4, 0.125),
    "m1": ("正确答案是：AC", 40, 6, 0.75),
}  # j1 has no recorded output: the backend fails it
EXPECTED = {  # question id -> (parse status, extracted, correct)
    "s1": ("ok", ["A"], True),
    "s2": ("ok", ["B"], False),
    "s3": ("unparsed", None, False),
    "m1": ("ok", ["A", "C"], True),
    "j1": ("failed", None, None),
}


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    return write_bank(tmp_path / "bank", QUESTIONS)


@pytest.fixture
def answers(tmp_path: Path) -> Path:
    path = tmp_path / "answers.jsonl"
    lines = [
        {"question_id": qid, "output": text, "prompt_tokens": p, "completion_tokens": c, "latency_s": s}
        for qid, (text, p, c, s) in RECORDED.items()
    ]
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return path


def _invoke(*args: str) -> Any:
    # j1's request fails on purpose (no recorded output): one failure is allowed unless a test says otherwise
    allowed = [] if "--max-failures" in args else ["--max-failures", "1"]
    return CliRunner().invoke(app, ["run", *args, *allowed], env={"COLUMNS": "160"})


def test_header_holds_how_the_run_was_made(bank: Path, answers: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    before = datetime.now(UTC).replace(microsecond=0)
    result = _invoke(str(bank), "-m", "replayed", "-b", "replay", "-B", f"path={answers}", "-o", str(out),
                     "--seed", "7", "--temperature", "0.5", "--max-tokens", "64", "--samples", "2")  # fmt: skip
    assert result.exit_code == 0, result.output
    header = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert (header["model"], header["backend"], header["mode"]) == ("replayed", "replay", "zero-shot")
    assert (header["variant"], header["strategy"], header["seed"]) == ("original", "generate", 7)
    assert header["sampling"] | {"temperature": 0.5, "max_tokens": 64, "n": 2, "seed": 7} == header["sampling"]
    assert "top_p" in header["sampling"]
    assert re.fullmatch(r"[0-9a-f]{16}", header["template_hash"])
    assert header["packages"]["k12eval"] and header["packages"]["backend"] == "replay"
    started = datetime.fromisoformat(header["started_at"])
    assert before <= started <= datetime.now(UTC) + timedelta(seconds=1)
    assert header["data"]["questions"] == len(QUESTIONS)


def test_records_hold_coordinates_prompt_output_answer_and_costs(bank: Path, answers: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = _invoke(str(bank), "-m", "replayed", "-b", "replay", "-B", f"path={answers}", "-o", str(out))
    assert result.exit_code == 0, result.output
    by_id: dict[str, Question] = {q.id: q for q in QUESTIONS}
    records = {r.question_id: r for r in RunStore(out).iter_records()}
    assert set(records) == set(EXPECTED)
    for qid, record in records.items():
        status, extracted, correct = EXPECTED[qid]
        assert (record.parse_status, record.extracted, record.correct) == (status, extracted, correct), qid
        assert record.nodes == node_ids(by_id[qid]) and record.nodes["question"] == f"q:{qid}"
        sent = record.prompt if isinstance(record.prompt, str) else "\n".join(m["content"] for m in record.prompt)
        assert by_id[qid].stem in sent
        assert re.fullmatch(r"[0-9a-f]{16}", record.prompt_hash)
        if qid in RECORDED:
            text, prompt_tokens, completion_tokens, latency = RECORDED[qid]
            assert record.output == text  # the raw output, untouched
            assert (record.prompt_tokens, record.completion_tokens, record.latency_s) == (
                prompt_tokens,
                completion_tokens,
                latency,
            )
        else:
            assert record.output is None and record.error and "'j1'" in record.error
    assert len({r.prompt_hash for r in records.values()}) == len(records)


def _table(output: str) -> dict[str, list[str]]:
    rows = {}
    for line in output.splitlines():
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if cells and cells[0] and cells[0] != "type":
            rows[cells[0]] = cells[1:]
    return rows


def test_summary_table_gives_accuracy_unparsed_and_failures_by_type(bank: Path, answers: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = _invoke(str(bank), "-m", "replayed", "-b", "replay", "-B", f"path={answers}", "-o", str(out))
    assert result.exit_code == 0, result.output
    rows = _table(result.output)  # columns: n, asked, accuracy, unparsed, failed
    assert rows["single_choice"] == ["3", "3", "33.3%", "33.3%", "0"]
    assert rows["multiple_choice"] == ["1", "1", "100.0%", "0.0%", "0"]
    # failed: answered by nobody, so not asked: no accuracy, not 0.0% (#31 item 3); and no unparsed rate either
    assert rows["judgment"] == ["1", "0", "—", "—", "1"]
    assert rows["all"] == ["5", "4", "50.0%", "25.0%", "1"]  # 2 of 4 asked right; 1 of 4 answered unparsed
    assert "accuracy over the 4 question(s) asked of 5 selected" in result.output
    assert "judgment counted" not in result.output  # the one judgment question failed: no rule counted it
    assert "unparsed rate 25.0%" in result.output
    assert "4 new answer(s) and 1 failed request(s) this time, 0 already" in result.output  # a failure is no answer
    assert re.search(r"batch 1/1: 4 answered and 1 failed in [0-9.]+ s \(.*\); 5/5 done, [0-9.]+ q/s", result.output)

    again = _invoke(str(bank), "-m", "replayed", "-b", "replay", "-B", f"path={answers}", "-o", str(out))
    assert "0 new answer(s) this time, 5 already in the run folder" in again.output
    assert _table(again.output) == rows


def test_progress_reports_done_total_and_rate_after_each_batch(bank: Path, answers: Path, tmp_path: Path) -> None:
    calls: list[tuple[int, int, float]] = []
    options = RunOptions(data=bank, model="r", out=tmp_path / "run", backend="replay", batch_size=2,
                         backend_options={"path": str(answers)}, limit=4)  # fmt: skip
    run_questions(options, progress=lambda *call: calls.append(call))
    assert [(done, total) for done, total, _ in calls] == [(0, 4), (2, 4), (4, 4)]
    assert calls[0][2] == 0.0 and all(rate > 0 for _, _, rate in calls[1:])
    calls.clear()
    run_questions(replace(options, limit=5), progress=lambda *call: calls.append(call))
    assert [(done, total) for done, total, _ in calls] == [(4, 5), (5, 5)]  # resumed: only the fifth is asked


# --config


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_config_gives_defaults_relative_to_its_folder_and_flags_win(bank: Path, answers: Path, tmp_path: Path) -> None:
    folder = tmp_path / "configs"
    folder.mkdir()
    config = _write(
        folder / "run.toml",
        f"""# a run described in a file
[run]
data = "../{bank.name}"
model = "replayed"
backend = "replay"
out = "runs/replayed"
limit = 2
seed = 5
top-p = 1  # an integer where a number is expected is fine
types = ["single_choice", "multiple_choice"]
backend-option = {{ path = "{answers}" }}  # passed to the backend as it is

[score]  # another command's table is not ours to check
anything = 1
""",
    )
    result = _invoke("--config", str(config))
    assert result.exit_code == 0, result.output
    out = folder / "runs" / "replayed"
    header = RunStore(out).read_header()
    assert (header.model, header.backend, header.seed, header.data["limit"]) == ("replayed", "replay", 5, 2)
    assert header.data["types"] == ["single_choice", "multiple_choice"]
    assert [r.question_id for r in RunStore(out).iter_records()] == ["s1", "s2"]

    flags = _invoke("--config", str(config), "--limit", "4", "--seed", "6", "-o", str(tmp_path / "other"))
    assert flags.exit_code == 0, flags.output
    header = RunStore(tmp_path / "other").read_header()
    assert (header.seed, header.data["limit"], header.data["questions"]) == (6, 4, 4)  # 4 of the chosen types


def test_config_at_the_top_level_with_flag_names(bank: Path, answers: Path, tmp_path: Path) -> None:
    config = _write(
        tmp_path / "flat.toml",
        f'model = "r"\nbackend = "replay"\nformat = "ck12"\ntemplates = "cmmlu"\nbatch_size = 3\n'
        f'backend_option = ["path={answers}"]\nsubjects = "数学"\ntypes = "single_choice"\n',
    )
    out = tmp_path / "flat"
    result = _invoke(str(bank), "--config", str(config), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert [r.question_id for r in RunStore(out).iter_records()] == ["s1", "s2", "s3"]  # lists given as text
    assert RunStore(out).read_header().template_hash != _template_hash_of_ck12(bank, answers, tmp_path)


def _template_hash_of_ck12(bank: Path, answers: Path, tmp_path: Path) -> str:
    out = tmp_path / "ck12"
    result = _invoke(
        str(bank), "-m", "r", "-b", "replay", "-B", f"path={answers}", "-o", str(out), "-t", "single_choice"
    )
    assert result.exit_code == 0, result.output
    return RunStore(out).read_header().template_hash


def test_a_template_set_without_some_selected_type_is_refused_up_front(bank: Path, tmp_path: Path) -> None:
    common = [str(bank), "-m", "r", "-b", "replay", "-B", "path=unused", "-o", str(tmp_path / "o")]
    result = _invoke(*common, "--templates", "cmmlu")
    assert result.exit_code == 2, result.output
    assert (
        "--templates cmmlu: has no zh template for judgment, multiple_choice questions (it has: single_choice); choose those types with --types"
        in result.output
    )
    assert "Traceback" not in result.output and not (tmp_path / "o").exists()
    unknown = _invoke(*common, "--templates", "mmlu")
    assert unknown.exit_code == 2 and "no template set 'mmlu'" in unknown.output


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('model = "r"\nlimt = 3\n', "unknown option 'limt' at the top level; known options: backend,"),
        ('[run]\nmodel = "r"\n"max tokens" = 3\n', "unknown option 'max tokens' in [run]"),
        ('model = "r"\nlimit = "three"\n', "option 'limit': expected a number, got text 'three'"),  # 0.1: a share (#34)
        ('model = "r"\nseed = 2.5\n', "option 'seed': expected an integer, got a number 2.5"),
        ('model = "r"\nseed = true\n', "option 'seed': expected an integer, got a boolean True"),
        ('model = "r"\ntemperature = "hot"\n', "option 'temperature': expected a number, got text 'hot'"),
        ('model = "r"\nchat = "yes"\n', "option 'chat': expected true or false, got text 'yes'"),
        ('model = "r"\ntypes = ["single_choice", 2]\n', "option 'types' item 2: expected text, got an integer 2"),
        ("model = 3\n", "option 'model': expected text, got an integer 3"),
        ('model = "r"\nmax-tokens = 3\nmax_tokens = 4\n', "option 'max_tokens' is given twice"),
        ('model = "r"\nconfig = "other.toml"\n', "unknown option 'config'"),
        ("run = 3\n", "'run' must be a table ([run]), got an integer"),
        ('model = "r"\nlimit = \n', "not valid TOML"),
    ],
)
def test_a_bad_config_names_the_file_and_the_key(text: str, expected: str, bank: Path, tmp_path: Path) -> None:
    config = _write(tmp_path / "bad.toml", text)
    result = _invoke(str(bank), "--config", str(config), "-o", str(tmp_path / "never"))
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {config}: ") and expected in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "never").exists()


def test_a_missing_config_file_is_named(bank: Path, tmp_path: Path) -> None:
    result = _invoke(str(bank), "--config", str(tmp_path / "nope.toml"), "-m", "r", "-o", str(tmp_path / "o"))
    assert result.exit_code == 2
    assert f"error: {tmp_path / 'nope.toml'}: cannot read the config file" in result.output


def test_a_backend_that_cannot_load_prints_its_error_alone(bank: Path, tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    result = _invoke(str(bank), "-m", "r", "-b", "replay", "-B", f"path={missing}", "-o", str(tmp_path / "o"))
    assert result.exit_code == 2
    assert result.output == f"error: {missing}: no such file of recorded outputs\n"  # no progress bar before it


def test_a_model_the_backend_cannot_load_is_one_line_and_no_run_folder(bank: Path, tmp_path: Path) -> None:
    # #17 item 1: a model that fails to load printed a traceback; the metric and judge models already said it in one line.
    pytest.importorskip("transformers")
    broken = tmp_path / "broken-model"
    broken.mkdir()
    (broken / "config.json").write_text("{}", encoding="utf-8")  # no weights, no tokenizer
    out = tmp_path / "o"
    result = _invoke(str(bank), "-m", str(broken), "-b", "transformers", "-o", str(out))
    assert result.exit_code == 2, result.output
    (line,) = result.output.strip().splitlines()
    assert line.startswith(f"error: --model {str(broken)!r}: the transformers backend could not load it (")
    assert not (out / "run.json").exists() and not (out / "summary.json").exists()  # no run was started


def test_a_missing_optional_package_is_one_line_naming_how_to_install_it(
    bank: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "vllm", None)  # `import vllm` now fails as on a machine without it
    result = CliRunner().invoke(
        app, ["run", str(bank), "--backend", "vllm", "-m", "some/model", "--out", str(tmp_path / "r")]
    )
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert lines == [
        "error: vllm is not installed; install it with: pip install 'k12eval[vllm]' (on a CPU: make setup-vllm)"
    ]
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_few_shot_takes_ck12s_released_example_file(bank: Path, answers: Path, tmp_path: Path) -> None:
    # --few-shot FILE with CK12's few_shot_examples.json layout (#16 item 7): it was read as a question bank.
    examples = tmp_path / "few_shot_examples.json"
    shots = [{"prompt": f"自编例题{i}：{i}+1=（  ）\nA.{i}\n B.{i + 1}", "answer": "B"} for i in range(6)]
    examples.write_text(json.dumps({"数学": {"单选": shots}}, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "run"
    result = _invoke(str(bank), "-m", "replayed", "-b", "replay", "-B", f"path={answers}", "-o", str(out),
                     "--mode", "few-shot", "--few-shot", str(examples), "--types", "single_choice")  # fmt: skip
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in (out / "records.jsonl").read_text(encoding="utf-8").splitlines()]
    texts = [r["prompt"] if isinstance(r["prompt"], str) else r["prompt"][-1]["content"] for r in records]
    # The released order is kept: the file's first five examples, the sixth never shown.
    assert texts and all("例5: 自编例题4" in t and "自编例题5" not in t for t in texts)


def test_a_ck12_result_file_with_an_empty_stem_judgment_replays_whole(tmp_path: Path) -> None:
    """The release's eval_results files are CK12 records plus ``response``; two of the 800 ChatGLM2
    judgment answers are to questions whose stem is empty and whose statements are the question
    (#26 item 2). All are answered and graded, none refused."""
    from tests.importer_helpers import ck12_record, write_jsonl

    judged = dict(task_type="判断", task_grade="小学", knowledge_domain=["小学", "数学", "知识点", "数", "小数"])
    records = [
        ck12_record(id="j1", prompt="判断．\n", answer_option=["1.$$0.5>0.45$$．（   ）\n"], answer="T", **judged),
        ck12_record(
            id="j2", prompt="\n", answer_option=["1.整数都比小数大．\n", "2.$$1$$是质数．\n"], answer="FF", **judged
        ),
    ]
    bank = write_jsonl(tmp_path / "bank" / "小学" / "数学" / "判断.jsonl", records)
    answers = write_jsonl(
        tmp_path / "chatglm2_zero_shot.json",
        [{**records[0], "response": "1. 正确"}, {**records[1], "response": "1. 错误 2. 错误"}],
    )
    result = _invoke(str(bank.parents[2]), "-m", str(answers), "-b", "replay", "-o", str(tmp_path / "run"))
    assert result.exit_code == 0, result.output
    got = {r.question_id: r for r in RunStore(tmp_path / "run").records()}
    assert sorted(got) == ["j1", "j2"]
    assert got["j2"].extracted == [False, False] and got["j2"].correct is True
    assert "整数都比小数大" in str(got["j2"].prompt)


def test_a_ck12_result_file_of_one_record_lists_replays(tmp_path: Path) -> None:
    """The release's ``eval_results/llama2-zero_shot_128.json`` writes each line as ``[{...}]``, one
    record in a list; replay refused it at line 1 (#26 item 2). A list of one object is that object;
    any other list is refused, naming the file and the line."""
    from tests.importer_helpers import ck12_record, write_jsonl

    judged = dict(task_type="判断", task_grade="小学", knowledge_domain=["小学", "数学", "知识点", "数", "小数"])
    records = [
        ck12_record(
            id="j1", prompt="判断．\n", answer_option=["1.$$640000$$比$$640$$万大．（   ）\n"], answer="F", **judged
        ),
        ck12_record(
            id="j2", prompt="\n", answer_option=["1.整数都比小数大．\n", "2.$$1$$是质数．\n"], answer="FF", **judged
        ),
    ]
    bank = write_jsonl(tmp_path / "bank" / "小学" / "数学" / "判断.jsonl", records)
    lines = [[{**records[0], "response": "错误"}], [{**records[1], "response": "1. 错误 2. 错误"}]]
    answers = tmp_path / "llama2-zero_shot_128.json"
    answers.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    result = _invoke(str(bank.parents[2]), "-m", str(answers), "-b", "replay", "-o", str(tmp_path / "run"))
    assert result.exit_code == 0, result.output
    got = {r.question_id: r for r in RunStore(tmp_path / "run").records()}
    assert got["j1"].output == "错误" and got["j1"].correct is True
    assert got["j2"].extracted == [False, False] and got["j2"].correct is True

    for bad, held in (([lines[0][0], lines[1][0]], "a list of 2 items"), ([], "an empty list"), (["错误"], "'错误'")):
        answers.write_text(json.dumps(lines[0], ensure_ascii=False) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
        refused = _invoke(str(bank.parents[2]), "-m", str(answers), "-b", "replay", "-o", str(tmp_path / "bad"))
        assert refused.exit_code == 2, refused.output
        assert f"{answers}, line 2: expected a JSON object or a list of one object" in refused.output
        assert held in refused.output and "Traceback" not in refused.output


def test_skip_invalid_names_and_leaves_out_a_bad_question(tmp_path: Path) -> None:
    """One invalid question stopped the whole run, with no way round it (#27 item 5)."""
    from runners.bank import run_bank
    from runners.store import RunStore
    from tests.importer_helpers import ck12_record, write_jsonl

    records = [ck12_record(id="a"), ck12_record(id="bad", answer="E"), ck12_record(id="c")]
    bank = write_jsonl(tmp_path / "bank" / "初中" / "数学" / "单选.jsonl", records)
    answers = write_jsonl(tmp_path / "answers.jsonl", [{**r, "response": "答案是B"} for r in records])
    args = (str(bank.parents[2]), "-m", str(answers), "-b", "replay")

    stopped = _invoke(*args, "-o", str(tmp_path / "stopped"))
    assert stopped.exit_code == 2 and "line 2 (record bad), field 'answer'" in stopped.output

    result = _invoke(*args, "-o", str(tmp_path / "run"), "--skip-invalid")
    assert result.exit_code == 0, result.output
    assert "skipped an invalid question" in result.output and "line 2 (record bad)" in result.output
    store = RunStore(tmp_path / "run")
    assert sorted(r.question_id for r in store.records()) == ["a", "c"]
    header = store.read_header()
    assert header.data["skip_invalid"] is True and "record bad" in header.data["skipped"][0]
    assert sorted(run_bank(tmp_path / "run", header).questions) == ["a", "c"]  # score and report read it too


def test_each_wrong_answer_carries_ck12s_error_category(bank: Path, answers: Path, tmp_path: Path) -> None:
    """CK12's error taxonomy as a per-answer field (#26 item 7): a wrong letter is a problem-solving
    error, an answer that answers nothing an illogical one; right and failed answers have none."""
    out = tmp_path / "run"
    result = _invoke(str(bank), "-m", "replayed", "-b", "replay", "-B", f"path={answers}", "-o", str(out))
    assert result.exit_code == 0, result.output
    got = {r.question_id: r.error_type for r in RunStore(out).iter_records()}
    assert got == {"s1": None, "s2": "problem_solving", "s3": "illogical", "m1": None, "j1": None}
