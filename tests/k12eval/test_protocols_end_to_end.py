"""Every seed protocol end to end (#26 deliver 3): the real ``run`` with the tests' tiny transformers model,
``score`` for the CoT modes, then ``report``, on a few questions written here in each benchmark's own layout.

Each case asserts the records (how many, their shots, ranks or answers), the protocol ``run.json`` names
(chosen from the bank's format: no ``--templates`` is given) and the report's table for that benchmark.
The runs share one model build; scoring uses all-MiniLM-L6-v2 (a PyPI package) with no NLI model.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests._cli import cli_ok
from tests._runs import question, write_bank

pytestmark = [pytest.mark.slow, pytest.mark.real_model, pytest.mark.usefixtures("offline")]


def _table(report: Path, name: str) -> list[dict[str, str]]:
    with (report / "tables" / f"{name}.csv").open(encoding="utf-8-sig") as handle:
        return list(csv.DictReader(handle))


# --- the banks, each in its benchmark's published layout -------------------------------------------------


def ck12_bank(root: Path) -> tuple[Path, Path]:
    """A CK12 release folder (original_data/初中/<subject>/<type>.jsonl) and a few_shot_examples.json."""
    analysis = "先求出每盒的支数。\n\n再乘以盒数，得到 36。"
    questions = [
        question("m1", "数学", "数与代数", "乘法", stem="3盒笔，每盒12支，共有多少支？", options=["36", "15", "9", "4"],
                 analysis=analysis),
        question("m2", "数学", "数与代数", "判断", "judgment", stem="判断下列说法是否正确。",
                 options=["0是自然数。", "1是质数。"], answer=[True, False]),
        question("e1", "英语", "语法", "介词", stem="It's very kind ___ you.", options=["of", "for", "to", "with"]),
    ]  # fmt: skip
    bank = write_bank(root / "ck12", questions)
    examples = {
        "数学": {
            "单选": [{"prompt": "1+1=（  ）\nA.2\nB.3\nC.4\nD.5", "answer": "A", "analysis": "1加1等于2。\n\n选A。"}],
            "判断": [{"prompt": "判断：1. 2是偶数。2. 3是偶数。", "answer": "TF", "analysis": "2能被2整除，3不能。"}],
        },
        "英语": {
            "单选": [{"prompt": "I ___ a student.\nA.am\nB.is\nC.are\nD.be", "answer": "A", "analysis": "I 用 am。"}]
        },
    }
    few_shot = root / "few_shot_examples.json"
    few_shot.write_text(json.dumps(examples, ensure_ascii=False), encoding="utf-8")
    return bank, few_shot


def cmmlu_bank(root: Path) -> tuple[Path, Path]:
    """CMMLU's dev/ and test/ CSV files (an unnamed index column, Question,A,B,C,D,Answer)."""
    header = ",Question,A,B,C,D,Answer\n"
    (root / "cmmlu" / "dev").mkdir(parents=True)
    (root / "cmmlu" / "test").mkdir(parents=True)
    (root / "cmmlu" / "dev" / "high_school_physics.csv").write_text(
        header + "0,电流的单位是,安培,伏特,欧姆,瓦特,A\n1,力的单位是,焦耳,牛顿,帕斯卡,瓦特,B\n", encoding="utf-8"
    )
    (root / "cmmlu" / "test" / "high_school_physics.csv").write_text(
        header + "0,电阻的国际单位是,安培,伏特,欧姆,瓦特,C\n"
        '1,"Which quantity is measured in newtons?",Mass,Force,Energy,Power,B\n'
        "2,光在真空中的速度约为,3×10^8 m/s,3×10^5 m/s,340 m/s,1500 m/s,A\n",
        encoding="utf-8",
    )
    return root / "cmmlu" / "test", root / "cmmlu" / "dev"


