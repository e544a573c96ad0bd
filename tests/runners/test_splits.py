"""A bank's splits (#31 item 1): a run scores one split, exemplars come from another, never from the scored one.

Fixtures are written here in the layouts the releases publish: the model hub's ``ceval/ceval-exam``
(``<subject>/{dev,val,test}-00000-of-00001.parquet``, its dataset card's ``data_files``) and CMMLU's
release (``data/{dev,test}/<subject>.csv``, an unnamed index column first).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import k12eval
from k12eval.cli import app
from kg.errors import InputError, SettingError
from kg.importers import load_questions
from tests.kg.test_importers_parquet import write_parquet
from tests.scripted import ScriptedBackend, prompt_text

CEVAL_SUBJECTS = {"computer_network": "网络", "operating_system": "进程"}


def _ceval_rows(subject: str, split: str, count: int) -> dict[str, list[object]]:
    topic = CEVAL_SUBJECTS[subject]
    stems = [f"{topic}{split}题{i}：下列说法正确的是____" for i in range(count)]
    answers = ["" if split == "test" else "ABCD"[i % 4] for i in range(count)]  # the hub's test has no answers
    return {
        "id": list(range(count)),
        "question": stems,
        "A": [f"{topic}甲{i}" for i in range(count)],
        "B": [f"{topic}乙{i}" for i in range(count)],
        "C": [f"{topic}丙{i}" for i in range(count)],
        "D": [f"{topic}丁{i}" for i in range(count)],
        "answer": answers,
        "explanation": [f"{split}解析{i}" if split == "dev" else "" for i in range(count)],
    }


@pytest.fixture
def ceval_hub(tmp_path: Path) -> Path:
    """``ceval/ceval-exam`` as the hub serves it: per subject, 5 dev, 3 val and 2 test rows."""
    root = tmp_path / "ceval-exam"
    for subject in CEVAL_SUBJECTS:
        for split, count in (("dev", 5), ("val", 3), ("test", 2)):
            write_parquet(root / subject / f"{split}-00000-of-00001.parquet", _ceval_rows(subject, split, count))
    return root


@pytest.fixture
def cmmlu_release(tmp_path: Path) -> Path:
    """CMMLU's ``data/`` folder: ``dev/agronomy.csv`` (5 rows) and ``test/agronomy.csv`` (4 rows)."""
    root = tmp_path / "CMMLU" / "data"
    for split, count in (("dev", 5), ("test", 4)):
        lines = [",Question,A,B,C,D,Answer"]
        lines += [f"{i},农学{split}题{i}：作物是____,稻{i},麦{i},豆{i},薯{i},{'ABCD'[i % 4]}" for i in range(count)]
        (root / split).mkdir(parents=True)
        (root / split / "agronomy.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def _few_shot_run(data: Path, out: Path, **options: object) -> tuple[list[str], list[str]]:
    """A few-shot run with the pool pointed at the bank itself: the ids scored and the prompts sent."""
    backend = ScriptedBackend("答案是 A")
    summary = k12eval.run(data, "scripted", out, backend=backend, mode="few-shot", few_shot=data, **options)
    return [r.question_id for r in summary.records], [prompt_text(r) for r in backend.requests]


def test_a_hub_copy_of_ceval_scores_val_and_shows_only_dev_exemplars(ceval_hub: Path, tmp_path: Path) -> None:
    # Before #31: the run asked the 10 dev questions with the 6 val ones, and a val question, answer and all,
    # was an exemplar for another val question.
    scored, prompts = _few_shot_run(ceval_hub, tmp_path / "run")
    assert sorted(scored) == sorted(f"ceval/val/{s}/{i}" for s in CEVAL_SUBJECTS for i in range(3))
    for prompt in prompts:
        shown_val = [line for line in prompt.splitlines() if "val题" in line]
        assert len(shown_val) == 1, prompt  # the question asked, and no other val question
        assert prompt.count("dev题") == 5  # the protocol's 5 exemplars, all from dev
    header = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))
    assert header["data"]["split"] == "val" and header["data"]["splits"] == {"dev": 10, "val": 6}
    assert header["protocol"]["split"] == "val" and header["protocol"]["exemplar_split"] == "dev"


def test_cmmlus_release_root_scores_test_with_dev_exemplars(cmmlu_release: Path, tmp_path: Path) -> None:
    # Before #31: the root's first question was cmmlu/dev/agronomy/0, and dev questions were scored as test ones.
    scored, prompts = _few_shot_run(cmmlu_release, tmp_path / "run")
    assert scored == [f"cmmlu/test/agronomy/{i}" for i in range(4)]
    assert all(p.count("test题") == 1 and p.count("dev题") == 5 for p in prompts)


def test_an_exemplar_split_that_is_the_scored_one_is_refused(cmmlu_release: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="exemplars would come from the dev split, which this run scores"):
        _few_shot_run(cmmlu_release, tmp_path / "run", split="dev")
    with pytest.raises(InputError, match="no dev question here"):  # a pool holding only the scored split
        k12eval.run(cmmlu_release, "m", tmp_path / "r2", backend=ScriptedBackend(), mode="few-shot",
                    few_shot=cmmlu_release / "test")  # fmt: skip


