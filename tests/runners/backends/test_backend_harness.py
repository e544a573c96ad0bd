"""Other harnesses' outputs replayed: lm-eval ``--log_samples`` files and OpenCompass predictions.

Every file here is written by the test in the documented layout (invented questions and
answers, no copied data): lm-eval's ``samples_<task>_<date>.jsonl`` (generate_until and
loglikelihood) and OpenCompass's ``predictions/<model>/<dataset>.json`` (gen and PPL),
matched to small C-Eval (hub Parquet) and CMMLU (CSV) banks.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from kg.errors import InputError
from runners.backends.base import GenerationRequest, LoglikelihoodRequest
from runners.backends.replay import ReplayBackend
from tests.importer_helpers import write_jsonl, write_text

DATE = "2024-05-01T10-00-00.123456"
CEVAL = [  # question, options A-D, answer
    ("网络层的主要协议是____", ("IP", "HTTP", "FTP", "SMTP"), "A"),
    ("TCP 属于____", ("应用层", "传输层", "网络层", "物理层"), "B"),
    ("以太网帧的最小长度是____字节", ("32", "46", "64", "128"), "C"),
]
CMMLU = [
    ("水稻属于____", ("禾本科", "豆科", "茄科", "十字花科"), "A"),
    ("小麦的播种季节多为____", ("春季", "夏季", "秋季", "冬季"), "C"),
    ("玉米原产于____", ("亚洲", "美洲", "非洲", "欧洲"), "B"),
]


def ceval_bank(root: Path) -> Path:
    """C-Eval as the hub ships it: ``computer_network/val-00000-of-00001.parquet``."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    folder = root / "ceval" / "computer_network"
    folder.mkdir(parents=True)
    columns: dict[str, list[Any]] = {"id": list(range(len(CEVAL))), "question": [q for q, _, _ in CEVAL]}
    for i, letter in enumerate("ABCD"):
        columns[letter] = [options[i] for _, options, _ in CEVAL]
    columns["answer"] = [a for _, _, a in CEVAL]
    columns["explanation"] = [""] * len(CEVAL)
    pq.write_table(pa.table(columns), folder / "val-00000-of-00001.parquet")
    return root / "ceval"


def cmmlu_bank(root: Path) -> Path:
    """CMMLU as released: ``test/agronomy.csv`` with its unnamed index column."""
    rows = [f"{i},{q},{','.join(o)},{a}" for i, (q, o, a) in enumerate(CMMLU)]
    write_text(root / "cmmlu" / "test" / "agronomy.csv", ",Question,A,B,C,D,Answer\n" + "\n".join(rows) + "\n")
    return root / "cmmlu"


def lm_eval_line(doc_id: int, item: tuple[str, tuple[str, ...], str], resps: Any, source: str) -> dict[str, Any]:
    question, options, answer = item
    if source == "ceval":
        doc: dict[str, Any] = {"id": doc_id, "question": question, "answer": answer, "explanation": ""}
    else:
        doc = {"Question": question, "Answer": answer}
    doc.update(zip("ABCD", options, strict=True))
    return {
        "doc_id": doc_id,
        "doc": doc,
        "target": "ABCD".index(answer),
        "arguments": {"gen_args_0": {"arg_0": f"{question}\n答案：", "arg_1": {"until": ["\n"]}}},
        "resps": resps,
        "filtered_resps": [r[0] for r in resps],
        "filter": "none",
        "metrics": ["acc"],
        "doc_hash": f"d{doc_id}",
        "prompt_hash": f"p{doc_id}",
        "target_hash": f"t{doc_id}",
    }


def loglikelihoods(best: str) -> list[list[list[Any]]]:
    """lm-eval's loglikelihood ``resps``: one ``[[logprob, is_greedy]]`` per choice, ``best`` the most probable."""
    return [[[-0.5 if letter == best else -2.0 - i, letter == best]] for i, letter in enumerate("ABCD")]


