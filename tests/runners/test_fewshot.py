"""Few-shot exemplars: choice, exclusions, seeding, and the token-budget fallback."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kg.errors import InputError
from kg.records import Question
from runners.fewshot import ExemplarPool, fit_prompt, load_ck12_examples
from runners.prompting import build_prompt
from runners.protocol import PROTOCOLS
from tests.importer_helpers import ck12_record, write_jsonl
from tests.qfactory import fill, single


def _dev(n: int = 8, subject: str = "数学", analysis: bool = True) -> list:
    return [
        single(
            ("1", "2", "3", "4"),
            "A",
            id=f"dev{i:02d}",
            subject=subject,
            stem=f"第{i}道练习题的题干",
            analysis="第一步。\n\n第二步。" if analysis else "",
        )
        for i in range(n)
    ]


def test_same_subject_and_type_up_to_five() -> None:
    dev = [*_dev(8), *_dev(3, subject="物理"), fill(["1"], id="f1")]
    pool = ExemplarPool.from_questions(dev)
    chosen = pool.select(single(id="test", stem="新题"))
    assert len(chosen) == 5
    assert all(e.subject == "数学" and e.type.value == "single_choice" for e in chosen)
    assert len(pool.select(single(id="test", subject="物理", stem="新题"))) == 3
    assert pool.select(single(id="test", subject="化学", stem="新题")) == []


def test_never_the_question_itself_nor_its_stem() -> None:
    dev = _dev(6)
    pool = ExemplarPool.from_questions(dev, seed=None)  # file order: dev00 comes first
    itself = pool.select(dev[0])
    assert "dev00" not in [e.id for e in itself] and len(itself) == 5
    same_stem = single(id="elsewhere", stem=" 第1道练习题的题干 ")  # another id, the same stem
    assert "dev01" not in [e.id for e in pool.select(same_stem)]


def test_seeded_order_is_reproducible_and_independent_of_input_order() -> None:
    dev = _dev(12)
    question = single(id="test", stem="新题")
    first = [e.id for e in ExemplarPool.from_questions(dev, seed=7).select(question)]
    again = [e.id for e in ExemplarPool.from_questions(dev[::-1], seed=7).select(question)]
    other = [e.id for e in ExemplarPool.from_questions(dev, seed=8).select(question)]
    assert first == again
    assert first != other


def test_cot_passes_over_exemplars_without_analysis() -> None:
    dev = [*_dev(3, analysis=False), single(id="withanalysis", stem="有解析的题", analysis="一步。")]
    pool = ExemplarPool.from_questions(dev)
    assert [e.id for e in pool.select(single(id="t", stem="新题"), cot=True)] == ["withanalysis"]
    assert len(pool.select(single(id="t", stem="新题"), cot=False)) == 4


def _shots(text: str) -> int:
    return len(re.findall(r"例\d+: ", text))


def test_budget_falls_back_from_five_to_three_to_one() -> None:
    pool = ExemplarPool.from_questions(_dev(8))
    question = single(id="test", stem="新题")
    sizes = {n: len(build_prompt(question, "few-shot", exemplars=pool.select(question, n)).text) for n in (1, 3, 5)}

    def fitted(budget: int) -> int:
        prompt = fit_prompt(question, "few-shot", "zh", pool, count_tokens=len, budget=budget)
        assert prompt.shots == _shots(prompt.text)
        return prompt.shots

    assert fitted(sizes[5]) == 5
    assert fitted(sizes[5] - 1) == 3
    assert fitted(sizes[3]) == 3
    assert fitted(sizes[3] - 1) == 1
    over = fit_prompt(question, "few-shot", "zh", pool, count_tokens=len, budget=10)
    assert over.shots == 1 and over.over_budget
    assert not fit_prompt(question, "few-shot", "zh", pool, count_tokens=len, budget=sizes[1]).over_budget


def test_budget_counts_with_the_given_tokenizer() -> None:
    calls: list[str] = []

    def count(text: str) -> int:
        calls.append(text)
        return len(text) // 2  # a "tokenizer" with two characters a token

    pool = ExemplarPool.from_questions(_dev(8))
    question = single(id="test", stem="新题")
    size5 = len(build_prompt(question, "few-shot", exemplars=pool.select(question, 5)).text)
    prompt = fit_prompt(question, "few-shot", "zh", pool, count_tokens=count, budget=size5 // 2)
    assert prompt.shots == 5 and calls == [prompt.text]


def test_cmmlu_drops_the_longest_exemplar_first() -> None:
    dev = _dev(4)
    dev.append(single(id="long", stem="很长的题干" * 40, analysis=""))
    pool = ExemplarPool.from_questions(dev)
    question = single(id="test", stem="新题")
    everything = fit_prompt(question, "few-shot", "zh", pool, template_set="cmmlu")
    assert everything.shots == 5
    shorter = fit_prompt(
        question, "few-shot", "zh", pool, count_tokens=len, budget=len(everything.text) - 1, template_set="cmmlu"
    )
    assert shorter.shots == 4 and "long" not in shorter.exemplar_ids
    none = fit_prompt(question, "few-shot", "zh", pool, count_tokens=len, budget=5, template_set="cmmlu")
    assert none.shots == 0 and none.over_budget


def test_cmmlu_drops_exemplars_tied_for_longest_together() -> None:
    # CMMLU's gen_prompt removes every example of the longest length in one step (#16 item 10).
    dev = _dev(3)
    dev += [single(id=f"long{i}", stem=f"很长的题干{i}" * 40, analysis="") for i in (1, 2)]
    pool = ExemplarPool.from_questions(dev)
    question = single(id="test", stem="新题")
    everything = fit_prompt(question, "few-shot", "zh", pool, template_set="cmmlu")
    assert everything.shots == 5
    shorter = fit_prompt(
        question, "few-shot", "zh", pool, count_tokens=len, budget=len(everything.text) - 1, template_set="cmmlu"
    )
    assert shorter.shots == 3 and not {"long1", "long2"} & set(shorter.exemplar_ids)


def test_zero_shot_ignores_the_pool() -> None:
    pool = ExemplarPool.from_questions(_dev(8))
    assert fit_prompt(single(id="t"), "zero-shot-cot", "zh", pool, count_tokens=len, budget=1).shots == 0


def test_budget_with_a_real_tokenizer() -> None:
    tokenizers = pytest.importorskip("tokenizers")
    tokenizer = tokenizers.Tokenizer(tokenizers.models.BPE(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    trainer = tokenizers.trainers.BpeTrainer(vocab_size=300, special_tokens=["[UNK]"])
    tokenizer.train_from_iterator(
        ["下面是一道选择题，请选出正确的选项。", "例1: 题干 答案: A", "1 2 3 4 A B C D"], trainer
    )

    def count(text: str) -> int:
        return len(tokenizer.encode(text).ids)

    pool = ExemplarPool.from_questions(_dev(8))
    question = single(id="test", stem="新题")
    full = fit_prompt(question, "few-shot", "zh", pool, count_tokens=count, budget=10_000)
    assert full.shots == 5
    tight = fit_prompt(question, "few-shot", "zh", pool, count_tokens=count, budget=count(full.text) - 1)
    assert tight.shots == 3 and count(tight.text) < count(full.text)


def test_ck12_example_files(tmp_path: Path) -> None:
    path = tmp_path / "few_shot_examples.json"
    examples = {
        "数学": {
            "单选": [
                {"prompt": "自编例题：1+1=（  ）\nA.1\n B.2\n C.3\n D.4\n", "answer": "B"},
                {"id": "x2", "prompt": "自编例题：2+2=（  ）\nA.4\n B.2\n", "answer": "A", "analysis": "2+2=4"},
            ],
            "排序": [],
        }
    }
    path.write_text(json.dumps(examples, ensure_ascii=False), "utf-8")
    exemplars = load_ck12_examples(path)
    assert [e.id for e in exemplars] == ["数学/单选/0", "x2"]
    pool = ExemplarPool(exemplars, seed=None)
    text = build_prompt(single(id="t"), "few-shot", exemplars=pool.select(single(id="t"))).text
    assert "例1: 自编例题：1+1=（  ）\nA.1\n B.2\n C.3\n D.4 答案: B\n例2: 自编例题：2+2=" in text
    # A question whose stem is inside a ready-written example is not shown its own example.
    assert [e.id for e in pool.select(single(id="t", stem="自编例题：1+1=（  ）"))] == ["x2"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[1, 2]", "expected an object"),
        ('{"数学": {"单选": [{"prompt": ""}]}}', r"数学/单选 example 1, field 'prompt'"),
        ('{"数学": {"问答": []}}', "unknown question type"),
        ("{not json", "not valid JSON"),
    ],
)
def test_bad_example_files_name_file_and_record(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "examples.json"
    path.write_text(content, "utf-8")
    with pytest.raises(InputError, match=message) as error:
        load_ck12_examples(path)
    assert str(path) in str(error.value)


def test_few_shot_file_or_bank_is_told_by_its_layout(tmp_path: Path) -> None:
    # --few-shot takes CK12's released example files as well as a question bank (#16 item 7).
    from runners.fewshot import is_ck12_examples_file, load_exemplar_pool

    examples = tmp_path / "renamed.json"
    examples.write_text(
        json.dumps({"数学": {"单选": [{"prompt": "例：1+1=（  ）\nA.1\n B.2", "answer": "B"}]}}, ensure_ascii=False),
        "utf-8",
    )
    assert is_ck12_examples_file(examples)
    pool = load_exemplar_pool(examples, seed=3)
    assert [e.answer_text for e in pool.select(single(id="t"))] == ["B"]
    bank = write_jsonl(tmp_path / "dev.jsonl", [ck12_record(id="d1")])
    assert not is_ck12_examples_file(bank)
    assert [e.id for e in load_exemplar_pool(bank)] == ["d1"]


@pytest.mark.shared_data
@pytest.mark.parametrize(
    ("name", "mode"), [("few_shot_examples.json", "few-shot"), ("few_shot_cot_examples.json", "few-shot-cot")]
)
def test_the_released_example_files_drive_few_shot_prompts(shared_data: Path, name: str, mode: str) -> None:
    from kg.importers import load_questions
    from runners.fewshot import load_exemplar_pool

    pool = load_exemplar_pool(shared_data / "ck12" / name)
    bank = load_questions(shared_data / "ck12" / "original_data" / "初中" / "数学").questions
    question = next(q for q in bank if q.type.value == "single_choice")
    prompt = fit_prompt(question, mode, "zh", pool)  # type: ignore[arg-type]
    assert prompt.shots == 5 and "例5:" in prompt.text
    assert prompt.exemplar_ids[:1] == tuple(e.id for e in pool.select(question, cot=mode.endswith("cot")))[:1]


def test_xiezhi_exemplars_share_at_least_two_labels() -> None:
    # Xiezhi's rule (#16 item 6): an exemplar shares two or more discipline labels with the question.
    def xiezhi(qid: str, subject: str, labels: list[str]) -> Question:
        return single(id=qid, source="xiezhi", subject=subject, stem=f"题{qid}", extra={"labels": labels})

    question = xiezhi("q", "理学", ["理学", "数学", "基础数学"])
    pool = ExemplarPool.from_questions(
        [
            xiezhi("two", "理学", ["理学", "数学"]),
            xiezhi("one", "理学", ["理学", "物理学"]),  # same 门类, one label shared: not an exemplar
            xiezhi("other-subject", "工学", ["数学", "基础数学", "工学"]),
            xiezhi("q", "理学", ["理学", "数学", "基础数学"]),  # the question itself
        ],
        match=PROTOCOLS["xiezhi"].exemplar_match,
    )
    assert sorted(e.id for e in pool.select(question)) == ["other-subject", "two"]


def test_a_single_label_xiezhi_question_gets_exemplars_sharing_its_label() -> None:
    # #26 item 1: 4 % of Xiezhi's questions have one label and silently got no exemplar (two cannot be shared).
    def xiezhi(qid: str, labels: list[str]) -> Question:
        return single(id=qid, source="xiezhi", subject="历史学", stem=f"题{qid}", extra={"labels": labels})

    question = xiezhi("q", ["历史学"])
    pool = ExemplarPool.from_questions(
        [xiezhi("same", ["历史学", "中国史"]), xiezhi("alone", ["历史学"]), xiezhi("other", ["文学"])],
        match=PROTOCOLS["xiezhi"].exemplar_match,
    )
    assert sorted(e.id for e in pool.select(question, k=3)) == ["alone", "same"]


def _examples(tmp_path: Path, items: list[dict[str, str]]) -> Path:
    path = tmp_path / "few_shot_examples.json"
    path.write_text(json.dumps({"数学": {"单选": items}}, ensure_ascii=False), encoding="utf-8")
    return path


def test_a_pool_a_mode_can_show_nothing_of_is_refused(tmp_path: Path) -> None:
    """CK12's few_shot_examples.json has no analyses: few-shot-CoT showed 0 exemplars, silently (#31 item 6)."""
    from runners.fewshot import load_exemplar_pool

    plain = _examples(tmp_path, [{"prompt": f"自编例题{i}：1+{i}=（ ）A.1 B.2", "answer": "B"} for i in range(3)])
    assert len(load_exemplar_pool(plain, mode="few-shot")) == 3  # shown with their answers: fine
    with pytest.raises(InputError, match=r"none of its 3 exemplars has an analysis.*few_shot_cot_examples\.json"):
        load_exemplar_pool(plain, mode="few-shot-cot")
    empty = _examples(tmp_path, [])
    with pytest.raises(InputError, match="holds no exemplar; mode='few-shot' needs some"):
        load_exemplar_pool(empty, mode="few-shot")
    assert len(load_exemplar_pool(empty, mode="zero-shot")) == 0  # a zero-shot mode never shows the pool