def test_split_chooses_and_a_missing_one_lists_what_the_bank_holds(ceval_hub: Path, tmp_path: Path) -> None:
    summary = k12eval.run(ceval_hub, "m", tmp_path / "dev", backend=ScriptedBackend("A"), split="dev")
    assert len(summary.records) == 10 and all(r.question_id.startswith("ceval/dev/") for r in summary.records)
    with pytest.raises(SettingError, match=r"^split train: not in this bank, which holds dev \(10\), val \(6\)"):
        k12eval.run(ceval_hub, "m", tmp_path / "none", backend=ScriptedBackend("A"), split="train")
    assert len(k12eval.load_bank(ceval_hub)) == 16 and len(k12eval.load_bank(ceval_hub, split="val")) == 6


def test_a_bank_of_one_other_split_is_scored_as_that_split_and_says_so(
    cmmlu_release: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    summary = k12eval.run(cmmlu_release / "dev", "m", tmp_path / "run", backend=ScriptedBackend("A"))
    assert len(summary.records) == 5 and "holds only the dev split (5 questions), not test" in caplog.text
    header = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))
    assert header["data"]["split"] == "dev"
    # Before: the protocol named the benchmark's split (test) beside the dev questions scored.
    assert header["protocol"]["split"] == "dev" and header["protocol"]["overrides"] == {}


def test_the_protocol_names_the_split_scored_on_a_ceval_dev_folder(ceval_hub: Path, tmp_path: Path) -> None:
    # C-Eval's released dev/ alone (its val split not fetched): the run scores dev and its header says dev, not val.
    k12eval.run(ceval_hub / "computer_network", "m", tmp_path / "one", backend=ScriptedBackend("A"), split="dev")
    only_dev = tmp_path / "dev-only"
    (only_dev / "computer_network").mkdir(parents=True)
    (only_dev / "computer_network" / "dev-00000-of-00001.parquet").symlink_to(
        ceval_hub / "computer_network" / "dev-00000-of-00001.parquet"
    )
    summary = k12eval.run(only_dev, "m", tmp_path / "run", backend=ScriptedBackend("A"))
    header = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))
    assert {r.question_id.split("/")[1] for r in summary.records} == {"dev"}
    assert header["data"]["split"] == header["protocol"]["split"] == "dev"
    asked = json.loads((tmp_path / "one" / "run.json").read_text(encoding="utf-8"))["protocol"]
    assert asked["split"] == "dev" and asked["overrides"]["split"] == {"protocol": "val", "given": "dev"}


def test_the_report_rebuilds_the_scored_split_only(ceval_hub: Path, tmp_path: Path) -> None:
    from runners.bank import run_bank
    from runners.store import RunStore

    k12eval.run(ceval_hub, "m", tmp_path / "run", backend=ScriptedBackend("A"))
    bank = run_bank(tmp_path / "run", RunStore(tmp_path / "run").read_header())
    assert len(bank.questions) == 6 and all(qid.startswith("ceval/val/") for qid in bank.questions)


@pytest.mark.parametrize("name", ["computer_network", "ceval-valid_computer_network", "计算机网络", "Computer Network"])
def test_subjects_take_the_hub_key_lm_evals_task_name_and_the_chinese_name(
    ceval_hub: Path, tmp_path: Path, name: str
) -> None:
    summary = k12eval.run(ceval_hub, "m", tmp_path / "run", backend=ScriptedBackend("A"), subjects=name)
    assert {r.question_id.rsplit("/", 1)[0] for r in summary.records} == {"ceval/val/computer_network"}


def test_a_subject_that_matches_nothing_lists_the_valid_ones(ceval_hub: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError) as error:
        k12eval.run(ceval_hub, "m", tmp_path / "run", backend=ScriptedBackend("A"), subjects="computer_networks")
    message = str(error.value)
    assert message.startswith("subjects computer_networks: no subject of this bank is called so")
    assert "computer_network (计算机网络), operating_system (操作系统)" in message


def test_cmmlus_lm_eval_task_names_select_their_subject(cmmlu_release: Path, tmp_path: Path) -> None:
    summary = k12eval.run(cmmlu_release, "m", tmp_path / "run", backend=ScriptedBackend("A"), subjects="cmmlu_agronomy")
    assert len(summary.records) == 4


def test_kg_stats_counts_each_split_apart(cmmlu_release: Path) -> None:
    result = CliRunner().invoke(app, ["kg", "stats", str(cmmlu_release), "--json"])
    assert result.exit_code == 0, result.output
    stats = json.loads(result.stdout)
    assert stats["by_split"] == {"dev": 5, "test": 4} and stats["evaluation_split"] == "test"
    text = CliRunner().invoke(app, ["kg", "stats", str(cmmlu_release)]).stdout
    assert text.startswith("9 questions in 2 splits (cmmlu, original)")
    assert "split: test 4 (scored by run), dev 5 (few-shot exemplars)" in text
    only = json.loads(CliRunner().invoke(app, ["kg", "stats", str(cmmlu_release), "--split", "test", "--json"]).stdout)
    assert only["questions"] == 4