def prompt_of(item: tuple[str, tuple[str, ...], str]) -> str:
    """A prompt as k12eval builds it: the question, then the options."""
    question, options, _ = item
    return f"题目：{question}\n" + "\n".join(f"{x}.{o}" for x, o in zip("ABCD", options, strict=True)) + "\n答案："


def run_cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def records_of(run: Path) -> dict[str, dict[str, Any]]:
    lines = (run / "records.jsonl").read_text(encoding="utf-8").splitlines()
    return {r["question_id"]: r for r in map(json.loads, lines) if "question_id" in r}


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("K12EVAL_HOME", str(tmp_path / "home"))


@pytest.mark.slow
def test_lm_eval_generate_file_runs_and_reports(tmp_path: Path) -> None:
    bank = ceval_bank(tmp_path)
    outputs = ["答案：A", "我认为是 C", "不知道"]
    lines = [
        lm_eval_line(i, item, [[text]], "ceval") for i, (item, text) in enumerate(zip(CEVAL, outputs, strict=True))
    ]
    lines.insert(1, {**lines[0], "filter": "strict-match"})  # lm-eval writes a line per filter
    samples = write_jsonl(tmp_path / "lm" / f"samples_ceval-valid_computer_network_{DATE}.jsonl", lines)
    run = tmp_path / "run-lm"
    result = run_cli("run", str(bank), "-b", "replay", "-m", "lm-eval-model", "-B", f"path={samples}", "-o", str(run))
    assert result.exit_code == 0, result.output
    records = records_of(run)
    first, second, third = (records[f"ceval/val/computer_network/{i}"] for i in range(3))
    assert (first["output"], first["extracted"], first["correct"]) == ("答案：A", ["A"], True)
    assert (second["extracted"], second["correct"]) == (["C"], False)
    assert third["parse_status"] != "ok" and not third["correct"]
    report = tmp_path / "report"
    shown = run_cli("report", str(run), "--out", str(report), "--no-plots")
    assert shown.exit_code == 0, shown.output
    summary = json.loads((report / "summary.json").read_text(encoding="utf-8"))
    assert "计算机网络" in (report / "index.html").read_text(encoding="utf-8")
    (shown_run,) = summary["runs"]
    assert (shown_run["model"], shown_run["n"], shown_run["acc_micro"]) == ("lm-eval-model", 3, round(1 / 3, 4))


def test_lm_eval_loglikelihood_file_becomes_option_scores(tmp_path: Path) -> None:
    bank = cmmlu_bank(tmp_path)
    best = ["A", "B", "B"]  # right, wrong, right
    lines = [
        lm_eval_line(i, item, loglikelihoods(b), "cmmlu") for i, (item, b) in enumerate(zip(CMMLU, best, strict=True))
    ]
    samples = write_jsonl(tmp_path / "lm" / f"samples_cmmlu_agronomy_{DATE}.jsonl", lines)
    run = tmp_path / "run-ll"
    args = ("run", str(bank), "-b", "replay", "-m", str(samples), "--strategy", "rank-options", "-o", str(run))
    result = run_cli(*args)
    assert result.exit_code == 0, result.output
    records = records_of(run)
    first, second, third = (records[f"cmmlu/test/agronomy/{i}"] for i in range(3))
    assert first["option_scores"] == {"A": -0.5, "B": -3.0, "C": -4.0, "D": -5.0}
    assert (first["gold_rank"], first["correct"], first["extracted"]) == (1, True, ["A"])
    assert (second["gold_rank"], second["correct"], second["extracted"]) == (3, False, ["B"])
    assert (third["gold_rank"], third["correct"]) == (1, True)


