"""The ``gaokao-labels`` meta-eval format (#36 item 3): labels kept here, question and answer joined from the release.

The release below is written here in GAOKAO-Bench's layout (``Data/Objective_Questions/*.json`` and
``Results/gpt_4_0314_obj/*.json`` beside it) with invented questions and outputs, by the helpers of
``tests.kg.test_importers_gaokao`` and ``tests.runners.backends.test_replay_gaokao``.
``test_the_stored_set_*`` reads ``data/gaokao_errors/`` against the release itself when ``K12EVAL_GAOKAO_DATA``
names its ``Data/`` folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from kg.errors import InputError
from kg.importers import load_questions
from reasoning_metrics.metaeval import load_solutions
from reasoning_metrics.metaeval.ck12_labels import KINDS
from reasoning_metrics.metaeval.flag_rates import stem_of
from reasoning_metrics.metaeval.gaokao_labels import GAOKAO_ENV, gaokao_outputs, output_hash
from reasoning_metrics.run_scoring import question_source
from reasoning_metrics.split import split_steps
from tests.conftest import REPO
from tests.importer_helpers import write_jsonl
from tests.kg.test_importers_gaokao import MATH, release
from tests.runners.backends.test_replay_gaokao import OUTPUTS, results_folder

RESULTS = "Results/gpt_4_0314_obj"
MATH_I = "2010-2022_Math_I_MCQs"
WRONG = "【解析】集合 $A=\\{1,2\\}$ 有两个元素 1 和 2。\n还要算上空集，所以元素个数为 3。<eoe>\n【答案】D <eoa>"
RIGHT = "【解析】乙正确，因为它满足条件。\n甲、丙、丁都不满足。<eoe>\n【答案】B <eoa>"
ANSWERS = OUTPUTS | {MATH_I: [(WRONG, ["D"]), (RIGHT, ["B"]), ("【解析】实验二可以。<eoe>\n【答案】D <eoa>", ["D"])]}
"""The release's answers, Math I's of more than one step: the first wrong at its second step, the second right."""
STORED = REPO / "data" / "gaokao_errors" / "gpt-4-0314.jsonl"


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The release's ``Data/`` folder, found through $K12EVAL_GAOKAO_DATA, with ``Results/`` beside it."""
    folder = release(tmp_path)
    results_folder(tmp_path, folder, outputs=ANSWERS)
    monkeypatch.setenv(GAOKAO_ENV, str(folder))
    return folder


def label(position: int = 0, output: str = WRONG, **changes: Any) -> dict[str, Any]:
    """The label of Math I's answer at ``position`` as ``scripts/ck12_errors.py build --results`` stores it."""
    record = {
        "id": f"gaokao/{MATH_I}/{position}/gpt-4-0314",
        "question_id": f"gaokao/{MATH_I}/{position}",
        "model": "gpt-4-0314",
        "results": RESULTS,
        "output_sha256": output_hash(output),
        "steps": len(split_steps(output)),
        "extracted": ["D"],
        "graded_correct": False,
        "first_error": 1,
        "kind": "false_fact",
        "note": "空集不是 A 的元素",
    }
    return record | changes


def right_label() -> dict[str, Any]:
    return label(1, RIGHT, extracted=["B"], graded_correct=True, first_error=-1, kind=None)


def test_the_question_and_the_answer_are_joined_from_the_release(data: Path, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "labels.jsonl", [label(), right_label()])
    wrong, right = load_solutions(path, "gaokao-labels")
    assert wrong.problem == MATH.strip()  # the stem lists the options: once, not again below it
    assert [line for line in wrong.problem.splitlines() if line.startswith("A.")] == ["A. 0"]
    assert stem_of(wrong) == wrong.problem  # flag rates score against what score does: the whole stem
    assert wrong.steps == tuple(split_steps(WRONG)) and len(wrong.steps) > 2
    assert (wrong.has_error, wrong.first_error) == (True, 1)
    assert wrong.step_labels == (False, True) + (None,) * (len(wrong.steps) - 2)
    assert wrong.meta["kind"] == "false_fact" and wrong.meta["graded_correct"] is False
    assert wrong.meta["options_in_stem"] is True and wrong.meta["gold"] == ["C"]
    assert wrong.meta["question_id"] == f"gaokao/{MATH_I}/0" and wrong.meta["extracted"] == ["D"]
    assert wrong.meta["analysis"].startswith("解：") and wrong.lang == "zh"
    assert right.steps == tuple(split_steps(RIGHT)) and right.problem.startswith("4.下列叙述正确的是")
    assert (right.has_error, right.target, right.meta["kind"], right.meta["graded_correct"]) == (False, -1, None, True)