def test_kg_stats_feature_shares_are_of_the_split_run_scores(cmmlu_release: Path) -> None:
    # Two dev questions with a negation (不正确): counted over test + dev, the share would be 2/9, not 1/4.
    dev, test = cmmlu_release / "dev" / "agronomy.csv", cmmlu_release / "test" / "agronomy.csv"
    dev.write_text(dev.read_text(encoding="utf-8").replace("作物是____", "下列说法不正确的是____", 2), encoding="utf-8")
    test.write_text(
        test.read_text(encoding="utf-8").replace("作物是____", "下列说法不正确的是____", 1), encoding="utf-8"
    )
    stats = json.loads(CliRunner().invoke(app, ["kg", "stats", str(cmmlu_release), "--json"]).stdout)
    assert stats["features_split"] == "test"
    assert (stats["features"]["negation"]["n"], stats["features"]["negation"]["of"]) == (1, 4)
    text = CliRunner().invoke(app, ["kg", "stats", str(cmmlu_release)]).stdout
    assert "negation (CMMLU's analysis): 1 of 4 test questions = 25.0 %" in text
    on_dev = json.loads(CliRunner().invoke(app, ["kg", "stats", str(cmmlu_release), "--split", "dev", "--json"]).stdout)
    assert (on_dev["features"]["negation"]["n"], on_dev["features"]["negation"]["of"]) == (2, 5)
    missing = CliRunner().invoke(app, ["kg", "stats", str(cmmlu_release), "--split", "val"])
    assert missing.exit_code != 0 and "its splits: dev (5), test (4)" in missing.output


@pytest.mark.shared_data
def test_the_released_cmmlu_and_ceval_roots_score_no_dev_question(shared_data: Path, tmp_path: Path) -> None:
    # The shared copies laid out as released (CMMLU's data/{dev,test}; C-Eval's dev/ with subject_mapping.json).
    data = tmp_path / "CMMLU" / "data"
    data.mkdir(parents=True)
    for split in ("dev", "test"):
        (data / split).symlink_to(shared_data / "cmmlu" / split)
    every = load_questions(data).questions
    result = CliRunner().invoke(
        app, ["run", str(data), "-m", "m", "-o", str(tmp_path / "r"), "--dry-run", "--limit", "1"]
    )
    assert result.exit_code == 0, result.output
    assert "cmmlu/test/" in result.stdout.splitlines()[2] and "cmmlu/dev/" not in result.stdout
    dev = sum(q.split == "dev" for q in every)
    assert dev == 5 * 67  # CMMLU's 5 dev questions of each of its 67 subjects
    stats = json.loads(CliRunner().invoke(app, ["kg", "stats", str(data), "--json"]).stdout)
    assert stats["by_split"] == {"test": len(every) - dev, "dev": dev}


@pytest.fixture
def with_dev_only(cmmlu_release: Path) -> Path:
    """:func:`cmmlu_release` and a subject held in dev only (anatomy: 5 exemplars, no question a run scores)."""
    lines = [",Question,A,B,C,D,Answer"] + [f"{i},解剖学题{i},甲,乙,丙,丁,A" for i in range(5)]
    (cmmlu_release / "dev" / "anatomy.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return cmmlu_release


def test_kg_stats_sparse_points_are_of_the_split_run_scores(with_dev_only: Path) -> None:
    # Anatomy is no point a run scores; agronomy's 4 test questions are, not its 9.
    cmmlu_release = with_dev_only
    result = CliRunner().invoke(app, ["kg", "stats", str(cmmlu_release)])
    assert result.exit_code == 0, result.output
    assert "warning: 1 of 1 level-2 point(s) have fewer than 10 test questions" in result.stderr
    assert "农学/农学/农学 (4)" in result.stderr and "解剖学" not in result.stderr
    stats = json.loads(CliRunner().invoke(app, ["kg", "stats", str(cmmlu_release), "--json"]).stdout)
    assert (stats["level2_under_10"], stats["level2_under_10_of"], stats["level2"]) == (1, 1, 2)
    on_dev = CliRunner().invoke(app, ["kg", "stats", str(cmmlu_release), "--split", "dev"])
    assert "warning: 2 of 2 level-2 point(s) have fewer than 10 dev questions" in on_dev.stderr


def test_kg_show_counts_each_split_apart(with_dev_only: Path) -> None:
    # agronomy holds 4 test and 5 dev questions: a run scores the 4, so the tree does not print 9.
    cmmlu_release = with_dev_only
    shown = CliRunner().invoke(app, ["kg", "show", str(cmmlu_release)])
    assert shown.exit_code == 0, shown.output
    assert "农学  (dev 5, test 4)  subject:农学" in shown.stdout
    assert "解剖学  (dev 5)  subject:解剖学" in shown.stdout
    one = CliRunner().invoke(app, ["kg", "show", str(cmmlu_release), "--split", "test"]).stdout
    assert "农学  (4)  subject:农学" in one and "解剖学" not in one
