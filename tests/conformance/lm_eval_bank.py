"""A question bank written from lm-eval samples' own documents, for replaying them onto (#34 item 2).

lm-eval's ``doc`` is the task's document: MATH's ``problem`` and ``answer`` (a fill-in answer),
MMLU-Pro's ``question``, ``options`` (up to ten) and ``answer`` (a letter), Winogrande's ``sentence``,
``option1``/``option2`` and ``answer`` (``1`` or ``2``). Each becomes a CK12-format question whose id
names the file's task and ``doc_id``, in reverse order (the replay must find each by its text, not its
place). A document of another shape is left out.
"""

from __future__ import annotations

import json
from pathlib import Path

from kg.records import Question
from runners.backends.harness_logs import task_of
from tests._runs import question, write_bank


def doc_question(task: str, doc_id: int, doc: dict[str, object]) -> Question | None:
    """The bank question of one lm-eval document, or ``None`` for a shape this bank does not write."""
    qid = f"{task}/{doc_id}"
    if isinstance(doc.get("problem"), str) and isinstance(doc.get("answer"), str):  # MATH
        answer = str(doc["answer"])
        return question(qid, "数学", "竞赛", str(doc.get("type") or task), "fill_in_blank",
                        stem=str(doc["problem"]), answer=[answer], stage="high")  # fmt: skip
    options = doc.get("options")
    if isinstance(doc.get("question"), str) and isinstance(options, list) and isinstance(doc.get("answer"), str):
        return question(qid, "综合", "MMLU-Pro", str(doc.get("category") or task),
                        stem=str(doc["question"]), options=[str(o) for o in options], answer=[str(doc["answer"])],
                        stage="high")  # fmt: skip
    if isinstance(doc.get("sentence"), str) and doc.get("answer") in ("1", "2"):  # Winogrande
        options = [str(doc.get("option1")), str(doc.get("option2"))]
        return question(qid, "英语", "常识推理", task, stem=str(doc["sentence"]), options=options,
                        answer=["AB"[int(str(doc["answer"])) - 1]], stage="high")  # fmt: skip
    return None


def bank_from_samples(files: list[Path], root: Path) -> Path:
    """Write the bank of every document in ``files`` (first line of each ``doc_id``) under ``root``."""
    questions: list[Question] = []
    for file in files:
        seen: set[int] = set()
        for line in file.read_text(encoding="utf-8").splitlines():
            item = json.loads(line) if line.strip() else {}
            doc_id, doc = item.get("doc_id"), item.get("doc")
            if not isinstance(doc_id, int) or doc_id in seen or not isinstance(doc, dict):
                continue
            seen.add(doc_id)
            found = doc_question(task_of(file), doc_id, doc)
            if found is not None:
                questions.append(found)
    return write_bank(root, list(reversed(questions)))
