"""A small CK12-format question bank and CoT run written by the tests (own text, not from the release)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from reasoning_metrics.permetric import score_plan
from reasoning_metrics.run_scoring import RunScoring, ScoreOptions, score_run
from reasoning_metrics.slots import ModelSlots
from runners.records import RunHeader, RunRecord
from tests.importer_helpers import ck12_record, write_jsonl

QUESTIONS: list[dict[str, Any]] = [
    {
        "id": "q-apples",
        "prompt": "小明有$$5$$个苹果，吃了$$2$$个，还剩几个？",
        "answer_option": ["A.$$2$$", "B.$$3$$", "C.$$4$$", "D.$$7$$"],
        "answer": "B",
        "analysis": "小明原有$$5$$个苹果，\n\n吃了$$2$$个，还剩$$5-2=3$$个．\n\n故选$${B}$$．\n",
    },
    {
        "id": "q-eggs",
        "prompt": "一只鸭子每天下$$16$$个蛋，吃掉$$3$$个，烤蛋糕用$$4$$个，剩下的每天有几个？",
        "answer_option": ["A.$$7$$", "B.$$9$$", "C.$$13$$", "D.$$12$$"],
        "answer": "B",
        "analysis": "每天用掉$$3+4=7$$个蛋，\n\n∴剩下$$16-7=9$$个．\n\n故选$${B}$$．\n",
    },
    {
        "id": "q-square",
        "prompt": "正方形的边长是$$3$$，它的面积是多少？",
        "answer_option": ["A.$$6$$", "B.$$9$$", "C.$$12$$", "D.$$3$$"],
        "answer": "B",
        "analysis": "正方形面积等于边长的平方，$$3\\times 3=9$$．\n\n故选$${B}$$．\n",
    },
]
OUTPUTS: dict[str, str | None] = {
    "q-apples": "小明有5个苹果。他吃了2个。所以还剩3个。答案：B",
    "q-eggs": "每天下16个蛋。吃掉3个，用掉4个。所以剩下16-3-4=9个。答案：B",
    "q-square": None,  # the backend failed on this one
}


def write_bank(folder: Path) -> Path:
    """One CK12 JSONL file with :data:`QUESTIONS`."""
    records = [
        ck12_record(
            **q,
            task_grade="小学",
            knowledge_tree="数-运算-减法",
            knowledge_domain=["小学", "数学", "知识点", "运算", "减法"],
        )
        for q in QUESTIONS
    ]
    return write_jsonl(folder / "单选.jsonl", records)


def write_run(
    run_dir: Path,
    bank: Path,
    mode: Any = "few-shot-cot",
    outputs: dict[str, str | None] | None = None,
    graded: dict[str, bool] | None = None,
    **header: Any,
) -> Path:
    """A run folder whose records answer :data:`QUESTIONS` with ``outputs`` (default :data:`OUTPUTS`),
    graded as ``graded`` says (question id -> correct; not graded otherwise)."""
    outputs = OUTPUTS if outputs is None else {**OUTPUTS, **outputs}
    run_dir.mkdir(parents=True, exist_ok=True)
    head = RunHeader(model="tiny", backend="replay", mode=mode, data={"path": str(bank), "format": "ck12"}, **header)
    (run_dir / "run.json").write_text(head.model_dump_json(indent=2), encoding="utf-8")
    with (run_dir / "records.jsonl").open("w", encoding="utf-8") as handle:
        for q in QUESTIONS:
            record = RunRecord(
                question_id=q["id"],
                nodes={
                    "subject": "subject:数学",
                    "level1": "l1:数学/运算",
                    "level2": "l2:数学/运算/减法",
                    "question": f"q:{q['id']}",
                },
                subject="数学",
                type="single_choice",
                prompt="...",
                output=outputs[q["id"]],
                gold=["B"],
                parse_status="ok" if outputs[q["id"]] else "failed",
                error=None if outputs[q["id"]] else "timeout",
                correct=(graded or {}).get(q["id"]),
            )
            handle.write(record.model_dump_json() + "\n")
    return run_dir


def score_run_composed(
    run_dir: Path,
    models: dict[str, Any] | None = None,
    *,
    metrics: list[str] | None = None,
    metric_models: dict[str, Any] | None = None,
    out: Path | None = None,
    cache: Any = False,
    **options: Any,
) -> RunScoring:
    """:func:`~reasoning_metrics.run_scoring.score_run` with its plan, models and options composed here as
    :func:`k12eval.api.score_job` composes them (with no lock and no default combiner); ``options`` are
    :class:`~reasoning_metrics.run_scoring.ScoreOptions` fields."""
    slots = ModelSlots(name_loaded=True, **(models or {}))
    plan = score_plan(metrics, metric_models)
    return score_run(run_dir, plan, slots, ScoreOptions(**options), out=out, cache=cache)


def with_models(real: Callable[..., RunScoring], models: dict[str, Any]) -> Callable[..., RunScoring]:
    """``real`` (:func:`~reasoning_metrics.run_scoring.score_run`) scoring with ``models`` (fakes) whatever slots
    its composer made, and no embedding cache: a command's job on fake models."""

    def score(run_dir: Path, plan: Any, slots: ModelSlots, options: ScoreOptions, **kwargs: Any) -> RunScoring:
        faked = ModelSlots(name_loaded=True, **models)
        return real(run_dir, plan, faked, options, **{**kwargs, "cache": False})

    return score