def rewrite_output(data: Path, position: int, output: str) -> None:
    """The release's answer at Math I ``position`` replaced, as a release that changed its results would leave it."""
    file = data.parent / RESULTS / f"gpt-4-0314_{MATH_I}.json"
    document = json.loads(file.read_text("utf-8"))
    document["example"][position]["model_output"] = output
    file.write_text(json.dumps(document, ensure_ascii=False), "utf-8")


@pytest.mark.parametrize(
    ("changes", "field", "says"),
    [
        ({"output_sha256": output_hash(WRONG + " ")}, "output_sha256", "is not the one labelled"),
        ({"steps": len(split_steps(WRONG)) + 1}, "steps", "the output splits into"),
        ({"question_id": f"gaokao/{MATH_I}/9"}, "question_id", "is not in the release"),
        ({"question_id": "gaokao/2010-2022_Math_II_MCQs/0"}, "question_id", "is not in the release"),
        ({"results": "Results/gpt_3_obj"}, "results", "no result folder"),
        ({"results": "/etc"}, "results", "outside the release"),  # a labelled file names no folder beyond it
        ({"results": "../../x"}, "results", "outside the release"),
        ({"first_error": len(split_steps(WRONG))}, "first_error", "step index below"),
        ({"kind": "typo"}, "kind", "expected one of"),
        ({"id": ""}, "id", "non-empty string"),
    ],
)
def test_a_label_that_does_not_fit_the_release_names_its_line_and_field(
    data: Path, tmp_path: Path, changes: dict[str, Any], field: str, says: str
) -> None:
    path = write_jsonl(tmp_path / "labels.jsonl", [right_label(), label(**changes)])
    with pytest.raises(InputError, match=rf"labels\.jsonl, line 2, field '{field}'") as error:
        load_solutions(path, "gaokao-labels")
    assert says in str(error.value)


def test_a_record_without_the_hash_is_told_the_field_is_missing(data: Path, tmp_path: Path) -> None:
    record = label()
    del record["output_sha256"]
    path = write_jsonl(tmp_path / "labels.jsonl", [record])
    with pytest.raises(InputError, match=r"line 1, field 'output_sha256': expected a non-empty string"):
        load_solutions(path, "gaokao-labels")


def test_an_answer_the_release_changed_since_it_was_labelled_is_refused(data: Path, tmp_path: Path) -> None:
    rewrite_output(data, 0, WRONG.replace("所以元素个数为 3", "所以元素个数为 2"))
    path = write_jsonl(tmp_path / "labels.jsonl", [right_label(), label()])
    with pytest.raises(InputError, match=r"labels\.jsonl, line 2, field 'output_sha256': the answer in .*gpt_4_0314"):
        load_solutions(path, "gaokao-labels")


def test_a_question_the_results_do_not_answer_is_refused(data: Path, tmp_path: Path) -> None:
    # Physics' answer file left out: its question is in the bank, its answer nowhere.
    (data.parent / RESULTS / "gpt-4-0314_2010-2022_Physics_MCQs.json").unlink()
    physics = label(question_id="gaokao/2010-2022_Physics_MCQs/0", id="gaokao/2010-2022_Physics_MCQs/0/gpt-4-0314")
    path = write_jsonl(tmp_path / "labels.jsonl", [physics])
    with pytest.raises(InputError, match=r"line 1, field 'question_id': .* has no answer in"):
        load_solutions(path, "gaokao-labels")


def test_without_the_results_folder_the_error_names_the_folder(data: Path, tmp_path: Path) -> None:
    (data.parent / RESULTS).rename(tmp_path / "elsewhere")
    path = write_jsonl(tmp_path / "labels.jsonl", [label()])
    with pytest.raises(InputError, match=r"line 1, field 'results': no result folder .*gpt_4_0314_obj"):
        load_solutions(path, "gaokao-labels")


def test_without_the_data_folder_the_error_says_where_to_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(GAOKAO_ENV, str(tmp_path / "missing" / "Data"))
    path = write_jsonl(tmp_path / "labels.jsonl", [label()])
    with pytest.raises(InputError, match=rf"labels\.jsonl: .* not at .*missing.*; set {GAOKAO_ENV}"):
        load_solutions(path, "gaokao-labels")


def test_score_reads_a_stem_that_lists_its_options_with_each_option_once(tmp_path: Path) -> None:
    questions = {q.id: q for q in load_questions(release(tmp_path), "gaokao").questions}
    question = questions[f"gaokao/{MATH_I}/0"]
    assert question.extra["options_in_stem"] and len(question.options) == 4
    lines = question_source(question).splitlines()
    assert [lines.count(f"{o.label}. {o.text}") for o in question.options] == [1, 1, 1, 1]
    assert question_source(question) == MATH.strip()
    # A stem that does not list them (CK12's) still gets one line per option after it.
    plain = question.model_copy(update={"stem": "已知集合 $A=\\{1,2\\}$，则 $A$ 的元素个数为（ ）", "extra": {}})
    assert question_source(plain).splitlines()[1:] == ["A. 0", "B. 1", "C. 2", "D. 3"]


