"""The importers on the real public releases in ../shared/data (skipped when that folder is absent)."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from kg.graph import build_graph
from kg.importers import detect_format, load_questions
from kg.importers._ceval_subjects import SUBJECTS as CEVAL_SUBJECTS
from kg.importers._ceval_subjects import english_name
from kg.importers._cmmlu_subjects import SUBJECTS as CMMLU_SUBJECTS

pytestmark = pytest.mark.shared_data


@pytest.mark.slow
def test_ck12_middle_school_release(shared_data: Path) -> None:
    root = shared_data / "ck12"
    assert detect_format(root) == "ck12"
    result = load_questions(root)  # strict: any bad record raises
    assert len(result.questions) == 13250 and result.problems == []
    graph = build_graph(result.questions)
    assert len(graph.nodes_of_kind("subject")) == 9
    assert {q.type.value for q in result.questions} == {
        "single_choice",
        "multiple_choice",
        "judgment",
        "fill_in_blank",
        "sorting",
        "cloze",
    }


@pytest.mark.parametrize("variant", ["original", "shuffled", "distractors"])
def test_ck12_samples_of_every_variant(shared_data: Path, variant: str) -> None:
    result = load_questions(shared_data / "ck12" / "samples", variant=variant)
    assert result.questions and result.problems == []
    assert {q.variant for q in result.questions} == {variant}
    assert {q.stage.value for q in result.questions if q.stage} == {"primary", "middle", "high"}


def test_cmmlu_dev_and_test(shared_data: Path) -> None:
    root = shared_data / "cmmlu"
    assert detect_format(root) == "cmmlu"
    result = load_questions(root)
    dev = [q for q in result.questions if q.extra["split"] == "dev"]
    test = [q for q in result.questions if q.extra["split"] == "test"]
    rows = sum(len(list(csv.reader(f.open(encoding="utf-8-sig")))) - 1 for f in (root / "test").glob("*.csv"))
    assert len(dev) == 5 * 67 and len(test) == rows == 1202
    assert {q.extra["subject_key"] for q in dev} == set(CMMLU_SUBJECTS)
    assert not any(q.extra.get("warnings") for q in result.questions)


def test_ceval_dev(shared_data: Path) -> None:
    root = shared_data / "ceval"
    assert detect_format(root) == "ceval"
    result = load_questions(root / "dev")
    assert len(result.questions) == 5 * 52 and result.problems == []
    assert all(q.analysis for q in result.questions)
    assert len({q.subject for q in result.questions}) == 52


def test_ceval_built_in_table_matches_the_release_mapping(shared_data: Path) -> None:
    release = json.loads((shared_data / "ceval" / "subject_mapping.json").read_text(encoding="utf-8"))
    built_in = {key: [english_name(key), zh, category] for key, (zh, category) in CEVAL_SUBJECTS.items()}
    assert built_in == release


def test_xiezhi_both_files(shared_data: Path) -> None:
    root = shared_data / "xiezhi"
    assert detect_format(root) == "xiezhi"
    result = load_questions(root)
    by_file = {
        stem: sum(1 for q in result.questions if q.id.startswith(f"xiezhi/{stem}/"))
        for stem in (
            "xiezhi_train_chn",
            "xiezhi_spec_chn.sample500",
        )
    }
    assert by_file == {"xiezhi_train_chn": 2478, "xiezhi_spec_chn.sample500": 500}
    assert result.problems == [] and not any(q.extra.get("warnings") for q in result.questions)
    tree = json.loads((root / "discipline_taxonomy" / "subjects_tree_chn.json").read_text(encoding="utf-8"))
    for question in result.questions:
        subject, level1, level2 = question.subject, question.knowledge.level1, question.knowledge.level2
        assert subject in tree
        assert level1 == subject or level1 in tree[subject]
        assert level2 == level1 or level2 in tree[subject][level1]
        assert question.knowledge.path[-1] in question.extra["labels"]


@pytest.mark.parametrize(("bank", "split", "suffix"), [("ceval", "dev", "_dev"), ("cmmlu", "test", "")])
def test_hub_parquet_reads_the_same_questions_as_the_csv_release(
    shared_data: Path, tmp_path: Path, bank: str, split: str, suffix: str
) -> None:
    """The release's CSVs rewritten in the hub's layout (``<subject>/<split>-00000-of-00001.parquet``) import identically."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    for file in sorted((shared_data / bank / split).glob("*.csv")):
        with file.open(encoding="utf-8-sig", newline="") as handle:
            rows = list(csv.reader(handle))
        header, body = rows[0], [r for r in rows[1:] if any(c.strip() for c in r)]
        columns = {name: [r[i] for r in body] for i, name in enumerate(header) if name}  # the hub drops the index
        if "id" in columns:
            columns["id"] = [int(v) for v in columns["id"]]  # the hub stores ids as integers
        folder = tmp_path / file.stem.removesuffix(suffix)
        folder.mkdir()
        pq.write_table(pa.table(columns), folder / f"{split}-00000-of-00001.parquet")
    assert detect_format(tmp_path) == bank
    released = load_questions(shared_data / bank / split).questions
    from_hub = load_questions(tmp_path).questions
    assert len(from_hub) == len(released) > 0
    assert sorted(q.model_dump_json() for q in from_hub) == sorted(q.model_dump_json() for q in released)


CHINESE_BANKS = [
    "ck12/original_data",
    "cmmlu/test",
    "cmmlu/dev",
    "ceval/dev",
    "xiezhi/xiezhi_spec_chn.sample500.jsonl",
    "xiezhi/xiezhi_train_chn.jsonl",
]


# A stem is Chinese when it has Chinese characters and no English sentence (three English words in a row)
# outside its formulas: bilingual stems (CK12's translated competition problems) and the few English
# stems of Xiezhi's Chinese file are left out. Independent of kg.records' own rule on purpose.
_FORMULAS = re.compile(r"\$\$.*?\$\$|\$[^$]*\$", re.S)
_ENGLISH_SENTENCE = re.compile(r"[A-Za-z]{2,}(?:[ ,'-]+[A-Za-z]{2,}){2,}")


def is_chinese_stem(stem: str) -> bool:
    prose = _FORMULAS.sub(" ", stem)
    return bool(re.search(r"[\u4e00-\u9fff]", prose)) and not _ENGLISH_SENTENCE.search(prose)


@pytest.mark.parametrize("bank", CHINESE_BANKS)
@pytest.mark.slow
def test_no_chinese_stem_is_detected_as_english(shared_data: Path, bank: str) -> None:
    # Before (#16 item 1): 134 CK12 stems (85 math, e.g. $$-2017$$的倒数是), 15 CMMLU test stems and
    # others were English because formulas, option labels and pinyin options counted as English words.
    # CK12's 英语 questions are English exercises, however much Chinese they gloss with.
    questions = [q for q in load_questions(shared_data / bank).questions if q.subject != "英语"]
    questions = [q for q in questions if is_chinese_stem(q.stem)]
    assert len(questions) > 200
    english = [(q.id, q.stem[:60]) for q in questions if q.language == "en"]
    assert english == []