def ceval_bank(root: Path) -> Path:
    """C-Eval's val/<subject>_val.csv (id,question,A,B,C,D,answer)."""
    (root / "ceval" / "val").mkdir(parents=True)
    (root / "ceval" / "val" / "middle_school_physics_val.csv").write_text(
        "id,question,A,B,C,D,answer\n0,声音在下列哪种介质中传播最快？____,空气,水,钢铁,真空,C\n"
        "1,下列哪个是导体？____,塑料,铜,玻璃,橡胶,B\n",
        encoding="utf-8",
    )
    return root / "ceval" / "val"


def _xiezhi(question_text: str, labels: list[str], answer: str, options: list[str]) -> str:
    record = {"question": question_text, "labels": labels, "answer": answer, "options": "\n".join(options)}
    return json.dumps(record, ensure_ascii=False) + "\n"


def xiezhi_bank(root: Path, language: str) -> tuple[Path, Path]:
    """A Xiezhi file and a training file of the same language (JSONL: question, labels, answer, options)."""
    folder = root / f"xiezhi_{language}"
    folder.mkdir(parents=True)
    if language == "chn":
        test = [
            _xiezhi(
                "中国历史上第一个奴隶制国家建立于_____",
                ["历史学"],
                "禹时期",
                ["尧时期", "禹时期", "黄帝时期", "舜时期"],
            ),
            _xiezhi(
                "牛顿第一定律又称_____",
                ["理学", "物理学"],
                "惯性定律",
                ["惯性定律", "万有引力定律", "欧姆定律", "胡克定律"],
            ),
        ]
        train = [
            _xiezhi("秦朝建立于公元前_____年", ["历史学", "中国史"], "221", ["221", "206", "220", "618"]),
            _xiezhi("力的单位是_____", ["理学", "物理学"], "牛顿", ["牛顿", "焦耳", "瓦特", "安培"]),
        ]
    else:
        test = [
            _xiezhi(
                "The unit of force is _____", ["Science", "Physics"], "newton", ["joule", "newton", "watt", "ampere"]
            ),
            _xiezhi(
                "The first emperor of Qin was _____",
                ["History"],
                "Qin Shi Huang",
                ["Liu Bang", "Qin Shi Huang", "Li Shimin", "Kublai"],
            ),
        ]
        train = [
            _xiezhi("The unit of current is _____", ["Science", "Physics"], "ampere", ["ampere", "volt", "ohm", "watt"]),
            _xiezhi("The Han dynasty was founded by _____", ["History", "Chinese History"], "Liu Bang", ["Liu Bang", "Xiang Yu", "Cao Cao", "Sun Quan"]),
        ]  # fmt: skip
    data = folder / f"xiezhi_spec_{language}.jsonl"
    data.write_text("".join(test), encoding="utf-8")
    dev = root / f"xiezhi_train_{language}.jsonl"
    dev.write_text("".join(train), encoding="utf-8")
    return data, dev


# --- the cases ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One seed protocol as a run asks it, and what the run and report must then hold."""

    name: str
    bank: str
    mode: str
    protocol: str
    template_set: str
    strategy: str
    table: str
    args: tuple[str, ...] = ()


