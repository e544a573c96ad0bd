"""A small Xiezhi release written here, laid out as MikeGu721/XiezhiBenchmark publishes it.

``Tasks/Knowledge/Benchmarks/test/xiezhi_{spec,inter}_{chn,eng}/xiezhi.v1.1.json`` and
``Tasks/Knowledge/Benchmarks/train/xiezhi_train_chn/xiezhi.v1.1.json``: JSON lines in files named
``.json``; the taxonomy in ``Tasks/Knowledge/discipline_taxonomy/``, beside ``Benchmarks/``. The
questions of the two 门类 are written with characters of two disjoint ranges, so that every test
question can be given 46 options of the other 门类 sharing no character with its answer (Xiezhi's 50).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TREE_CHN = {
    "理学": {"数学": ["基础数学", "应用数学"], "物理学": []},
    "工学": {"力学": ["固体力学"], "材料科学与工程": []},
}
TREE_ENG = {"Science": {"Mathematics": ["Applied Mathematics"]}, "Engineering": {"Mechanics": []}}
DISCIPLINES = {"理学": ["理学", "数学", "应用数学"], "工学": ["工学", "力学"]}
INTERDISCIPLINES = {
    "理学": ["理学", "数学", "应用数学", "物理学"],
    "工学": ["工学", "力学", "固体力学", "材料科学与工程"],
}
"""Four disciplines: Xiezhi-Interdiscipline by the paper's rule."""
_START = {"理学": 0x4E00, "工学": 0x6000}
"""Each 门类's options are two characters from its own range: no option of one shares a character with the other's."""


def record(subject: str, number: int, labels: list[str] | None = None, answer_at: int = 1) -> dict[str, Any]:
    """A Xiezhi record of ``subject``'s ``number``-th question: four options, the answer the ``answer_at``-th."""
    base = _START[subject] + 8 * number
    options = [chr(base + 2 * i) + chr(base + 2 * i + 1) for i in range(4)]
    return {
        "question": f"{subject}第{number}题：下列哪一项正确_____",
        "labels": labels or DISCIPLINES[subject],
        "answer": options[answer_at],
        "options": "\n".join(options),
    }


def _write(path: Path, records: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")


def write_release(root: Path) -> Path:
    """The release's ``Tasks/Knowledge`` under ``root``: 28 test questions (spec and inter, Chinese), 2 English test
    questions and 6 train questions; returns ``Tasks/Knowledge``."""
    knowledge = root / "Tasks" / "Knowledge"
    benchmarks = knowledge / "Benchmarks"
    spec = [record(s, n) for s in ("理学", "工学") for n in range(8)]
    inter = [record(s, n, labels=INTERDISCIPLINES[s]) for s in ("理学", "工学") for n in range(8, 14)]
    _write(benchmarks / "test" / "xiezhi_spec_chn" / "xiezhi.v1.1.json", spec)
    _write(benchmarks / "test" / "xiezhi_inter_chn" / "xiezhi.v1.1.json", inter)
    english = [
        {
            "question": "What is two plus two? _____",
            "labels": ["Science", "Mathematics"],
            "answer": "four",
            "options": "three\nfour\nfive\nsix",
        },
        {"question": "A beam bends under _____", "labels": ["Engineering"], "answer": "load", "options": "load\nlight"},
    ]
    _write(benchmarks / "test" / "xiezhi_spec_eng" / "xiezhi.v1.1.json", english)
    train = [record(s, n) for s in ("理学", "工学") for n in range(20, 23)]
    _write(benchmarks / "train" / "xiezhi_train_chn" / "xiezhi.v1.1.json", train)
    taxonomy = knowledge / "discipline_taxonomy"
    taxonomy.mkdir(parents=True)
    (taxonomy / "subjects_tree_chn.json").write_text(json.dumps(TREE_CHN, ensure_ascii=False, indent=4), "utf-8")
    (taxonomy / "subjects_tree_eng.json").write_text(json.dumps(TREE_ENG, indent=4), "utf-8")
    (taxonomy / "subjects_trans.json").write_text(
        json.dumps({"理学": "Science"}, ensure_ascii=False, indent=4), "utf-8"
    )
    return knowledge
