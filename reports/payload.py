"""The data the HTML report embeds: plain JSON built from runs, the graph and the aggregates.

The page computes the drill-down counts itself (so its filters by stage, type,
difficulty and group are instant) from per-question arrays aligned with
``questions``; the overview, the weakest points and the tables come from the
Python aggregates, which are the reference numbers (nodes.csv).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from kg.graph import KnowledgeGraph, node_ids
from kg.records import Question, QuestionType
from reasoning_metrics.scales import SCALE
from reports.aggregate import ROOT, RUN_TOTALS, weakest_points
from reports.gaokao_tables import headline
from reports.html import clean, encoded
from reports.latex_text import simplify_latex
from reports.runs import Run
from reports.score_file import Finding, Match, QuestionScores, StepScore
from reports.steps import split_steps
from runners.counting import DEFAULT_JUDGMENT_RULE, units
from runners.records import RunRecord
from runners.summary import invalid_left_out

STATUS_CODES = {"ok": 0, "unparsed": 1, "failed": 2, "skipped": 3}


INVALID_SHOWN = 20
"""The bank's invalid records a run card names (the rest are in the run's summary.json)."""


def metric_entry(key: str) -> dict[str, Any]:
    """How the page names a score key (registry name or ROSCOE key) and which way is better.

    Titles carry an arrow for the direction; unknown keys show as they are, direction unknown.
    """
    from reasoning_metrics.metric_table import find_metric, resolve

    try:
        metric = find_metric(key) or resolve([key])[0]
    except ValueError:
        return {"key": key, "zh": key, "en": key, "better": None}
    arrow = "↑" if metric.direction == "higher" else "↓"
    english = metric.labels.get("en", metric.paper_name)
    zh = metric.labels.get("zh", english)
    return {"key": key, "zh": f"{zh} {arrow}", "en": f"{english} {arrow}", "better": metric.direction}


def report_identity(out: Path) -> str:
    """A short hash naming this report: its folder.

    The page keys the teacher's verdicts in the browser's storage by it: pages opened from
    disk (or from one ``serve`` port) share one storage, and two reports must never share or
    clear each other's verdicts. A report rebuilt in its folder keeps the key, so its verdicts survive
    the rebuild, also one with a run added or rerun: keyed by the runs too, a teacher's marks vanished
    from the page the moment a second model's run joined it. A mark stays tied to the answer it judges
    (model, mode, variant, question and the steps' text), so it never shows on another answer.
    """
    text = json.dumps({"out": str(Path(out).resolve())}, ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def legacy_report_identity(runs: list[Run], out: Path) -> str:
    """The name the released page (before the folder alone named a report) stored the teacher's marks under:
    the folder and, per run, folder, id, bank and how it was made.

    The page carries it so marks saved by that page are found after a rebuild: each moves to today's key when
    the answer it judges is on the page word for word; the others stay where they were.
    """
    parts = {
        "out": str(Path(out).resolve()),
        "runs": [
            {
                "id": run.id,
                "dir": str(Path(run.dir).resolve()),
                "bank": run.header.bank or run.bank,
                "model": run.header.model,
                "mode": run.header.mode,
                "variant": run.header.variant,
                "started": run.header.started_at,
            }
            for run in runs
        ],
    }
    text = json.dumps(parts, ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _text(raw: str) -> dict[str, str]:
    shown = simplify_latex(raw)
    return {"t": raw} if shown == raw else {"t": raw, "d": shown}


def _question(q: Question, reference: tuple[str, ...]) -> dict[str, Any]:
    ids = node_ids(q)
    analysis = list(reference) or split_steps(q.analysis)
    return {
        "id": q.id,
        "node": ids["level2"],
        "subject": q.subject,
        "stage": q.stage.value if q.stage else None,
        "type": q.type.value,
        "difficulty": q.difficulty,
        "group": q.group,
        "stem": _text(q.stem),
        "options": [{"label": o.label, "blank": o.blank, **_text(o.text)} for o in q.options],
        "answer": list(q.answer),
        "analysis": [_text(s) for s in analysis],
        "stand_in": bool(q.extra.get("stand_in")),
    }


@dataclass(frozen=True, slots=True)
class _Shown:
    """A question the page shows, as it carries it: its entry (:func:`_question`, encoded), and its wording to
    tell apart a run that saw another (options as ``(label, text, blank)``, answer)."""

    entry: Any
    options: tuple[tuple[str, str, int | None], ...]
    answer: tuple[Any, ...]

    @classmethod
    def of(cls, q: Question, reference: tuple[str, ...]) -> _Shown:
        return cls(
            encoded(_question(q, reference)), tuple((o.label, o.text, o.blank) for o in q.options), tuple(q.answer)
        )


def _match(match: Match | None) -> dict[str, Any] | None:
    if match is None:
        return None
    return {"index": match.index, "score": match.score, **_text(match.text)}


def _steps(output: str | None, scores: QuestionScores | None) -> list[dict[str, Any]]:
    steps: list[StepScore]
    if scores is not None and scores.steps:
        steps = list(scores.steps)
    else:
        steps = [StepScore(index=i, text=t) for i, t in enumerate(split_steps(output))]
    shown = []
    for step in steps:
        entry: dict[str, Any] = {**_text(step.text), "flags": list(step.flags)}
        for key, match in (("src", step.best_source), ("ref", step.best_reference), ("con", step.max_contradiction)):
            if match is not None:
                entry[key] = _match(match)
        if step.values:
            entry["values"] = step.values
        if step.findings:
            entry["findings"] = _findings(step.findings)
        if step.suspicion is not None:
            entry["sus"] = clean(step.suspicion)
        if step.probability is not None:
            entry["p"] = clean(step.probability)
        shown.append(entry)
    return shown


def _findings(findings: tuple[Finding, ...]) -> list[dict[str, Any]]:
    """Detector flags as the page shows them: kind, message (untrusted text, in Chinese as ``zh`` when the
    detector wrote it; else ``evidence``, the quoted expression, stands in on the Chinese page) and severity."""
    return [
        {
            "kind": f.kind,
            "message": f.message,
            "zh": f.message_zh,
            "evidence": f.evidence,
            "severity": clean(f.severity),
        }
        for f in findings
    ]


def labels(answers: dict[str, Any]) -> dict[str, Any]:
    """What the page calls flags and findings in each language, the severity at which a finding marks its
    step, and every reason why a score or detector has no value in ``answers`` in both languages (the records
    carry reason codes; their words are the page's). ``answers``: run -> question -> the page's answer, or the
    two parts of it read here (``unavailable``, ``detectors_unavailable``).

    Taken from where each is defined (:data:`reasoning_metrics.records.FLAG_NAMES`,
    :data:`reasoning_metrics.verify.flags.FLAG_NAMES`, :data:`reasoning_metrics.verify.aggregate_rule.FLAG_THRESHOLD`,
    :func:`reasoning_metrics.reasons.worded`), so the page holds no copy of them.
    """
    from reasoning_metrics.reasons import worded
    from reasoning_metrics.records import FLAG_NAMES as STEP_FLAGS
    from reasoning_metrics.verify.aggregate_rule import FLAG_THRESHOLD
    from reasoning_metrics.verify.flags import FLAG_NAMES as FINDINGS
    from reasoning_metrics.verify.registry import DETECTORS

    why = {
        reason
        for detail in answers.values()
        for answer in detail.values()
        for key in ("unavailable", "detectors_unavailable")
        for reason in (answer.get(key) or {}).values()
    }
    not_computed = {key for detail in answers.values() for answer in detail.values() for key in answer["unavailable"]}
    return {
        "metrics": {key: metric_entry(key) for key in sorted(not_computed)},
        "flags": {name: list(pair) for name, pair in STEP_FLAGS.items()},
        "detectors": {name: [d.labels.zh, d.labels.en] for name, d in DETECTORS.items()},
        "findings": {str(kind): list(pair) for kind, pair in FINDINGS.items()},
        "suspect_at": FLAG_THRESHOLD,
        "reasons": {reason: {"en": worded(reason) or reason, "zh": worded(reason, "zh")} for reason in sorted(why)},
    }


DETAIL_CAP = 20_000
"""Most questions whose texts and answers the page carries (``$K12EVAL_PAGE_QUESTIONS`` changes it): the
whole CK12 release (13,250 questions) fits. A bigger bank's page carries every question's coordinates and
results, so every count and filter covers all of them, and the texts and answers of this many, spread evenly
over the level-2 points (:func:`detail_ids`); the page says so, and questions.csv holds every answer."""

CODED = ("subject", "stage", "type", "difficulty", "group")
"""Per-question attributes the page filters and labels by, sent as small codes into a list of values."""


def detail_cap() -> int:
    """:data:`DETAIL_CAP`, or ``$K12EVAL_PAGE_QUESTIONS`` when it is a positive whole number."""
    value = os.environ.get("K12EVAL_PAGE_QUESTIONS", "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else DETAIL_CAP


def detail_ids(points: list[list[str]], cap: int) -> list[str]:
    """At most ``cap`` question ids, spread evenly over ``points`` (each level-2 point's ids, in tree order):
    every point's first question, then every point's second, and so on."""
    if sum(len(ids) for ids in points) <= cap:
        return [qid for ids in points for qid in ids]
    chosen: list[str] = []
    depth = 0
    while len(chosen) < cap:
        for ids in points:
            if depth < len(ids):
                chosen.append(ids[depth])
                if len(chosen) == cap:
                    break
        depth += 1
    return chosen


def build_payload(
    runs: list[Run],
    graph: KnowledgeGraph,
    metrics: list[str],
    nodes: pd.DataFrame,
    tables: list[dict[str, Any]],
    meta: dict[str, Any],
    data: Path | None = None,
) -> dict[str, Any]:
    """Everything the page shows, JSON-safe: every question's coordinates and results, and the texts and
    answers of at most :func:`detail_cap` of them (read back from the banks and run folders; ``data``:
    ``--data``). ``metrics``: the step scores' keys (the question frame's ``score:<key>`` columns); ``nodes``:
    the node table, or the rows of it the page reads (:func:`reports.aggregate.page_nodes`)."""
    from reports.runs import full_records, read_questions

    points = graph.questions_by_point()
    in_order = [points.get(node, []) for _, node in graph.walk() if node.startswith("l2:")]
    # Question ids in tree order; dict.fromkeys: a question at two places (kg.graph.placements) is in the tree
    # twice, in the order once.
    order = list(dict.fromkeys(qid for ids in in_order for qid in ids))
    index = {qid: i for i, qid in enumerate(order)}
    shown = set(detail_ids(in_order, detail_cap()))
    reference: dict[str, tuple[str, ...]] = {}
    for run in runs:
        for qid, scores in run.scores.items():
            if scores.reference_steps and qid not in reference and qid in shown:
                reference[qid] = scores.reference_steps
    # Each shown question kept as the page carries it, as it is read (20,000 whole questions held cost 140 MB).
    texts = read_questions(runs, shown, lambda q: _Shown.of(q, reference.get(q.id, ())), data)
    base: dict[str, _Shown] = {}
    for run in runs:
        for qid, question in texts[run.id].items():
            base.setdefault(qid, question)
    rule = meta.get("judgment") or DEFAULT_JUDGMENT_RULE
    results: dict[str, Any] = {}
    answers: dict[str, Any] = {}
    reasons: dict[str, Any] = {}  # what labels() reads of each answer, which is held encoded
    for run in runs:
        # null: not asked (failed, skipped or no record), as nodes.csv counts (runners.counting).
        correct: list[int | None] = [None] * len(order)
        # Under a per-statement rule (as nodes.csv counts), a judgment question weighs its units:
        # w[i] statements counted, r[i] of them right (runners.counting.units); null elsewhere.
        weights: list[int | None] = [None] * len(order)
        rights: list[int | None] = [None] * len(order)
        status: list[int | None] = [None] * len(order)
        metric_values: dict[str, list[float | None]] = {m: [None] * len(order) for m in metrics}
        detail: dict[str, Any] = {}
        why: dict[str, Any] = {}
        for record in run.records:
            qid = record.question_id
            i = index[qid]
            status[i] = STATUS_CODES[record.parse_status]
            counted = units(record, rule)
            if counted is not None:
                correct[i] = int(bool(record.correct))
                if record.type == QuestionType.JUDGMENT.value and rule != "per-item":
                    weights[i], rights[i] = counted.counted, counted.right
            solution = run.scores.get(qid)
            for metric, value in (solution.scores if solution else {}).items():
                if metric in metric_values:
                    metric_values[metric][i] = value
        for whole in full_records(run, shown):  # read back one at a time: the page's answers, not all of them
            qid = whole.question_id
            i = index[qid]
            answer = _answer_from(whole, run.scores.get(qid))
            seen, first = texts[run.id].get(qid), base.get(qid)
            if seen is not None and first is not None and (seen.options, seen.answer) != (first.options, first.answer):
                # This run saw another wording (shuffled options, added distractors): show it with the answer.
                answer["options"] = [{"label": label, **_text(text)} for label, text, _ in seen.options]
                answer["variant_answer"] = list(seen.answer)
            why[str(i)] = {key: answer[key] for key in ("unavailable", "detectors_unavailable")}
            detail[str(i)] = encoded(answer)
        results[run.id] = {"c": correct, "st": status, "s": metric_values}
        if any(w is not None for w in weights):
            results[run.id] |= {"w": weights, "r": rights}
        answers[run.id] = detail
        reasons[run.id] = why
    # Only the parts made from pandas can hold NaN; the per-question parts are JSON-safe as built.
    payload = {
        "meta": clean({**meta, "questions": {"shown": len(shown), "of": len(order), "cap": detail_cap()}}),
        "runs": clean([_run_entry(run, nodes) for run in runs]),
        "metrics": [metric_entry(m) for m in metrics],
        "scale": dict(SCALE),
        "tree": _tree(graph, index, points),
        "questions": _coded(graph, order),
        "detail": {
            str(index[qid]): base[qid].entry if qid in base else _question(graph.questions[qid], reference.get(qid, ()))
            for qid in order
            if qid in shown
        },
        "results": results,
        "answers": answers,
        "labels": labels(reasons),
        "overview": clean(_overview(runs, nodes, graph)),
        "tables": clean(tables),
    }
    return payload


def _coded(graph: KnowledgeGraph, order: list[str]) -> dict[str, Any]:
    """Every question's id, level-2 point and :data:`CODED` attributes, as columns of small codes (a million
    questions in a few megabytes): ``values[attr][code[attr][i]]`` is question ``i``'s value."""
    values: dict[str, dict[Any, int]] = {attr: {} for attr in CODED}
    columns: dict[str, list[int]] = {attr: [] for attr in CODED}
    points: dict[str, int] = {}
    node: list[int] = []
    for qid in order:
        q = graph.questions[qid]
        node.append(points.setdefault(node_ids(q)["level2"], len(points)))
        attrs = (q.subject, q.stage.value if q.stage else None, q.type.value, q.difficulty, q.group)
        for attr, value in zip(CODED, attrs, strict=True):
            codes = values[attr]
            columns[attr].append(codes.setdefault(value, len(codes)))
    return {
        "id": order,
        "node": node,
        "points": list(points),
        "code": columns,
        "values": {attr: list(codes) for attr, codes in values.items()},
    }


def _answer_from(record: RunRecord, scores: QuestionScores | None) -> dict[str, Any]:
    return {
        "status": record.parse_status,
        "correct": record.correct,
        "partial": record.partial,
        "extracted": record.extracted,
        "gold": record.gold,
        "output": record.output,
        "harness_prompt": record.harness.get("prompt") if record.harness else None,  # what a replayed model was asked
        "error": record.error,
        "rank": record.gold_rank,
        "steps": _steps(record.output, scores),
        "first_suspect": scores.first_suspect if scores else None,
        "suspect_rule": scores.suspect_rule if scores else None,
        "scores": scores.scores if scores else {},
        "unavailable": scores.unavailable if scores else {},
        "solution_flags": _findings(scores.solution_findings) if scores else [],
        "detectors_unavailable": scores.detectors_unavailable if scores else {},
        "combined": _combined(scores, record),
        "calibrated": scores.calibrated if scores else {},
    }


def _combined(scores: QuestionScores | None, record: RunRecord) -> dict[str, Any] | None:
    """The learned combiner's first suspect and threshold, whether it chose as for an answer graded wrong
    (the likeliest first error) or not, and for one not graded wrong which step a step at or above the
    threshold puts forward (``locate``: the earliest such step, or the likeliest first error); the per-step
    probabilities are each step's ``p``."""
    if scores is None or scores.combined is None:
        return None
    return {
        "first_suspect": scores.combined.first_suspect,
        "threshold": clean(scores.combined.threshold),
        "graded_wrong": record.correct is False,
        "locate": scores.combined.locate,
    }


def _combiner(run: Run) -> dict[str, Any] | None:
    """Which combiner made the run's step probabilities and what it was fitted on (``None``: not known)."""
    info = run.combiner
    if info is None:
        return None
    training = list(info.training) if info.training is not None else None
    return {"name": info.name, "recorded": info.recorded, "training": training}


_LANG_ZH = {"zh": "中文", "en": "英文"}


def _columns(run: Run) -> dict[str, dict[str, Any]]:
    """Per metric, whether it told right from wrong chains on the labelled set for the encoder and language
    that scored the run, as the score header states it (``ScoreConfig.calibration``, the object scoring
    applied): the page greys a column that did not, with the reason beside it in a teacher's words
    (``zh``, ``en``) and the figures on hover (``zh_detail``, ``en_detail``). Empty when the run has no
    scores, or they were scored before the header stated it (rescore to get it)."""
    langs = Counter(s.lang for s in run.scores.values() if s.lang)
    if not langs:
        return {}
    lang, _ = langs.most_common(1)[0]
    stated = (run.calibration.get(lang) or {}).get("metrics") or {}
    out: dict[str, dict[str, Any]] = {}
    for metric, col in stated.items():
        row = col.get("separation")
        if not row:
            continue
        if row.get("separates") is None:
            out[metric] = {"separates": None, "en": row.get("why", ""), "zh": row.get("why_zh", "未测量")}
            continue
        out[metric] = _column_text(row, lang, col.get("encoder"))
    return out


def _column_text(row: dict[str, Any], lang: str, encoder: str | None) -> dict[str, Any]:
    """What the page says of a measured column: a line a teacher reads, and the figures behind it."""
    confirm = row["confirm"]
    lang_zh = _LANG_ZH.get(lang, lang)
    lang_en = {"zh": "Chinese", "en": "English"}.get(lang, lang)
    figure = f"AUROC {confirm['auroc']} {confirm['ci']} ({confirm['solutions']}, {confirm['wrong']})"
    solutions, wrong = confirm["solutions"], confirm["wrong"]
    if row["separates"]:
        zh = f"在已标注的{lang_zh}解答上，这项分数大致能分出对的和错的解答。"
        en = f"on labelled {lang_en} answers this score roughly tells right answers from wrong ones."
    else:
        zh = f"显示为灰色：在已标注的{lang_zh}解答上，这项分数分不出对的和错的解答，只作参考。"
        en = f"greyed: on labelled {lang_en} answers this score did not tell right answers from wrong ones; for reference only."
    return {
        "separates": row["separates"],
        "auroc": {h: row[h] for h in ("dev", "confirm")},
        "zh": zh,
        "en": en,
        # AUROC explained where a teacher reads it: the chance the score tells a right answer from a wrong one.
        "zh_detail": f"计算相似度的句子模型 {encoder}；在留出的一半已标注数据上（{solutions} 个解答，{wrong} 个有错），"
        f"随机取一个对的和一个错的解答，这项分数把两者分对的概率（AUROC）为 {confirm['auroc']}，"
        f"95% 区间 {_interval(confirm['ci'])}；0.5 等于随机猜" + ("" if row["separates"] else "，区间包含 0.5"),
        "en_detail": f"encoder {encoder}; held-out half ({solutions} answers, {wrong} wrong): {figure}"
        + ("" if row["separates"] else ", the interval holds 0.5 (chance)"),
    }


def _interval(ci: Any) -> str:
    """``[0.499, 0.726]`` (a list, or its text) as ``0.499–0.726``."""
    values = ci if isinstance(ci, list | tuple) else str(ci).strip("[]() ").split(",")
    return "–".join(str(x).strip() for x in values)


def _evidence(run: Run) -> dict[str, dict[str, Any]]:
    """Per kind of step flag, whether it points at errors on labelled answers of the run's language (with the
    run's encoder, for the similarity kinds) and why, as ``k12eval meta-eval --flag-rates`` measured it
    (:func:`reasoning_metrics.flag_evidence.flag_evidence`): the page shows a kind that does not as context.
    Empty when nothing was measured for the run's language."""
    from reasoning_metrics.flag_evidence import flag_evidence

    seen = Counter((s.lang, s.encoder) for s in run.scores.values() if s.lang)
    if not seen:
        return {}
    (lang, encoder), _ = seen.most_common(1)[0]
    lang_zh = _LANG_ZH.get(lang or "", lang)
    lang_en = {"zh": "Chinese", "en": "English"}.get(lang or "", lang)
    out = {}
    for kind, row in flag_evidence(lang, encoder).items():
        dev = row["dev"]
        warns = bool(row["points_at_errors"])
        out[kind] = {
            "warns": warns,
            "zh": (
                f"在已标注的{lang_zh}解答上，这类标记出现在错误步骤上明显多于正确步骤。"
                if warns
                else f"只作参考：在已标注的{lang_zh}解答上，这类标记在错误步骤上并不比在正确步骤上更常见。"
            ),
            "en": (
                f"on labelled {lang_en} answers this kind of flag fires clearly more on wrong steps than on right ones."
                if warns
                else f"for reference only: on labelled {lang_en} answers this kind of flag fires no more on wrong "
                "steps than on right ones."
            ),
            "zh_detail": f"开发集：错误步骤 {dev['wrong_rate']}，正确步骤 {dev['right_rate']}（{row.get('command') or ''}）",
            "en_detail": f"development half: first wrong steps {dev['wrong_rate']}, right steps {dev['right_rate']} "
            f"({row.get('command') or ''})",
        }
    return out


def _run_entry(run: Run, nodes: pd.DataFrame) -> dict[str, Any]:
    header = run.header
    row = _root_row(nodes, run.id)
    invalid, named, unread = invalid_left_out(header)
    return {
        "id": run.id,
        "label": run.label,
        "model": header.model,
        "name": run.model_name,  # what the page names the model by (a replay's model, not its file's path)
        "mode": header.mode,
        "variant": header.variant,
        "strategy": header.strategy,
        "backend": header.backend,
        "bank": run.bank,
        "records": len(run.records),
        "scored_steps": len(run.scores),
        "combiner": _combiner(run),
        "verdict_models": dict(run.verdict_models),
        "columns": _columns(run),
        "evidence": _evidence(run),
        **{k: row.get(k) for k in RUN_TOTALS},
        "answered": row.get("records"),  # questions answered (not skipped): what the page calls 题数
        # The bank's records --skip-invalid left out: in no count, so the run card says how many, and the first few.
        "invalid": invalid,
        "invalid_records": named[:INVALID_SHOWN],
        "invalid_named": len(named),  # the card says how many more the run's summary.json names
        "invalid_unread": unread,
        "unit": run.unit,  # records: GAOKAO-Bench's, which the card heads with their points
        "gaokao": headline(run),
    }


def _root_row(nodes: pd.DataFrame, run: str) -> dict[str, Any]:
    rows = nodes[(nodes["run"] == run) & (nodes["slice"] == "all") & (nodes["node"] == ROOT)]
    return rows.iloc[0].to_dict() if len(rows) else {}


def _tree(graph: KnowledgeGraph, index: dict[str, int], points: dict[str, list[str]]) -> dict[str, Any]:
    tree: dict[str, Any] = {
        ROOT: {"kind": ROOT, "name": ROOT, "parent": None, "children": sorted(graph.nodes_of_kind("subject"))}
    }
    for _, node in graph.walk():
        data = graph.graph.nodes[node]
        if data["kind"] == "question":
            continue
        parent = next(iter(graph.graph.predecessors(node)), ROOT)
        entry: dict[str, Any] = {"kind": data["kind"], "name": data["name"], "parent": parent}
        if data["kind"] == "level2":
            entry["questions"] = [index[qid] for qid in points.get(node, ())]
        else:
            entry["children"] = graph.children(node)
        if data["kind"] == "subject":
            entry["group"] = data.get("group") or None
        tree[node] = entry
    return tree


def _overview(runs: list[Run], nodes: pd.DataFrame, graph: KnowledgeGraph) -> dict[str, Any]:
    whole = nodes[nodes["slice"] == "all"]
    subjects = whole[whole["kind"] == "subject"]
    # [questions answered, accuracy, its interval, unparsed rate, scored units, right units]: a judgment counted
    # per statement scores its statements, so units and questions differ; the page shows both, as nodes.csv has them.
    cols = ["records", "acc_micro", "acc_micro_lo", "acc_micro_hi", "unparsed_rate", "n", "correct"]
    heatmap = {
        "rows": sorted(graph.nodes_of_kind("subject")),
        "cols": [run.id for run in runs],
        "cells": {f"{r}|{n}": [row[c] for c in cols] for r, n, row in _iter(subjects, cols)},
    }
    groups = nodes[(nodes["slice"] == "group") & (nodes["node"] == ROOT)]
    group_cells = {
        f"{r}|{row['slice_value']}": [row[c] for c in cols] for r, _, row in _iter(groups, [*cols, "slice_value"])
    }
    weakest = weakest_points(nodes, top=10)
    weak_rows = [
        {
            "run": row["run"],
            "node": row["node"],
            "subject": row["subject"],
            "level1": graph.graph.nodes[row["parent"]]["name"] if row["parent"] in graph.graph else "",
            "name": row["name"],
            **{c: row[c] for c in cols},
        }
        for _, row in weakest.iterrows()
    ]
    return {"heatmap": heatmap, "groups": group_cells, "weakest": weak_rows}


def _iter(table: pd.DataFrame, cols: list[str]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (str(run), str(node), dict(zip(cols, values, strict=True)))
        for run, node, *values in table[["run", "node", *cols]].itertuples(index=False)
    ]