CASES = [
    Case("ck12-zero-shot", "ck12", "zero-shot", "ck12", "ck12", "generate", "ck12_table1_type_by_mode"),
    Case("ck12-few-shot", "ck12", "few-shot", "ck12", "ck12", "generate", "ck12_table1_type_by_mode"),
    Case("ck12-zero-shot-cot", "ck12", "zero-shot-cot", "ck12", "ck12", "generate", "ck12_table1_type_by_mode"),
    Case("ck12-few-shot-cot", "ck12", "few-shot-cot", "ck12", "ck12", "generate", "ck12_table1_type_by_mode"),
    Case("cmmlu-zero-shot", "cmmlu", "zero-shot", "cmmlu", "cmmlu", "next-token", "cmmlu_categories"),
    Case("cmmlu-few-shot", "cmmlu", "few-shot", "cmmlu", "cmmlu", "next-token", "cmmlu_categories"),
    Case("cmmlu-perplexity", "cmmlu", "zero-shot", "cmmlu", "cmmlu", "perplexity", "cmmlu_categories",
         ("--strategy", "perplexity")),
    Case("ceval-zero-shot", "ceval", "zero-shot", "ceval", "ceval", "next-token", "cmmlu_categories"),
    # Two questions a bank: too few to draw Xiezhi's 50 options from, so the file's 4 (#31 item 5)
    Case("xiezhi-zh-rank", "xiezhi-chn", "few-shot", "xiezhi", "xiezhi", "rank-options", "xiezhi_ranking",
         ("--variant", "original")),
    Case("xiezhi-zh-generate", "xiezhi-chn", "zero-shot", "xiezhi", "xiezhi", "generate", "xiezhi_split",
         ("--strategy", "generate", "--variant", "original")),
    Case("xiezhi-en-rank", "xiezhi-eng", "zero-shot", "xiezhi", "xiezhi", "rank-options", "xiezhi_ranking",
         ("--variant", "original")),
    Case("xiezhi-en-generate", "xiezhi-eng", "few-shot", "xiezhi", "xiezhi", "generate", "xiezhi_split",
         ("--strategy", "generate", "--variant", "original")),
]  # fmt: skip


def _bank(case: Case, root: Path) -> tuple[Path, Path | None]:
    if case.bank == "ck12":
        return ck12_bank(root)
    if case.bank == "cmmlu":
        return cmmlu_bank(root)
    if case.bank == "ceval":
        return ceval_bank(root), None
    return xiezhi_bank(root, case.bank.split("-")[1])


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_seed_protocol_runs_scores_and_reports_end_to_end(case: Case, tiny_qwen2: Path, tmp_path: Path) -> None:
    data, dev = _bank(case, tmp_path / "banks")
    run, report = tmp_path / "run", tmp_path / "report"
    cot = case.mode.endswith("cot")
    args = ["run", str(data), "-m", str(tiny_qwen2), "-o", str(run), "--mode", case.mode, "-q"]
    args += ["--max-tokens", "24" if cot else "8", *case.args]
    if cot:  # sampled: greedy, the random model writes only line breaks, a chain of no steps
        args += ["--temperature", "1.0"]
    if case.mode.startswith("few-shot"):
        assert dev is not None
        args += ["--few-shot", str(dev)]
    cli_ok(*args)

    header = json.loads((run / "run.json").read_text(encoding="utf-8"))
    protocol = header["protocol"]
    assert (protocol["name"], protocol["template_set"], header["strategy"]) == (
        case.protocol,
        case.template_set,
        case.strategy,
    )
    own = {"cmmlu": "next-token", "xiezhi": "rank-options"}.get(case.protocol)
    expected = {"strategy": {"protocol": own, "given": case.strategy}} if "--strategy" in case.args else {}
    if "--variant" in case.args:
        expected["variant"] = {"protocol": "options-50", "given": "original"}
    assert protocol["overrides"] == expected
    if case.strategy == "rank-options":  # the release's length normalisation, named (#31 item 5)
        assert protocol["rank_norm"] == "mean-token"
    records = [json.loads(line) for line in (run / "records.jsonl").read_text(encoding="utf-8").splitlines()]
    _check_records(case, records)

    if cot:  # only a chain of thought has steps to score
        cli_ok("score", str(run), "--embedder", "all-MiniLM-L6-v2", "--nli", "none")
        scored = (run / "scores.jsonl").read_text(encoding="utf-8").splitlines()
        written = {r["question_id"] for r in records if r["output"] and r["output"].strip()}
        assert written and {json.loads(line)["question_id"] for line in scored} == written
    cli_ok("report", str(run), "-o", str(report), "--no-plots")
    _check_report(case, report, run.name, len(records))
    if cot:  # CK12 Table 2 reads the step scores
        (table2,) = _table(report, "ck12_table2_cot_step_scores")
        assert table2["mode"] == case.mode and int(table2["n"]) >= 1


