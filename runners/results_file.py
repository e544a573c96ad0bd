"""``RUN_DIR/results.json``: the run's figures in the shape lm-evaluation-harness writes its ``results_*.json``.

Written beside ``summary.json`` at the end of every session of ``run``, so that the tools people
already point at lm-eval's results (leaderboard scripts, ``lm_eval.utils`` readers, W&B tables) read
k12eval's too. What each key holds:

- ``results``: per task, ``alias`` and ``<metric>,<filter>`` with its ``<metric>_stderr,<filter>``
  (lm-eval's standard error of a mean: the sample standard deviation over the square root of ``n``,
  ``"N/A"`` under two answers). A task is a subject of the bank (``ck12_数学``); an answer replayed from
  lm-eval's samples counts under lm-eval's own task (``leaderboard_math_algebra_hard``). The metric is
  ``exact_match`` under the filter ``k12eval`` (k12eval's extraction and grading) for generated answers,
  ``acc`` under ``none`` for options scored by probability, and under ``--grader harness`` the metric
  and filter the harness's verdicts were read from (``exact_match,get-answer``);
- ``groups`` and ``group_subtasks``: the whole run as one group (every scored answer, each counted once);
- ``configs``, ``versions``, ``n-shot``, ``higher_is_better``, ``n-samples`` (``original``: questions
  selected, ``effective``: answers scored), ``config`` (model, backend options, batch, limit,
  generation settings, seed), ``model_name`` and ``date``, as lm-eval names them.

Only answers graded right or wrong count (a failed request or an ungraded type does not), and each counts
what ``summary.json``'s ``accuracy`` counts (:func:`runners.counting.units` under the run's judgment rule:
a judgment question's statements, each a 0/1 value of the mean and its standard error, under a
per-statement rule), so every accuracy here is ``summary.json``'s. A question in two subjects (a Xiezhi
question labelled in two 门类, :func:`kg.graph.place_names`) counts in both subjects' tasks, and once in
the group.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kg.graph import subjects_of
from kg.records import Question
from runners.backends.harness_files import LM_EVAL_DATE, base_name
from runners.counting import header_judgment_rule, units
from runners.records import RunHeader, RunRecord

RESULTS_FILE = "results.json"
SCORING_STRATEGIES = frozenset({"next-token", "rank-options", "perplexity"})
"""Strategies that score options by probability: lm-eval's ``multiple_choice`` tasks, whose metric is ``acc``."""


def mean_stderr(values: Sequence[float]) -> float | str:
    """lm-eval's standard error of a mean: ``stdev(values, ddof=1) / sqrt(n)``; ``"N/A"`` for fewer than 2."""
    n = len(values)
    if n < 2:
        return "N/A"
    mean = sum(values) / n
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) / math.sqrt(n)


def metric_key(header: RunHeader, records: Sequence[RunRecord]) -> tuple[str, str]:
    """``(metric, filter)`` the run's verdicts are: see the module."""
    if header.grader.startswith("harness"):
        graded = next((r.harness.get("graded") for r in records if r.harness and r.harness.get("graded")), None)
        if isinstance(graded, str) and "," in graded:
            metric, _, filter_name = graded.partition(",")
            return metric, filter_name
    if header.strategy in SCORING_STRATEGIES:
        return "acc", "none"
    return "exact_match", "k12eval"


def task_names(record: RunRecord, source: str, question: Question | None = None) -> list[str]:
    """The lm-eval task an answer replayed from its samples came from, else ``<bank format>_<subject>`` for
    each subject its question sits in (its record's subject when the question is not given)."""
    file = record.harness.get("file") if record.harness else None
    if isinstance(file, str) and base_name(Path(file)).startswith("samples_"):
        return [LM_EVAL_DATE.sub("", base_name(Path(file)).removeprefix("samples_"))]
    subjects = subjects_of(question) if question is not None else [record.subject]
    return [f"{source}_{subject}" for subject in subjects]


def lm_eval_results(
    header: RunHeader, records: Sequence[RunRecord], date: str, questions: Mapping[str, Question] | None = None
) -> dict[str, Any]:
    """The lm-eval-shaped results of a run's records (one per question): see the module. ``questions``: the
    run's questions by id, for the subjects each sits in."""
    metric, filter_name = metric_key(header, records)
    key, stderr_key = f"{metric},{filter_name}", f"{metric}_stderr,{filter_name}"
    source = str(header.data.get("format") or "bank")
    group = f"k12eval_{source}"
    rule = header_judgment_rule(header)
    selected: dict[str, int] = defaultdict(int)
    answered: dict[str, int] = defaultdict(int)
    scored: dict[str, list[float]] = defaultdict(list)
    every: list[float] = []
    for record in records:
        counted = units(record, rule)
        values = [1.0] * counted.right + [0.0] * (counted.counted - counted.right) if counted else []
        every += values
        for task in task_names(record, source, (questions or {}).get(record.question_id)):
            selected[task] += 1
            if counted:
                answered[task] += 1
                scored[task] += values
    tasks = sorted(selected)
    results: dict[str, Any] = {}
    for task in tasks:
        values = scored[task]
        results[task] = {"alias": task}
        if values:
            results[task] |= {key: sum(values) / len(values), stderr_key: mean_stderr(values)}
    overall: dict[str, Any] = {"alias": group}
    if every:
        overall |= {key: sum(every) / len(every), stderr_key: mean_stderr(every)}
    shots = int((header.fewshot or {}).get("shots") or 0)
    output_type = "multiple_choice" if header.strategy in SCORING_STRATEGIES else "generate_until"
    sampling = {k: v for k, v in header.sampling.items() if k != "chat"}
    return {
        "results": results,
        "groups": {group: overall},
        "group_subtasks": {group: tasks},
        "configs": {
            task: {
                "task": task,
                "dataset_path": header.data.get("path"),
                "output_type": output_type,
                "num_fewshot": shots,
                "metric_list": [{"metric": metric, "aggregation": "mean", "higher_is_better": True}],
                "generation_kwargs": sampling,
                "metadata": {"version": header.version, "mode": header.mode, "strategy": header.strategy},
            }
            for task in tasks
        },
        "versions": dict.fromkeys(tasks, header.version),
        "n-shot": dict.fromkeys(tasks, shots),
        "higher_is_better": {task: {metric: True} for task in tasks},
        "n-samples": {task: {"original": selected[task], "effective": answered[task]} for task in tasks},
        "config": {
            "model": header.backend,
            "model_args": header.backend_options or {},
            "batch_size": header.batch.get("asked"),
            "limit": header.data.get("limit"),
            "gen_kwargs": sampling,
            "random_seed": header.seed,
            "model_revision": (header.weights or {}).get("revision"),
            "model_sha": (header.weights or {}).get("sha256"),
        },
        "model_name": header.model,
        "date": date,
        "k12eval_version": header.packages.get("k12eval"),
    }
