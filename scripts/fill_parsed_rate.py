"""Parsed rate and label agreement of fill-in extraction on real model answers (#27 item 9).

Reads, where ../shared/data (or --data) has them, real outputs of models to questions with
one short answer, graded as one-blank fill-in questions:

- ``gsm8k``: GSM8K's 400 example model solutions (4 per question; ``is_correct`` labels);
- ``mr-gsm8k``: MR-GSM8K's original and reversed questions, Claude's and Llama-2's solution
  steps (``model_output_answer_correctness`` labels; POT programs left out);
- ``ck12``: the fill-in answers of ``data/ck12_errors`` (qwen2.5-coder-0.5b, zero-shot CoT on
  CK12 middle-school questions), gold from the CK12 release by ``ck12_id``;
- ``cut``: every output above cut at half its length, as a token limit cuts a chain before its
  answer: text that is the model's but no answer (expected: mostly unparsed).

For each: outputs, parsed (with the Wilson 95 % interval), and where labels exist how often
"graded correct" agrees with the label. Each set is also given per development / confirmation
half (``reasoning_metrics.metaeval.halves.half_of`` on the question).

    python scripts/fill_parsed_rate.py [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import ast
import json
from collections.abc import Iterator
from pathlib import Path

from kg.importers import load_questions
from kg.records import Knowledge, Question, QuestionType
from reasoning_metrics.metaeval.halves import half_of
from reports.stats import wilson_interval
from runners.extract import extract
from runners.grading import grade

ROOT = Path(__file__).resolve().parents[1]

Answer = tuple[str, Question, str, bool | None]
"""(question key, question, output, label: the output's final answer is right)."""


def _question(key: str, stem: str, gold: str) -> Question:
    return Question(
        id=key,
        source="measure",
        subject="math",
        type=QuestionType.FILL,
        stem=stem,
        answer=[gold],
        knowledge=Knowledge(level1="-", level2="-"),
        language="en",
    )


def gsm8k(data: Path) -> Iterator[Answer]:
    for number, line in enumerate((data / "gsm8k" / "example_model_solutions.sample100.jsonl").open()):
        record = json.loads(line)
        gold = record["ground_truth"].rsplit("A:", 1)[1].strip()
        question = _question(f"gsm8k/{number}", record["question"], gold)
        for model in ("6b_finetuning", "6b_verification", "175b_finetuning", "175b_verification"):
            yield question.id, question, record[model]["solution"], bool(record[model]["is_correct"])


def mr_gsm8k(data: Path) -> Iterator[Answer]:
    for name in ("Claude_eval_results.json", "llama2_70b_eval_results.json"):
        for record in json.loads((data / "mr-gsm8k" / name).read_text(encoding="utf-8")):
            if record["question_type"] == "POT":
                continue
            steps = record["model_output_steps"]
            steps = ast.literal_eval(steps) if isinstance(steps, str) else steps
            output = "\n".join(steps) if isinstance(steps, list) else str(steps)
            question = _question(record["uuid"], record["question"], str(record["ground_truth_answer"]))
            yield question.id, question, output, record["model_output_answer_correctness"] == "correct"


def ck12(data: Path) -> list[Answer]:
    bank = {q.id: q for q in load_questions(data / "ck12" / "original_data", "ck12").questions}
    found: list[Answer] = []
    for file in sorted((ROOT / "data" / "ck12_errors").glob("*.jsonl")):
        for line in file.open(encoding="utf-8"):
            record = json.loads(line)
            question = bank.get(record["ck12_id"])
            if record["type"] == "fill_in_blank" and question is not None:
                found.append((question.id, question, record["output"], None))
    return found


def cut(answers: list[Answer]) -> list[Answer]:
    """Each output cut at half its length (no label: a cut chain states no final answer)."""
    return [(key, question, output[: len(output) // 2], None) for key, question, output, _ in answers]


def _rate(k: int, n: int) -> str:
    if n == 0:
        return "0/0"
    lo, hi = wilson_interval(k, n)
    return f"{k}/{n} = {100 * k / n:.1f} % ({100 * lo:.0f}-{100 * hi:.0f} %)"


def report(name: str, answers: list[Answer]) -> None:
    for half in ("dev", "confirm", "all"):
        chosen = [a for a in answers if half == "all" or half_of(a[0]) == half]
        parsed = agree = labelled = 0
        for _, question, output, label in chosen:
            found = extract(question, output)
            parsed += found.status == "ok"
            if label is not None:
                labelled += 1
                agree += grade(question, found.answer).correct == label
        line = f"{name:9} {half:8} parsed {_rate(parsed, len(chosen))}"
        if labelled:
            line += f"; graded correct agrees with the label {_rate(agree, labelled)}"
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    args = parser.parse_args()
    sets = {"gsm8k": list(gsm8k(args.data)), "mr-gsm8k": list(mr_gsm8k(args.data)), "ck12": ck12(args.data)}
    for name, answers in sets.items():
        report(name, answers)
    report("cut", cut([a for answers in sets.values() for a in answers]))


if __name__ == "__main__":
    main()
