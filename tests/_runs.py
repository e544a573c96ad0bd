"""Build small question banks and run folders for the aggregate and report tests (our own fixtures)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.graph import node_ids
from kg.records import Knowledge, Option, Question, QuestionType, Stage, subject_group
from runners.records import RunHeader, RunRecord
from runners.store import RunStore


def question(
    qid: str,
    subject: str,
    level1: str,
    level2: str,
    qtype: str = "single_choice",
    *,
    difficulty: str | None = "易",
    stem: str = "",
    options: list[str] | None = None,
    answer: list[str] | list[bool] | None = None,
    analysis: str = "",
    stage: str = "middle",
    variant: str = "original",
) -> Question:
    """A question with sensible defaults: four options A-D and answer A for choice questions."""
    kind = QuestionType(qtype)
    texts = options if options is not None else ["一", "二", "三", "四"]
    if kind is QuestionType.JUDGMENT:
        opts = [Option(label=str(i + 1), text=t) for i, t in enumerate(texts[:2])]
        gold: list[str] | list[bool] = answer if answer is not None else [True, False]
    elif kind is QuestionType.FILL:
        opts, gold = [], answer if answer is not None else ["5"]
    elif kind is QuestionType.CLOZE:
        opts = [Option(label=lab, text=t, blank=1) for lab, t in zip("ABCD", texts, strict=False)]
        gold = answer if answer is not None else ["A"]
    else:
        opts = [Option(label=lab, text=t) for lab, t in zip("ABCDEFGHIJKLMN", texts, strict=False)]
        gold = answer if answer is not None else ["A"]
    return Question(
        id=qid,
        source="ck12",
        stage=Stage(stage),
        subject=subject,
        group=subject_group(subject),
        type=kind,
        stem=stem or f"题目 {qid}",
        options=opts,
        answer=gold,
        analysis=analysis,
        knowledge=Knowledge(category="知识点", level1=level1, level2=level2, path=[level1, level2]),
        difficulty=difficulty,
        variant=variant,
    )


_VARIANT_DIRS = {
    "original": "original_data",
    "shuffled": "shuffle_options",
    "distractors": "adding_10_distractor_options",
}


def write_bank(root: Path, questions: list[Question], variant: str = "original") -> Path:
    """Write questions as a CK12 release folder (``<variant dir>/<stage>/<subject>/<type>.jsonl``); returns root."""
    for q in questions:
        assert q.stage is not None
        folder = root / _VARIANT_DIRS[variant] / q.stage.zh / q.subject
        folder.mkdir(parents=True, exist_ok=True)
        if q.type is QuestionType.JUDGMENT:
            answer = "".join("T" if a else "F" for a in q.answer)
        elif q.type is QuestionType.FILL:
            answer = ";".join(map(str, q.answer))
        else:
            answer = "".join(map(str, q.answer))
        record = {
            "id": q.id,
            "prompt": q.stem,
            "answer_option": [f"{o.label}.{o.text}" for o in q.options],
            "answer": answer,
            "analysis": q.analysis,
            "task_type": q.type.zh,
            "task_subject": q.subject,
            "task_grade": q.stage.zh,
            "task_semester": "",
            "difficulty": q.difficulty or "",
            "knowledge_tree": "-".join(q.knowledge.path),
            "knowledge_domain": [q.stage.zh, q.subject, "知识点", q.knowledge.level1, q.knowledge.level2],
        }
        with (folder / f"{q.type.zh}.jsonl").open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return root


@dataclass
class Answer:
    """How the synthetic model answered one question."""

    correct: bool | None
    status: str = "ok"
    output: str = "正确答案是：A"
    extracted: list[str] | list[bool] | None = None
    gold_rank: int | None = None
    option_scores: dict[str, float] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def write_run(
    run_dir: Path,
    questions: dict[str, Question],
    answers: dict[str, Answer],
    *,
    model: str = "tiny-model",
    mode: str = "zero-shot",
    variant: str = "original",
    strategy: str = "generate",
    bank: Path | None = None,
) -> Path:
    """A run folder written through the real run store; ``answers`` keyed by question id."""
    header = RunHeader(
        model=model,
        backend="replay",
        mode=mode,  # type: ignore[arg-type]
        strategy=strategy,  # type: ignore[arg-type]
        variant=variant,
        data={"path": str(bank), "format": "ck12", "variant": variant} if bank else {},
    )
    store = RunStore(run_dir)
    store.open(header)
    records = []
    for qid, answer in answers.items():
        q = questions[qid]
        records.append(
            RunRecord(
                question_id=qid,
                nodes=node_ids(q),
                subject=q.subject,
                type=q.type.value,
                stage=q.stage.value if q.stage else None,
                variant=variant,
                prompt=f"题目：{q.stem}",
                output=answer.output if answer.status != "failed" else None,
                extracted=answer.extracted if answer.extracted is not None else (q.answer if answer.correct else None),
                gold=q.answer,
                parse_status=answer.status,  # type: ignore[arg-type]
                correct=answer.correct,
                gold_rank=answer.gold_rank,
                option_scores=answer.option_scores,
                **answer.extra,
            )
        )
    store.append(records)
    return run_dir


def write_scores(run_dir: Path, lines: list[dict[str, Any]]) -> None:
    """Append score records as ``k12eval score`` writes them; each line gives ``question_id`` and what it sets.

    Validated with the scorer's own record model, so a fixture cannot drift from what the scorer writes.
    """
    from reasoning_metrics.score_store import ScoreRecord

    with (run_dir / "scores.jsonl").open("a", encoding="utf-8") as handle:
        for line in lines:
            record = ScoreRecord.model_validate({"id": line["question_id"], "lang": "zh", "nodes": {}, **line})
            handle.write(record.model_dump_json() + "\n")


def write_answers(path: Path, ids: Any, output: str = "A") -> Path:
    """A replay file (``-b replay -B path=...``) answering each question id with ``output``."""
    path.write_text("".join(json.dumps({"question_id": qid, "output": output}) + "\n" for qid in ids), "utf-8")
    return path


def payload_report(
    root: Path, ok_stem: str, payloads: dict[str, str], output: Callable[[Question, str], str]
) -> tuple[str, list[str]]:
    """A CoT run and its report (no plots) under ``root``: a question ``ok`` with ``ok_stem``, and one question
    ``z-NAME`` a payload with the payload in its stem and analysis, answered with ``output(question, payload)``
    (``ok``'s payload is empty). Returns the page's URI and the question ids."""
    from reports import write_report

    qs = [question("ok", "数学", "数与式", "分数", stem=ok_stem)]
    qs += [
        question(f"z-{name}", "数学", "数与式", "分数", stem=f"题目 {name}：{payload}", analysis=payload)
        for name, payload in payloads.items()
    ]
    bank = write_bank(root / "bank", qs)
    answers = {q.id: Answer(True, output=output(q, payloads.get(q.id[2:], ""))) for q in qs}
    run = write_run(root / "run", {q.id: q for q in qs}, answers, mode="zero-shot-cot", bank=bank)
    write_report([run], root / "report", plots=False)
    return (root / "report" / "index.html").resolve().as_uri(), [q.id for q in qs]


def small_bank() -> dict[str, Question]:
    """Eight questions in two subjects; the numbers in test_aggregate.py are worked out from these."""
    qs = [
        question("q1", "数学", "函数", "一次函数", difficulty="易"),
        question("q2", "数学", "函数", "一次函数", difficulty="中档"),
        question("q3", "数学", "函数", "一次函数", "judgment", difficulty="易"),
        question("q4", "数学", "函数", "二次函数", difficulty="难"),
        question("q5", "数学", "几何", "三角形", "multiple_choice", answer=["A", "C"], difficulty="中档"),
        question("q6", "语文", "阅读", "古诗", difficulty="易"),
        question("q7", "语文", "阅读", "古诗", "fill_in_blank", difficulty="易"),
        question("q8", "语文", "阅读", "文言文", "cloze", difficulty="难"),
    ]
    return {q.id: q for q in qs}


SMALL_ANSWERS = {
    "q1": Answer(True),
    "q2": Answer(False, extracted=["B"]),
    "q3": Answer(True),
    "q4": Answer(True),
    "q5": Answer(None, status="unparsed", output="我不知道", extracted=None),
    "q6": Answer(True),
    "q7": Answer(False, extracted=["6"]),
    "q8": Answer(None, status="skipped"),
}
"""Run A of the small bank: 一次函数 2/3, 二次函数 1/1, 三角形 0/1 (unparsed), 古诗 1/2, 文言文 skipped."""


HOSTILE_OUTPUTS = [
    "<script>window.__pwned = 'script'</script>正确答案是：A",
    "<img src=x onerror=\"window.__pwned='img'\">答案是 B",
    "</script><script>window.__pwned='close'</script><!-- 正确答案是：C",
    "<b>unclosed <i>broken <div onclick=alert(1)>html &amp; &lt;tags 正确答案是：D",
]
"""Model outputs that would run code if the page ever parsed them as HTML."""


def demo_runs(root: Path) -> tuple[Path, list[Path]]:
    """A bank of 3 subjects and 4 runs (2 models, CoT, shuffled) with step scores, flags and hostile outputs.

    Returns the bank folder and the run folders. Deterministic.
    """
    import itertools
    import random

    rng = random.Random(7)
    points = {
        "数学": {"函数": ["一次函数", "二次函数"], "几何": ["三角形", "圆"]},
        "物理": {"力学": ["浮力", "压强"], "电学": ["欧姆定律"]},
        "语文": {"阅读": ["古诗", "文言文"]},
    }
    stems = {
        "数学": "已知 $$f(x)=\\frac{1}{2}x^{2}+3$$，求 $$f(2)$$ 的值，下列正确的是",
        "物理": "一个物体的质量为 $$2\\times 10^{3}$$ kg，下列说法不正确的是",
        "语文": "下列诗句中，①春眠不觉晓 ②处处闻啼鸟 ③夜来风雨声，属于孟浩然的是",
    }
    questions: list[Question] = []
    for subject, level1s in points.items():
        for level1, level2s in level1s.items():
            for level2 in level2s:
                for j in range(rng.randint(2, 5)):
                    qid = f"{subject}-{level2}-{j}"
                    qtype = "judgment" if j == 3 else "single_choice"
                    questions.append(
                        question(
                            qid,
                            subject,
                            level1,
                            level2,
                            qtype,
                            difficulty=rng.choice(["易", "中档", "难"]),
                            stem=f"{stems[subject]}（{level2} 第 {j + 1} 题）",
                            options=["$$\\frac{1}{2}$$", "5", "$$\\sqrt{2}$$", "7"],
                            analysis="【分析】先代入 $$x=2$$。\n【解答】$$f(2)=\\frac{1}{2}\\times 4+3=5$$。\n故选B。",
                        )
                    )
    bank = write_bank(root / "bank", questions)
    shuffled = [q.model_copy(update={"options": q.options[::-1], "answer": _relabel(q)}) for q in questions]
    write_bank(root / "bank", [q.model_copy(update={"options": _letters(q.options)}) for q in shuffled], "shuffled")
    by_id = {q.id: q for q in questions}
    runs = []
    hostile = itertools.cycle(HOSTILE_OUTPUTS)
    for model, mode, variant, skill in (
        ("qwen-tiny", "few-shot-cot", "original", 0.7),
        ("qwen-tiny", "few-shot", "original", 0.55),
        ("qwen-tiny", "few-shot-cot", "shuffled", 0.6),
        ("glm-tiny", "few-shot-cot", "original", 0.45),
    ):
        answers: dict[str, Answer] = {}
        scores: list[dict[str, Any]] = []
        for q in questions:
            roll = rng.random()
            if roll < 0.06:
                answers[q.id] = Answer(None, status="unparsed", output=next(hostile))
                continue
            right = roll < skill
            output = "【分析】代入 x=2。\n$$f(2)=\\frac{1}{2}\\times 4+3=5$$。\n所以 f(2)=5。\n故选B。"
            if not right:
                output = "代入 x=2。\nf(2)=2+3=6，因为 1/2×4=3。\n所以答案不是 5。\n故选D。"
            elif q.type is QuestionType.JUDGMENT:  # no final answer: a suspect solution with no flagged step
                output = output.replace("\n所以 f(2)=5。\n故选B。", "\n这道题不难。")
            if rng.random() < 0.15:
                output = next(hostile)
            answers[q.id] = Answer(right, output=output, extracted=q.answer if right else ["D"])
            if mode.endswith("cot"):
                steps = [s for s in output.split("\n") if s]
                scores.append(_demo_scores(q, steps, right, rng))
        run = write_run(
            root / f"{model}-{mode}-{variant}", by_id, answers, model=model, mode=mode, variant=variant, bank=bank
        )
        write_scores(run, scores)
        runs.append(run)
    return bank, runs


def _demo_scores(q: Question, steps: list[str], right: bool, rng: Any) -> dict[str, Any]:
    """A scores line with hand-set ROSCOE numbers and the real detectors' assessment of ``steps``."""
    from reasoning_metrics.run_scoring import question_source
    from reasoning_metrics.verify import assess_one
    from reasoning_metrics.verify.scored import ScoredSolution

    assessment = assess_one(ScoredSolution(q.id, question_source(q), tuple(steps))).model_dump(mode="json")
    for i, text in enumerate(steps):
        if "<" in text:  # a flag message quotes model text: it must stay text in the page
            quote = {"kind": "doubt", "severity": 0.4, "message": f"quoted: {text}", "message_zh": f"引用：{text}"}
            quote["evidence"] = text
            assessment["steps"][i]["flags"].append(quote)
    qid = q.id
    flagged = [] if right else [1]
    sources = ["已知 f(x)=1/2 x²+3，求 f(2)", "求 f(2) 的值"]
    references = ["f(x)=1/2 x²+3", "代入 x=2", "f(2)=1/2×4+3=5"]
    step_rows = []
    for i, text in enumerate(steps):
        flags = []
        if i in flagged:
            flags = ["not_in_reference", "contradicts_source"]
        elif not right and i == 2:
            flags = ["contradicts_source"]
        step_rows.append(
            {
                "index": i,
                "text": text,
                "source_index": 0,
                "source_similarity": round(rng.uniform(0.5, 0.95), 3),
                "reference_index": 2,
                "reference_similarity": round(rng.uniform(0.4, 0.99), 3),
                "contradiction": round(rng.uniform(0, 0.9 if flags else 0.2), 3),
                "contradiction_index": 1,
                "flags": flags,
            }
        )
    base = 0.85 if right else 0.6
    return {
        "question_id": qid,
        "scores": {
            "faithfulness": round(base + rng.uniform(-0.1, 0.1), 3),
            "discourse_representation": round(base + rng.uniform(-0.2, 0.1), 3),
            "reasoning_alignment": round(base + rng.uniform(-0.1, 0.1), 3),
            "external_hallucination": round(base + rng.uniform(-0.1, 0.1), 3),
            "redundancy": round(base - 0.2 + rng.uniform(-0.1, 0.1), 3),
        },
        "unavailable": {},
        "steps": step_rows,
        "source_steps": sources,
        "reference_steps": references,
        "first_suspect": assessment["first_suspect"],
        "assessment": assessment,
    }


def _relabel(q: Question) -> list[str] | list[bool]:
    """The answer of ``q`` once its options are reversed and re-lettered A, B, C..."""
    if q.type is not QuestionType.SINGLE:
        return q.answer
    labels = [o.label for o in q.options]
    return [labels[len(labels) - 1 - labels.index(str(a))] for a in q.answer]


def _letters(options: list[Option]) -> list[Option]:
    if not options or not options[0].label.isalpha():
        return options
    return [o.model_copy(update={"label": "ABCDEFGH"[i]}) for i, o in enumerate(options)]


def replayed_report(bank: Path, root: Path, output: str = "答案是 A") -> Path:
    """``k12eval run <bank> -b replay`` answering every question of ``bank`` with ``output``, then ``k12eval report``
    of that run, both through the command line, under ``root``; returns the report's folder."""
    from typer.testing import CliRunner

    from k12eval.cli import app
    from kg.importers import load_questions

    answers = write_answers(root / "answers.jsonl", [q.id for q in load_questions(bank).questions], output)
    run = ["run", str(bank), "-m", "m", "-b", "replay", "-B", f"path={answers}", "-o", str(root / "run")]
    assert CliRunner().invoke(app, run).exit_code == 0
    assert CliRunner().invoke(app, ["report", str(root / "run"), "-o", str(root / "report")]).exit_code == 0
    return root / "report"
