"""CMMLU's released scoring path, ported (#31 item 8): its extractor by hand, and its per-subject and category
figures recomputed from the same answers by the released path and by ``k12eval run`` + ``report``.

What CMMLU publishes cannot all be recomputed here: its tables (README leaderboard, paper) are model runs whose
answers the release does not include. What the release does let one recompute without a model is recomputed:
its counts (67 subjects, 5 dev questions each, 11,582 test questions; summaries of the paper quote 11,528),
and the path from answers to the printed figures (subject accuracy, category = unweighted mean of subject
accuracies, Overall), run by the release's rules and by k12eval on the same answers. The answers are written
for this test, in the release's ``results_<subject>.csv`` layout, over real test rows of ``../shared/data/cmmlu``
(CC BY-NC-SA 4.0; read, never copied). With ``$K12EVAL_CMMLU_RELEASE`` naming a clone of
github.com/haonan-li/CMMLU, the released ``src/mp_utils.py`` itself is run as well.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import random
import sys
import types
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from kg.importers import load_questions
from kg.importers._cmmlu_subjects import SUBJECTS, categories_of
from runners.cmmlu_release import CHOICES, category_members, release_accuracy, release_choice, release_scores

# (response, the release's letter, None where it draws at random)
CASES = [
    ("B", "B"),
    ("Because of this, C", "B"),  # the first character is a letter: the release reads "B" of "Because"
    ("答案是：C", "C"),
    ("正确答案是D。", "D"),  # stage 1's "答案?：?X" form finds D
    ("A项错误，B项错误，C项正确", "A"),  # the first character again
    ("这里A项错误，B项错误，C项正确", "C"),  # stage 1: "X 项正确"
    ("分析：A说法不当选，C当选", "A"),  # stage 2: the letter before the first 当选, though 不当选 rules A out
    ("其中B和D之间，D正确", "D"),  # stage 2: the last letter before the first 正确
    ("这道题的结果是 D", "D"),  # stage 3: 是 X
    ("我认为应该是第三个，也就是C", "C"),  # stage 3 (是C) before stage 4
    ("只有 A 说得通", "A"),  # stage 4: the only letter named
    ("我不知道", None),  # no letter: the release guesses
    ("有人说A和B都有道理", None),  # two letters, no pattern: the release guesses
    (float("nan"), None),  # a blank cell (pandas NaN) is read as "nan"
]


@pytest.mark.parametrize(("response", "letter"), CASES)
def test_the_released_extractor_by_hand(response: object, letter: str | None) -> None:
    assert release_choice(response) == letter
    drawn = release_choice(response, random.Random(0))
    assert drawn == letter if letter else drawn in CHOICES


def test_category_members_and_the_zero_a_missing_subject_counts() -> None:
    members = category_members()
    assert {k: len(v) for k, v in members.items()} == {
        "STEM": 17,
        "Humanities": 13,
        "Social Science": 22,
        "Other": 15,
        "China specific": 15,
    }
    # The same subjects in the same categories as k12eval's importer files them.
    for category, keys in members.items():
        assert all(category in categories_of(SUBJECTS[key][1]) for key in keys)
    printed = release_scores({"high_school_physics": 50.0})  # one STEM subject of 17 asked
    assert printed["STEM"] == pytest.approx(50 / 17)
    assert printed["Overall"] == pytest.approx(50 / 67)
    assert release_accuracy([("A", "A"), ("B", "答案是：C")]) == 50.0


def _response(gold: str, i: int) -> str:
    """A written answer for row ``i``, in forms both extractors read alike: right on about 5 of 8 rows."""
    wrong = CHOICES[(CHOICES.index(gold) + 1) % 4]
    return [wrong, f"答案是：{gold}", gold, f"故选{gold if i % 8 == 3 else wrong}。"][i % 4]


def _written_results(test_dir: Path, out: Path) -> tuple[Path, Path]:
    """Release result files (``results_<subject>.csv``, as ``run_eval`` writes them: no header, the index, the
    row, the response) and the same answers as a k12eval replay file."""
    folder = out / "cmmlu_results_0_shot"
    folder.mkdir(parents=True)
    replay = []
    for file in sorted(test_dir.glob("*.csv")):
        frame = pd.read_csv(file, header=0, index_col=0)  # as run_eval reads a subject
        frame["prediction"] = [_response(str(g), i) for i, g in enumerate(frame["Answer"])]
        frame.to_csv(folder / f"results_{file.stem}.csv", header=None)
        for index, response in frame["prediction"].items():
            replay.append({"question_id": f"cmmlu/test/{file.stem}/{index}", "output": response})
    records = out / "answers.jsonl"
    records.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in replay), encoding="utf-8")
    return folder, records


def _release_accuracies(folder: Path) -> dict[str, float]:
    """``get_results``'s per-subject accuracy, by the port, over the folder as the release reads it."""
    accuracy = {}
    for file in sorted(folder.glob("results_*.csv")):
        frame = pd.read_csv(file, names=["id", "question", "A", "B", "C", "D", "answer", "response"], index_col=0)
        accuracy[file.stem.removeprefix("results_")] = release_accuracy(
            zip(frame["answer"], frame["response"], strict=True)
        )
    return accuracy