def test_a_tie_at_the_top_is_no_extracted_answer(tmp_path: Path) -> None:
    """Gold A tied with B: the pessimistic rank (2) counts it wrong, and the record showed A extracted beside gold A."""
    bank = cmmlu_bank(tmp_path)
    tied = [[[-0.5, True]], [[-0.5, True]], [[-4.0, False]], [[-5.0, False]]]
    lines = [lm_eval_line(0, CMMLU[0], tied, "cmmlu"), lm_eval_line(1, CMMLU[1], loglikelihoods("C"), "cmmlu")]
    samples = write_jsonl(tmp_path / "lm" / f"samples_cmmlu_agronomy_{DATE}.jsonl", lines)
    run = tmp_path / "run"
    args = ("run", str(bank), "-b", "replay", "-m", str(samples), "--strategy", "rank-options", "--limit", "2")
    result = run_cli(*args, "-o", str(run))
    assert result.exit_code == 0, result.output
    records = records_of(run)
    tie, clear = records["cmmlu/test/agronomy/0"], records["cmmlu/test/agronomy/1"]
    assert (tie["gold_rank"], tie["correct"], tie["extracted"], tie["parse_status"]) == (2, False, None, "ok")
    assert (clear["gold_rank"], clear["correct"], clear["extracted"]) == (1, True, ["C"])


def test_opencompass_gen_file_runs(tmp_path: Path) -> None:
    bank = cmmlu_bank(tmp_path)
    predictions = {  # OpenCompass's CMMLU prompt renders the question and its options
        str(i): {"origin_prompt": [{"role": "HUMAN", "prompt": prompt_of((q, o, a))}], "prediction": text, "gold": a}
        for i, ((q, o, a), text) in enumerate(zip(CMMLU, ["答案是 A", "D", "答案：B"], strict=True))
    }
    folder = tmp_path / "outputs" / "predictions" / "my-model"
    write_text(folder / "cmmlu-agronomy.json", json.dumps(predictions, ensure_ascii=False, indent=4))
    run = tmp_path / "run-oc"
    result = run_cli("run", str(bank), "-b", "replay", "-m", "oc", "-B", f"path={folder}", "-o", str(run))
    assert result.exit_code == 0, result.output
    records = records_of(run)
    assert [records[f"cmmlu/test/agronomy/{i}"]["correct"] for i in range(3)] == [True, False, True]
    assert records["cmmlu/test/agronomy/1"]["extracted"] == ["D"]


def test_an_opencompass_work_folder_is_read_through_its_predictions(tmp_path: Path) -> None:
    """The folder OpenCompass names when it ends (outputs/default/<time>) replays the model's predictions/<model>;
    it was read as a k12eval run folder and refused for want of records.jsonl."""
    bank = cmmlu_bank(tmp_path)
    predictions = {
        str(i): {"origin_prompt": [{"role": "HUMAN", "prompt": prompt_of(item)}], "prediction": text, "gold": item[2]}
        for i, (item, text) in enumerate(zip(CMMLU, ["答案是 A", "D", "答案：B"], strict=True))
    }
    work = tmp_path / "outputs" / "default" / "20240501_100000"
    write_text(work / "predictions" / "my-model" / "cmmlu-agronomy.json", json.dumps(predictions, ensure_ascii=False))
    run = tmp_path / "run"
    result = run_cli("run", str(bank), "-b", "replay", "-m", "my-model", "-B", f"path={work}", "-o", str(run))
    assert result.exit_code == 0, result.output
    records = records_of(run)
    assert [records[f"cmmlu/test/agronomy/{i}"]["correct"] for i in range(3)] == [True, False, True]
    (work / "predictions" / "other-model").mkdir()
    args = ("run", str(bank), "-b", "replay", "-m", "third", "-B", f"path={work}", "-o", str(tmp_path / "run2"))
    refused = run_cli(*args)
    assert refused.exit_code == 2 and "OpenCompass work folder" in refused.output
    assert "my-model, other-model" in refused.output


