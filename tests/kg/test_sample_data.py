"""The bundled sample bank (data/sample) and its few-shot split (data/sample_dev) keep their promises.

Both are read with the real importer, so a record the importer would reject fails
here too; the checks below cover what the importer cannot know: coverage, the
shape of the analyses, consistency between answers and stems, and the README.
"""

from __future__ import annotations

import json
import re
import uuid
from collections import Counter
from pathlib import Path

import pytest

from kg.importers import load_questions
from kg.importers.ck12 import KEYS
from kg.records import Question, QuestionType, Stage

DATA = Path(__file__).resolve().parents[2] / "data"
SPLITS = ("sample", "sample_dev")
SUBJECTS = {"语文", "数学", "英语", "政治", "历史", "地理", "物理", "化学", "生物"}
NEGATION = re.compile(r"不正确|错误的是|错误的一项|不属于")
SUB_OPTION = re.compile(r"[①②③④⑤]")
LATEX = re.compile(r"\$\$.*?\$\$", re.S)
HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def banks() -> dict[str, list[Question]]:
    """Both splits as the importer reads them; any invalid record raises."""
    return {name: load_questions(DATA / name).questions for name in SPLITS}


def is_english(question: Question) -> bool:
    """No Chinese character in the stem and options once LaTeX is set aside, and some English words."""
    text = " ".join([question.stem, *(o.text for o in question.options)])
    bare = LATEX.sub(" ", text)
    return not HAN.search(bare) and len(re.findall(r"[A-Za-z]{2,}", bare)) >= 3


def paragraphs(text: str) -> list[str]:
    """The analysis split into its steps (paragraphs separated by a blank line)."""
    return [p for p in re.split(r"\n\s*\n", text) if p.strip()]


@pytest.mark.parametrize("split", SPLITS)
def test_every_subject_stage_and_type_is_covered(banks: dict[str, list[Question]], split: str) -> None:
    questions = banks[split]
    assert {q.subject for q in questions} == SUBJECTS
    assert {q.stage for q in questions} == set(Stage)
    assert {q.type for q in questions} == set(QuestionType)


def test_sizes(banks: dict[str, list[Question]]) -> None:
    assert 55 <= len(banks["sample"]) <= 70
    assert 25 <= len(banks["sample_dev"]) <= 45


@pytest.mark.parametrize("split", SPLITS)
def test_every_question_has_an_analysis(banks: dict[str, list[Question]], split: str) -> None:
    missing = [q.id for q in banks[split] if not q.analysis.strip()]
    assert not missing


@pytest.mark.parametrize("split", SPLITS)
def test_math_and_physics_analyses_have_three_steps(banks: dict[str, list[Question]], split: str) -> None:
    steps = {q.stem[:30]: len(paragraphs(q.analysis)) for q in banks[split] if q.subject in {"数学", "物理"}}
    short = [stem for stem, n in steps.items() if n < 3]
    assert not short


def test_english_questions_are_in_english(banks: dict[str, list[Question]]) -> None:
    for questions in banks.values():
        english = [q for q in questions if q.subject == "英语"]
        assert english and all(is_english(q) for q in english)
        assert all(q.language == "en" for q in english)
    math_in_english = [q for q in banks["sample"] if q.subject == "数学" and is_english(q)]
    assert 1 <= len(math_in_english) <= 3


def test_sample_and_dev_share_no_question(banks: dict[str, list[Question]]) -> None:
    sample, dev = banks["sample"], banks["sample_dev"]
    assert not {q.id for q in sample} & {q.id for q in dev}
    assert not {q.stem for q in sample} & {q.stem for q in dev}
    for questions in (sample, dev):
        assert len({q.stem for q in questions}) == len(questions)


@pytest.mark.parametrize("split", SPLITS)
def test_ids_are_uuid4_hex(banks: dict[str, list[Question]], split: str) -> None:
    for q in banks[split]:
        assert re.fullmatch(r"[0-9a-f]{32}", q.id)
        assert uuid.UUID(hex=q.id).version == 4


def test_dev_has_exemplars_for_every_subject_and_type_of_the_sample(banks: dict[str, list[Question]]) -> None:
    dev = Counter((q.subject, q.type) for q in banks["sample_dev"])
    for subject, qtype in {(q.subject, q.type) for q in banks["sample"]}:
        wanted = 2 if qtype is QuestionType.SINGLE else 1
        assert dev[(subject, qtype)] >= wanted, (subject, qtype.zh)


