"""Tiny inputs written for these tests (the licensed data sets are never copied here)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests import importer_helpers
from tests.importer_helpers import write_jsonl

GSM8K_RECORDS = [
    {
        "question": "A baker makes 24 rolls and sells 9. How many rolls are left?",
        "answer": "The baker has 24 - 9 = <<24-9=15>>15 rolls left.\nSo 15 rolls remain.\n#### 15",
    },
    {
        "question": "Mia reads 12 pages a day for 5 days. How many pages does she read?",
        "answer": "Each day is 12 pages.\nShe reads 12 * 5 = <<12*5=60>>60 pages.\n#### 60",
    },
    {
        "question": "Leo has 3 boxes of 8 pens and gives away 6 pens. How many pens are left?",
        "answer": (
            "He has 3 * 8 = <<3*8=24>>24 pens.\nHe gives 6 away.\nHe keeps 24 - 6 = <<24-6=18>>18 pens.\n#### 18"
        ),
    },
]


def ck12_record(rid: str, prompt: str, analysis: str) -> dict[str, Any]:
    """One CK12-shaped record whose options are LaTeX numbers 2 to 5 (answer B, 3)."""
    options = ["A.$$2$$", "B.$$3$$", "C.$$4$$", "D.$$5$$"]
    return importer_helpers.ck12_record(id=rid, prompt=prompt, analysis=analysis, answer_option=options)


CK12_RECORDS = [
    ck12_record(
        "q1",
        "已知$$2x+3=9$$，那么$$x$$的值等于多少（  ）．",
        "∵$$2x+3=9$$，\n\n∴$$2x=6$$，\n\n∴$$x=3$$，故选$$B$$．",
    ),
    ck12_record("q2", "$$12\\div 4$$的值是（  ）．", "$$12\\div 4=3$$，\n\n所以结果是$$3$$，故选$$B$$．"),
    ck12_record("q3", "一个数比$$1$$大$$2$$，这个数是（  ）．", "这个数是$$1+2=3$$．"),  # one step: skipped
]


def write_ck12(root: Path) -> Path:
    write_jsonl(root / "original_data" / "初中" / "数学" / "单选.jsonl", CK12_RECORDS)
    return root


PROCESSBENCH = [
    {
        "id": "pb-0",
        "generator": "test",
        "problem": "Tom has 12 apples and buys 5 more. How many apples does he have?",
        "steps": ["Tom starts with 12 apples.", "12 + 5 = 18 apples.", "The answer is 18."],
        "final_answer_correct": False,
        "label": 1,
    },
    {
        "id": "pb-1",
        "generator": "test",
        "problem": "Tom has 12 apples and buys 5 more. How many apples does he have?",
        "steps": ["Tom starts with 12 apples.", "12 + 5 = 17 apples.", "The answer is 17."],
        "final_answer_correct": True,
        "label": -1,
    },
    {
        "id": "pb-2",
        "generator": "test",
        "problem": "A pen costs 3 dollars. How much do 4 pens cost?",
        "steps": ["4 pens cost 4 × 3 = 12 dollars.", "The answer is 12."],
        "final_answer_correct": True,
        "label": -1,
    },
    {
        "id": "pb-3",
        "generator": "test",
        "problem": "A pen costs 3 dollars. How much do 4 pens cost?",
        "steps": [
            "Each pen costs 3 dollars.",
            "However, we assume 5 pens.",
            "5 × 3 = 15.",
            "The answer is 15.",
        ],
        "final_answer_correct": False,
        "label": 1,
    },
]


def write_processbench(path: Path) -> Path:
    path.write_text(json.dumps(PROCESSBENCH), encoding="utf-8")
    return path