def _cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.slow
@pytest.mark.shared_data
def test_the_released_figures_and_k12evals_agree_on_the_same_answers(shared_data: Path, tmp_path: Path) -> None:
    root = shared_data / "cmmlu"
    folder, answers = _written_results(root / "test", tmp_path)
    release = _release_accuracies(folder)
    assert len(release) == 6

    run = tmp_path / "run"
    _cli("run", str(root), "-m", str(answers), "-b", "replay", "-o", str(run))
    _cli("report", str(run), "-o", str(tmp_path / "report"), "--no-plots")
    with (tmp_path / "report" / "tables" / "cmmlu_categories.csv").open(encoding="utf-8-sig") as handle:
        (row,) = list(csv.DictReader(handle))
    # k12eval: each category the mean of the subjects asked; the release's rule over the same subjects.
    asked = {k: [s for s in keys if s in release] for k, keys in category_members().items()}
    for category, keys in asked.items():
        if keys:
            assert float(row[category]) == pytest.approx(sum(release[s] for s in keys) / len(keys), abs=0.05)
    assert float(row["average (macro over subjects)"]) == pytest.approx(sum(release.values()) / 6, abs=0.05)
    assert row["asked / in bank"] == "1,202 / 1,202"
    # What the release prints for the same folder: the 61 subjects never asked count 0.
    printed = release_scores(release)
    assert printed["Overall"] == pytest.approx(sum(release.values()) / 67)
    assert printed["Overall"] < float(row["average (macro over subjects)"]) / 10


@pytest.mark.shared_data
def test_the_released_dev_counts(shared_data: Path) -> None:
    """5 dev questions in each of the 67 subjects, read as ``run_eval`` reads them and as k12eval imports them."""
    dev = shared_data / "cmmlu" / "dev"
    counts = {f.stem: len(pd.read_csv(f, header=0, index_col=0)) for f in dev.glob("*.csv")}
    assert set(counts) == set(SUBJECTS) and set(counts.values()) == {5}
    assert len(load_questions(dev).questions) == 5 * 67


RELEASE = os.environ.get("K12EVAL_CMMLU_RELEASE")


def _released_mp_utils(clone: Path) -> types.ModuleType:
    """The release's own ``src/mp_utils.py``, imported from where it lies (never copied)."""
    sys.path.insert(0, str(clone / "src"))
    try:
        spec = importlib.util.spec_from_file_location("cmmlu_released_mp_utils", clone / "src" / "mp_utils.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(clone / "src"))
    return module


@pytest.mark.slow
@pytest.mark.skipif(not RELEASE, reason="set K12EVAL_CMMLU_RELEASE to a clone of github.com/haonan-li/CMMLU")
def test_the_released_code_itself(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """On the whole released test set: its counts by the release's reading and by k12eval's importer, and
    ``extract_choice`` and ``get_results`` against the port on the same answers."""
    clone = Path(str(RELEASE))
    test_dir = clone / "data" / "test"
    counts = {f.stem: len(pd.read_csv(f, header=0, index_col=0)) for f in test_dir.glob("*.csv")}
    assert len(counts) == 67 and sum(counts.values()) == 11_582
    assert min(counts.values()) == 105  # "at least 105 questions per subject" (philosophy, college mathematics)
    assert len(load_questions(test_dir).questions) == 11_582

    released = _released_mp_utils(clone)
    for response, letter in CASES:
        if letter is not None:
            assert released.extract_choice(response) == letter, response
    folder, _ = _written_results(test_dir, tmp_path)
    capsys.readouterr()
    all_acc = released.get_results(str(folder))
    printed = capsys.readouterr().out
    ours = _release_accuracies(folder)
    assert all_acc == pytest.approx(ours)
    for name, value in release_scores(ours).items():
        label = {"Overall": f"{'Overall':30s}"}.get(name, f"{name:40s}")
        assert f"{label} {value:.2f}" in printed