def test_meta_eval_reads_the_format_from_the_command_line(data: Path, tmp_path: Path) -> None:
    physics = label(
        question_id="gaokao/2010-2022_Physics_MCQs/0",
        id="gaokao/2010-2022_Physics_MCQs/0/gpt-4-0314",
        output_sha256=output_hash(ANSWERS["2010-2022_Physics_MCQs"][0][0]),
        steps=len(split_steps(ANSWERS["2010-2022_Physics_MCQs"][0][0])),
        first_error=0,
    )
    path = write_jsonl(tmp_path / "labels.jsonl", [label(), right_label(), physics])
    args = ["meta-eval", str(path), "--format", "gaokao-labels", "--nli", "none", "--encoder", "none"]
    result = CliRunner().invoke(app, [*args, "-d", "aggregate", "--boot", "0"])
    assert result.exit_code == 0, result.output
    assert "(gaokao-labels)" in result.output
    assert "3 solutions, 2 with an error (2 with a known first wrong step)" in " ".join(result.output.split())


RELEASE = os.environ.get(GAOKAO_ENV)


@pytest.mark.skipif(not RELEASE, reason=f"{GAOKAO_ENV} (the release's Data/ folder) is not set")
def test_the_stored_set_is_read_against_the_release_with_every_hash_and_step_count() -> None:
    assert RELEASE is not None
    records = [json.loads(line) for line in STORED.read_text("utf-8").splitlines()]
    solutions = load_solutions(STORED, "gaokao-labels")
    assert len(solutions) == len(records) == 112 and len({s.id for s in solutions}) == 112
    outputs = gaokao_outputs((Path(RELEASE).parent / RESULTS).resolve())
    for record, solution in zip(records, solutions, strict=True):
        output = outputs[record["question_id"]]
        assert output_hash(output) == record["output_sha256"], record["id"]
        assert len(split_steps(output)) == record["steps"] == len(solution.steps), record["id"]
        assert solution.meta["options_in_stem"] and solution.meta["kind"] in {*KINDS, None}
    # The grades drawn: 16 wrong and 12 right per file, of four files.
    assert sum(not r["graded_correct"] for r in records) == 64 and sum(r["graded_correct"] for r in records) == 48
    # No release text stored: neither a stem, an analysis nor an output.
    text = STORED.read_text("utf-8")
    assert all(s.problem[:40] not in text and s.meta["analysis"][:40] not in text for s in solutions)
    assert all(record.keys().isdisjoint({"output", "question", "stem", "analysis", "problem"}) for record in records)


def test_an_answer_made_here_is_read_with_its_own_steps(data: Path, tmp_path: Path) -> None:
    # A model run here on the release's questions: its output and steps are kept (as ck12-labels keeps them),
    # no result folder, no hash; only the question is joined from the release.
    steps = ["【解析】集合 A 有 3 个元素。", "所以选 D。", "【答案】D <eoa>"]
    mine = label(model="qwen", steps=steps, output="\n".join(steps), first_error=0, kind="false_fact")
    for key in ("results", "output_sha256"):
        del mine[key]
    (solution,) = load_solutions(write_jsonl(tmp_path / "labels.jsonl", [mine]), "gaokao-labels")
    assert solution.steps == tuple(steps) and solution.first_error == 0
    assert solution.problem == MATH.strip()
    bad = write_jsonl(tmp_path / "bad.jsonl", [mine | {"steps": []}])
    with pytest.raises(InputError, match=r"bad\.jsonl, line 1, field 'steps'"):
        load_solutions(bad, "gaokao-labels")


@pytest.mark.skipif(not RELEASE, reason="K12EVAL_GAOKAO_DATA (the release's Data/ folder) is not set")
def test_the_small_models_set_keeps_its_answers_and_no_release_text() -> None:
    stored = REPO / "data" / "gaokao_errors" / "qwen2.5-coder-0.5b-instruct.jsonl"
    records = [json.loads(line) for line in stored.read_text("utf-8").splitlines()]
    solutions = load_solutions(stored, "gaokao-labels")
    assert len(solutions) == len(records) == 77
    for record, solution in zip(records, solutions, strict=True):
        assert record["steps"] == split_steps(record["output"]) == list(solution.steps), record["id"]
        assert "results" not in record and solution.meta["options_in_stem"]
    text = stored.read_text("utf-8")
    assert all(s.meta["analysis"][:40] not in text for s in solutions if len(s.meta["analysis"]) >= 40)