@pytest.mark.parametrize("harness", ["lm-eval", "opencompass"])
def test_a_gold_of_another_option_in_the_harness_file_is_named(tmp_path: Path, harness: str) -> None:
    """The file's gold for question 1 is D, the bank's C (another answer key): the run says so, grading by the bank;
    an OpenCompass file's gold was not even kept."""
    bank = cmmlu_bank(tmp_path)
    if harness == "lm-eval":
        lines = [lm_eval_line(i, item, loglikelihoods("A"), "cmmlu") for i, item in enumerate(CMMLU)]
        lines[1]["target"] = 3  # lm-eval's index into the choices: D
        path = write_jsonl(tmp_path / "lm" / f"samples_cmmlu_agronomy_{DATE}.jsonl", lines)
        extra = ("--strategy", "rank-options")
    else:
        golds = ["A", "D", "B"]
        predictions = {
            str(i): {"origin_prompt": [{"role": "HUMAN", "prompt": prompt_of(item)}], "prediction": "A", "gold": gold}
            for i, (item, gold) in enumerate(zip(CMMLU, golds, strict=True))
        }
        path = write_text(tmp_path / "oc" / "cmmlu-agronomy.json", json.dumps(predictions, ensure_ascii=False))
        extra = ()
    run = tmp_path / "run"
    result = run_cli("run", str(bank), "-b", "replay", "-m", "m", "-B", f"path={path}", *extra, "-o", str(run))
    assert result.exit_code == 0, result.output
    assert "1 answer(s) whose gold in the harness's file is another option" in result.output
    assert "cmmlu/test/agronomy/1: D there, C in the bank" in result.output
    assert records_of(run)["cmmlu/test/agronomy/1"]["harness"]["target"] == ("3" if harness == "lm-eval" else "D")
    as_json = run_cli(
        "run", str(bank), "-b", "replay", "-m", "m", "-B", f"path={path}", *extra, "--json", "-o", str(run)
    )
    assert as_json.exit_code == 0 and "D there, C in the bank" in as_json.output  # --json's stdout had no warning


def test_a_gold_that_names_no_option_is_not_compared() -> None:
    """A fill-in's gold ``2²`` (digits to str.isdigit, not to int()) stopped the run at its summary with a
    traceback; ``٣`` (an Arabic-Indic three) is no index lm-eval writes and named option D."""
    from runners.backends.harness_verdicts import gold_disagreements, target_letter
    from runners.records import RunRecord

    assert [target_letter(t) for t in ("b", "1", "²", "2²", "٣", "", None)] == ["B", "B", None, None, None, None, None]
    common: dict[str, Any] = {"nodes": {}, "subject": "数学", "prompt": "题"}
    fill = RunRecord(question_id="q1", type="fill_in_blank", gold=["4"], harness={"target": "2²"}, **common)
    single = RunRecord(question_id="q2", type="single_choice", gold=["C"], harness={"target": "٣"}, **common)
    other = RunRecord(question_id="q3", type="single_choice", gold=["C"], harness={"target": "3"}, **common)
    assert gold_disagreements([fill, single, other]) == [("q3", "D", "C")]


def test_a_file_from_another_order_of_the_data_is_matched_by_text(tmp_path: Path) -> None:
    ceval_bank(tmp_path)
    swapped = [(0, CEVAL[1], "B"), (1, CEVAL[0], "A")]  # positions swapped: the texts say which is which
    lines = [lm_eval_line(i, item, [[f"答案：{text}"]], "ceval") for i, item, text in swapped]
    samples = write_jsonl(tmp_path / f"samples_ceval-valid_computer_network_{DATE}.jsonl", lines)
    backend = ReplayBackend(str(samples))
    requests = [GenerationRequest(f"ceval/val/computer_network/{i}", prompt_of(CEVAL[i])) for i in (0, 1)]
    assert [r.texts for r in backend.generate(requests)] == [["答案：A"], ["答案：B"]]


def test_a_question_that_cannot_be_matched_is_refused_in_one_line(tmp_path: Path) -> None:
    bank = ceval_bank(tmp_path)
    lines = [lm_eval_line(0, ("某个别的题目", ("1", "2", "3", "4"), "A"), [["A"]], "ceval")]
    samples = write_jsonl(tmp_path / f"samples_ceval-valid_computer_network_{DATE}.jsonl", lines)
    result = run_cli("run", str(bank), "-b", "replay", "-m", str(samples), "-o", str(tmp_path / "run"))
    assert result.exit_code == 2, result.output
    message = result.output.strip().splitlines()[-1]
    assert str(samples) in message and "line 1" in message and "field 'doc.question'" in message
    assert "ceval/val/computer_network/0" in message and "Traceback" not in result.output