def test_the_run_refuses_it_before_asking(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from k12eval.cli import app

    bank = write_jsonl(tmp_path / "bank" / "初中" / "数学" / "单选.jsonl", [ck12_record()])
    plain = _examples(tmp_path, [{"prompt": "自编例题：1+1=（ ）A.1 B.2", "answer": "B"}])
    for extra in ((), ("--dry-run",)):
        out = tmp_path / "run"
        args = ["run", str(bank.parents[2]), "-m", "x", "-b", "replay", "--mode", "few-shot-cot"]
        result = CliRunner().invoke(app, [*args, "--few-shot", str(plain), "-o", str(out), *extra])
        assert result.exit_code == 2, result.output
        assert "none of its 1 exemplars has an analysis" in result.output and not (out / "run.json").exists()


def test_a_bank_of_your_own_takes_its_exemplars_through_the_same_mapping(tmp_path: Path) -> None:
    """``--few-shot dev.csv`` beside ``--mapping``: the dev file was read without the mapping and refused,
    'pass --mapping', which had been passed."""
    from typer.testing import CliRunner

    from k12eval.cli import app

    header = "编号,题型,题目,A,B,C,D,答案,章\n"
    bank = tmp_path / "bank.csv"
    bank.write_text(header + "t1,单选,下列物体中属于导体的是,塑料尺,铜钥匙,橡皮,玻璃杯,B,电学\n", encoding="utf-8")
    dev = tmp_path / "dev.csv"
    dev.write_text(header + "d1,单选,一杯水结成冰后，它的质量将,变大,变小,不变,无法确定,C,电学\n", encoding="utf-8")
    mapping = tmp_path / "m.toml"
    mapping.write_text(
        'id = "编号"\ntype = "题型"\nstem = "题目"\noptions = ["A", "B", "C", "D"]\nanswer = "答案"\n'
        'subject = { value = "物理" }\nlevel1 = "章"\n',
        encoding="utf-8",
    )
    args = ["run", str(bank), "--mapping", str(mapping), "-m", "x", "--mode", "few-shot", "--few-shot", str(dev)]
    result = CliRunner().invoke(app, [*args, "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "一杯水结成冰后" in result.output and "下列物体中属于导体的是" in result.output