def test_knowledge_graph_has_branches(banks: dict[str, list[Question]]) -> None:
    by_subject: dict[str, dict[str, set[str]]] = {}
    for q in banks["sample"]:
        by_subject.setdefault(q.subject, {}).setdefault(q.knowledge.level1, set()).add(q.knowledge.level2)
    for subject, level1 in by_subject.items():
        assert 2 <= len(level1) <= 3, subject
    with_two = [s for s, level1 in by_subject.items() if any(len(l2) >= 2 for l2 in level1.values())]
    assert len(with_two) >= 6


def test_negated_and_sub_option_single_choice_questions_are_present(banks: dict[str, list[Question]]) -> None:
    single = [q for q in banks["sample"] if q.type is QuestionType.SINGLE]
    negated = [q for q in single if NEGATION.search(q.stem)]
    combined = [q for q in single if all(SUB_OPTION.search(o.text) for o in q.options)]
    assert len(negated) >= 3
    assert len(combined) >= 3


@pytest.mark.parametrize("split", SPLITS)
def test_difficulty_is_mixed(banks: dict[str, list[Question]], split: str) -> None:
    levels = Counter(q.difficulty for q in banks[split])
    assert levels["易"] + levels["较易"] >= len(banks[split]) // 2
    if split == "sample":
        assert levels["中档"] + levels["较难"] + levels["难"] >= 10


@pytest.mark.parametrize("split", SPLITS)
def test_choice_analysis_concludes_with_the_gold(banks: dict[str, list[Question]], split: str) -> None:
    for q in banks[split]:
        if not q.is_choice:
            continue
        chosen = re.findall(r"故选\$*\{?([A-E]+)", q.analysis)
        assert chosen, q.stem[:30]
        assert chosen[-1] == "".join(map(str, q.answer)), q.stem[:30]


@pytest.mark.parametrize("split", SPLITS)
def test_answers_fit_their_stems(banks: dict[str, list[Question]], split: str) -> None:
    for q in banks[split]:
        if q.type is QuestionType.FILL:
            assert q.stem.count(r"\underline{}") == len(q.answer), q.stem[:30]
        elif q.type is QuestionType.CLOZE:
            markers = [int(n) for n in re.findall(r"\( (\d+) \)", q.stem)]
            assert markers == list(range(1, len(q.answer) + 1)), q.stem[:30]
            assert all(len(blank) == 4 for blank in q.blanks())
        elif q.type is QuestionType.SORTING:
            assert sorted(map(str, q.answer)) == q.option_labels, q.stem[:30]
        elif q.is_choice:
            assert q.option_labels == ["A", "B", "C", "D"], q.stem[:30]


@pytest.mark.parametrize("split", SPLITS)
def test_files_follow_the_ck12_layout(split: str) -> None:
    root = DATA / split / "original_data"
    files = sorted(root.rglob("*.jsonl"))
    assert files
    for file in files:
        stage, subject, qtype = file.relative_to(root).with_suffix("").parts
        for line in file.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            assert tuple(record) == KEYS, file
            where = (record["task_grade"], record["task_subject"], record["task_type"])
            assert where == (stage, subject, qtype), file
            domain = record["knowledge_domain"]
            assert domain[:2] == [stage, subject] and len(domain) == 5
            assert record["knowledge_tree"].startswith(f"{domain[3]}-{domain[4]}")


def readme_table(section: str, first_cells: list[str]) -> dict[str, list[int]]:
    """Rows of the README count tables under ``### `data/<section>```, keyed by their first cell."""
    text = (DATA / "README.md").read_text(encoding="utf-8")
    body = text.split(f"### `data/{section}`", 1)[1].split("###", 1)[0]
    rows: dict[str, list[int]] = {}
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] in first_cells:
            rows[cells[0]] = [int(c) for c in cells[1:]]
    return rows


@pytest.mark.parametrize("split", SPLITS)
def test_readme_counts_match_the_data(banks: dict[str, list[Question]], split: str) -> None:
    questions = banks[split]
    stages = [Stage.PRIMARY, Stage.MIDDLE, Stage.HIGH]
    by_subject = Counter((q.subject, q.stage) for q in questions)
    subjects = readme_table(split, sorted(SUBJECTS))
    assert set(subjects) == SUBJECTS
    for subject, row in subjects.items():
        expected = [by_subject[(subject, s)] for s in stages]
        assert row == [*expected, sum(expected)], subject
    by_type = Counter((q.type, q.stage) for q in questions)
    labels = {f"{t.zh} ({t.value})": t for t in QuestionType}
    types = readme_table(split, list(labels))
    assert set(types) == set(labels)
    for label, row in types.items():
        expected = [by_type[(labels[label], s)] for s in stages]
        assert row == [*expected, sum(expected)], label
    total = readme_table(split, ["**total**"])["**total**"]
    assert total[-1] == len(questions)