def _check_records(case: Case, records: list[dict[str, Any]]) -> None:
    assert records and all(r["parse_status"] != "failed" for r in records), records
    few = case.mode.startswith("few-shot")
    shots = [r["shots"] for r in records]
    assert all(s == 0 for s in shots) if not few else any(s > 0 for s in shots)
    if case.strategy in ("rank-options", "perplexity"):
        for record in records:
            assert record["gold_rank"] in range(1, 5) and len(record["option_scores"]) == 4
    elif case.strategy == "next-token":
        assert all(r["extracted"] and r["extracted"][0] in "ABCD" for r in records)
    else:
        assert all(r["output"] is not None for r in records)
    prompts = [r["prompt"][-1]["content"] for r in records]  # the tiny model is a chat model
    if case.protocol in ("ck12", "cmmlu", "ceval"):  # Chinese prompts, the English questions too
        expected = {"cmmlu": "以下是关于", "ceval": "以下是中国关于"}.get(case.template_set)
        expected = expected or ("请选出" if few else "下面是一道")
        assert all(p.startswith(expected) for p in prompts if "判断" not in p[:12]), prompts
    elif case.bank.endswith("eng"):
        assert all(p.startswith("Below you will be asked") for p in prompts)
    else:
        assert all(p.startswith("下面请你作为一个答题者") for p in prompts)


def _check_report(case: Case, report: Path, run_id: str, answered: int) -> None:
    rows = _table(report, case.table)
    assert rows, f"{case.table} is empty"
    if case.table == "ck12_table1_type_by_mode":
        # The paper's orientation: a row per type (then overall, then asked / in bank), in this run's mode.
        assert {"single_choice", "judgment", "overall", "asked / in bank"} <= {r["type"] for r in rows}
        assert {r["mode"] for r in rows} == {case.mode}
        caption = (report / "tables" / f"{case.table}.md").read_text(encoding="utf-8")
        assert "Judgment scored per statement" in caption  # the CK12 protocol's judgment rule
    elif case.table == "cmmlu_categories":
        assert [r["run"] for r in rows] == [run_id]
    elif case.table == "xiezhi_ranking":
        by_run = {r["run"]: r for r in rows}
        assert int(by_run[run_id]["n"]) == answered and "Random-Guess" in by_run
        assert by_run["Random-Guess"]["Hit@1"] == "25.0"  # four options
    else:
        (row,) = rows
        assert int(row["Specialty n"]) == answered  # two or fewer disciplines each: Xiezhi-Specialty


def test_the_perplexity_scores_are_the_models_own_perplexity_of_question_and_option(
    tiny_qwen2: Path, tmp_path: Path
) -> None:
    # CMMLU's perplexity strategy (#26 item 7) on the real model: each option's score is -log(perplexity) of the
    # prompt text followed by the option, every token scored after the tokenizer's first special token.
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    data, _ = cmmlu_bank(tmp_path / "banks")
    run = tmp_path / "run"
    cli_ok("run", str(data), "-m", str(tiny_qwen2), "-o", str(run), "--strategy", "perplexity", "--limit", "1", "-q")
    (record,) = [json.loads(line) for line in (run / "records.jsonl").read_text(encoding="utf-8").splitlines()]
    text = record["prompt"][-1]["content"]
    tokenizer = AutoTokenizer.from_pretrained(tiny_qwen2)
    model = AutoModelForCausalLM.from_pretrained(tiny_qwen2, torch_dtype=torch.float32)
    start = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
    expected = {}
    for label, option in zip("ABCD", ["安培", "伏特", "欧姆", "瓦特"], strict=True):
        ids = [start, *tokenizer(text + option, add_special_tokens=False)["input_ids"]]
        with torch.no_grad():
            logits = model(torch.tensor([ids])).logits[0, :-1].log_softmax(-1)
        picked = logits[torch.arange(len(ids) - 1), torch.tensor(ids[1:])]
        expected[label] = float(picked.mean())  # -log(perplexity)
    assert record["option_scores"] == pytest.approx(expected, abs=1e-4)
    assert record["extracted"] == [max(expected, key=lambda k: expected[k])]
