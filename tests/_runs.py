"""Build small question banks and run folders for the aggregate and report tests (our own fixtures)."""

from __future__ import annotations

import json
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
    """Append scores lines as the scorer would."""
    with (run_dir / "scores.jsonl").open("a", encoding="utf-8") as handle:
        for line in lines:
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")


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