def test_opencompass_ppl_record_scores_are_minus_ppl(tmp_path: Path) -> None:
    record = {
        f"label: {x}": {"testing input": "q", "prompt": "q", "PPL": ppl}
        for x, ppl in zip("ABCD", [2.0, 0.5, 3, 4], strict=True)
    }
    path = write_text(tmp_path / "ceval-computer_network.json", json.dumps({"0": {**record, "gold": "B"}}))
    backend = ReplayBackend(str(path))
    assert backend.format == "opencompass"
    request = LoglikelihoodRequest("ceval/val/computer_network/0", "q", (" IP", " HTTP", " FTP", " SMTP"))
    assert backend.loglikelihood([request])[0].logprobs == [-2.0, -0.5, -3.0, -4.0]
    generated = backend.generate([GenerationRequest("ceval/val/computer_network/0", "q")])[0]
    assert generated.error is not None and "rank-options" in generated.error and "record 0" in generated.error


def test_choice_count_mismatch_names_the_line(tmp_path: Path) -> None:
    line = lm_eval_line(0, CMMLU[0], loglikelihoods("A")[:3], "cmmlu")
    path = write_jsonl(tmp_path / f"samples_cmmlu_agronomy_{DATE}.jsonl", [line])
    request = LoglikelihoodRequest("cmmlu/test/agronomy/0", prompt_of(CMMLU[0]), ("a", "b", "c", "d"))
    (result,) = ReplayBackend(str(path)).loglikelihood([request])  # that request fails, named; the run goes on
    assert result.error is not None
    assert re.search(r"line 1 \(record 0\), field 'resps': 3 choice scores.* 4 options", result.error)


@pytest.mark.parametrize(
    ("changes", "field"),
    [({"resps": "A"}, "resps"), ({"resps": [[{"x": 1}], [[1.0, True]]]}, "resps"), ({"doc_id": "7"}, "doc_id")],
)
def test_bad_lm_eval_lines_name_their_field(tmp_path: Path, changes: dict[str, Any], field: str) -> None:
    line = {**lm_eval_line(0, CMMLU[0], [["A"]], "cmmlu"), **changes}
    path = write_jsonl(tmp_path / f"samples_cmmlu_agronomy_{DATE}.jsonl", [line])
    with pytest.raises(InputError, match=rf"line 1.*field '{field}'"):
        ReplayBackend(str(path), format="lm-eval")


def test_bad_opencompass_records_name_their_key(tmp_path: Path) -> None:
    path = write_text(tmp_path / "cmmlu-agronomy.json", json.dumps({"0": {"prediction": "A"}, "1": {"gold": "B"}}))
    with pytest.raises(InputError, match=r"record 1\), field 'prediction'"):
        ReplayBackend(str(path), format="opencompass")


def test_unmatched_questions_are_failed_requests_not_guesses(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / f"samples_cmmlu_agronomy_{DATE}.jsonl", [lm_eval_line(0, CMMLU[0], [["A"]], "cmmlu")])
    backend = ReplayBackend(str(path))
    hit, other_subject, other_position = backend.generate(
        [
            GenerationRequest("cmmlu/test/agronomy/0", prompt_of(CMMLU[0])),
            GenerationRequest("cmmlu/test/anatomy/0", prompt_of(CMMLU[0])),
            GenerationRequest("cmmlu/test/agronomy/5", "另一道题"),
        ]
    )
    assert hit.texts == ["A"]
    assert other_subject.error is not None and other_position.error is not None
    assert "no recorded output" in other_position.error


def test_unknown_format_is_refused() -> None:
    with pytest.raises(InputError, match="unknown replay format 'helm'"):
        ReplayBackend("x.jsonl", format="helm")


@pytest.mark.shared_data
def test_lm_eval_samples_of_the_real_cmmlu_test_split_all_match(shared_data: Path, tmp_path: Path) -> None:
    """A log_samples file per subject of the real CMMLU test split: every question is matched, by position or,
    for one subject written in reverse order, by its text; none is refused."""
    import csv

    folder = tmp_path / "lm"
    for n, file in enumerate(sorted((shared_data / "cmmlu" / "test").glob("*.csv"))):
        with file.open(encoding="utf-8-sig", newline="") as handle:
            rows = list(csv.DictReader(handle))
        docs = [(i, {k: row[k] for k in ("Question", "A", "B", "C", "D", "Answer")}) for i, row in enumerate(rows)]
        if n == 0:  # positions that point at other questions: only the texts can match them
            docs = [(len(docs) - 1 - i, doc) for i, doc in docs]
        lines = [{"doc_id": i, "doc": doc, "resps": [[f"答案：{doc['Answer'].strip()}"]]} for i, doc in docs]
        write_jsonl(folder / f"samples_cmmlu_{file.stem}_{DATE}.jsonl", lines)
    run = tmp_path / "run"
    args = ("run", str(shared_data / "cmmlu" / "test"), "-b", "replay", "-m", "lm", "-B", f"path={folder}")
    result = run_cli(*args, "-o", str(run), "--batch-size", "256")
    assert result.exit_code == 0, result.output
    records = records_of(run)
    assert len(records) > 1000 and all(r["correct"] for r in records.values())


def test_the_same_stem_with_other_options_is_told_apart_by_its_options(tmp_path: Path) -> None:
    same = "下列说法正确的是____"
    first = (same, ("甲对", "乙对", "丙对", "丁对"), "A")
    second = (same, ("一对", "二对", "三对", "四对"), "B")
    lines = [lm_eval_line(0, second, [["二"]], "cmmlu"), lm_eval_line(1, first, [["甲"]], "cmmlu")]  # swapped
    path = write_jsonl(tmp_path / f"samples_cmmlu_agronomy_{DATE}.jsonl", lines)
    requests = [
        GenerationRequest("cmmlu/test/agronomy/0", prompt_of(first)),
        GenerationRequest("cmmlu/test/agronomy/1", prompt_of(second)),
    ]
    assert [r.texts for r in ReplayBackend(str(path)).generate(requests)] == [["甲"], ["二"]]


def test_opencompass_shards_continue_each_others_positions(tmp_path: Path) -> None:
    folder = tmp_path / "predictions" / "m"
    write_text(folder / "cmmlu-agronomy_0.json", json.dumps({"0": {"prediction": "甲"}, "1": {"prediction": "乙"}}))
    write_text(folder / "cmmlu-agronomy_1.json", json.dumps({"0": {"prediction": "丙"}}))
    requests = [GenerationRequest(f"cmmlu/test/agronomy/{i}", "q") for i in range(3)]
    for path in (folder, folder / "cmmlu-agronomy_1.json"):  # a shard alone brings its siblings
        assert [r.texts for r in ReplayBackend(str(path)).generate(requests)] == [["甲"], ["乙"], ["丙"]]


def test_lm_eval_output_folder_is_searched_and_two_runs_of_a_task_are_refused(tmp_path: Path) -> None:
    line = lm_eval_line(0, CMMLU[0], [["A"]], "cmmlu")
    write_jsonl(tmp_path / "out" / "my__model" / f"samples_cmmlu_agronomy_{DATE}.jsonl", [line])
    backend = ReplayBackend(str(tmp_path / "out"))
    assert backend.format == "lm-eval"
    assert backend.generate([GenerationRequest("cmmlu/test/agronomy/0", prompt_of(CMMLU[0]))])[0].texts == ["A"]
    write_jsonl(tmp_path / "out" / "my__model" / "samples_cmmlu_agronomy_2024-06-01T10-00-00.5.jsonl", [line])
    with pytest.raises(InputError, match=r"a second samples file of task 'cmmlu_agronomy'"):
        ReplayBackend(str(tmp_path / "out"))


def test_choice_scores_replayed_without_a_ranking_strategy_are_refused_before_any_record(tmp_path: Path) -> None:
    # lm-eval's cmmlu_* and ceval-valid_* tasks are loglikelihood tasks: a user replaying them as the generic
    # command shows got every question failed and was told to --retry-failed, which fails them again.
    bank = cmmlu_bank(tmp_path)
    lines = [lm_eval_line(i, item, loglikelihoods("A"), "cmmlu") for i, item in enumerate(CMMLU)]
    samples = write_jsonl(tmp_path / "lm" / f"samples_cmmlu_agronomy_{DATE}.jsonl", lines)
    run = tmp_path / "run-ll"
    result = run_cli("run", str(bank), "-b", "replay", "-m", str(samples), "-o", str(run))
    assert result.exit_code == 2, result.output
    said = result.output.strip().splitlines()[-1]
    assert said.startswith("error: --strategy 'generate'") and "--strategy rank-options" in said
    assert samples.name in said and "--retry-failed" not in result.output
    assert not (run / "records.jsonl").exists()


def test_texts_replayed_with_a_ranking_strategy_are_refused_before_any_record(tmp_path: Path) -> None:
    bank = cmmlu_bank(tmp_path)
    lines = [lm_eval_line(i, item, [["答案：A"]], "cmmlu") for i, item in enumerate(CMMLU)]
    samples = write_jsonl(tmp_path / "lm" / f"samples_cmmlu_agronomy_{DATE}.jsonl", lines)
    run = tmp_path / "run-gen"
    result = run_cli("run", str(bank), "-b", "replay", "-m", str(samples), "--strategy", "rank-options", "-o", str(run))
    assert result.exit_code == 2, result.output
    said = result.output.strip().splitlines()[-1]
    assert said.startswith("error: --strategy 'rank-options'") and "--strategy generate" in said
    assert not (run / "records.jsonl").exists()


@pytest.mark.parametrize("subject", ["cmmlu_agronomy", "agronomy"])
def test_a_run_of_subjects_named_as_lm_eval_or_the_bank_does_is_reported(tmp_path: Path, subject: str) -> None:
    # The report read the run's --subjects against questions stripped of their subject keys: every name but
    # the Chinese one stopped it ("no subject of this bank is called so").
    bank = cmmlu_bank(tmp_path)
    lines = [lm_eval_line(i, item, loglikelihoods("A"), "cmmlu") for i, item in enumerate(CMMLU)]
    samples = write_jsonl(tmp_path / "lm" / f"samples_cmmlu_agronomy_{DATE}.jsonl", lines)
    run = tmp_path / "run-ll"
    args = ("run", str(bank), "-b", "replay", "-m", str(samples), "--strategy", "rank-options", "-s", subject)
    result = run_cli(*args, "-o", str(run))
    assert result.exit_code == 0, result.output
    report = tmp_path / "report"
    shown = run_cli("report", str(run), "--out", str(report), "--no-plots")
    assert shown.exit_code == 0, shown.output
    (summary,) = json.loads((report / "summary.json").read_text(encoding="utf-8"))["runs"]
    assert (summary["n"], summary["acc_micro"]) == (3, round(1 / 3, 4))


def test_a_replay_of_some_subjects_over_a_whole_bank_says_to_name_them_not_to_retry(tmp_path: Path) -> None:
    # Replaying lm-eval's cmmlu_agronomy over all of CMMLU failed every other subject's question and said "ask them
    # again with --retry-failed", which replays the same files and fails them again.
    bank = cmmlu_bank(tmp_path)
    write_text(bank / "test" / "anatomy.csv", ",Question,A,B,C,D,Answer\n0,人体最大的器官是____,皮肤,肝,肺,心,A\n")
    lines = [lm_eval_line(i, item, loglikelihoods("A"), "cmmlu") for i, item in enumerate(CMMLU)]
    samples = write_jsonl(tmp_path / "lm" / f"samples_cmmlu_agronomy_{DATE}.jsonl", lines)
    run = tmp_path / "run"
    result = run_cli("run", str(bank), "-b", "replay", "-m", str(samples), "--strategy", "rank-options", "-o", str(run))
    assert result.exit_code == 1, result.output
    said = result.output.strip().splitlines()[-1]
    assert said.startswith("error: 1 of 4 question(s) failed") and "--retry-failed" not in said
    assert "name the subjects the replayed files hold with --subjects" in said, said
