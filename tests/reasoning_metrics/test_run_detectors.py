"""``score_run`` with the wrong-step detectors: what each record carries, what the reader makes of it,
resuming, and no NLI model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from k12eval.cli._wording import reason_text
from kg.errors import InputError
from reasoning_metrics.reasons import reason
from reasoning_metrics.score_store import read_score_lines
from reasoning_metrics.verify.registry import current_names
from reports.score_file import load_scores

from .fakes import HashEncoder, RuleNLI
from .written_runs import score_run_composed, write_bank, write_run

WRONG = "小明有5个苹果。他吃了2个。所以还剩5-2=4个。答案：C"
"""Step 2 asserts a false subtraction: the arithmetic verifier's flag, the first suspect."""


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return write_run(tmp_path / "run", write_bank(tmp_path / "bank"), outputs={"q-apples": WRONG})


def _lines(run_dir: Path) -> list[dict]:
    return [r for _, r in read_score_lines(run_dir / "scores.jsonl")]


def test_records_carry_step_flags_and_the_first_suspect(run_dir: Path) -> None:
    list(score_run_composed(run_dir, models={"encoder": HashEncoder(), "nli": RuleNLI()}, cache=False).records)
    apples, eggs = _lines(run_dir)
    steps = [s["text"] for s in apples["steps"]]
    assert steps[2] == "所以还剩5-2=4个。"
    assessment = apples["assessment"]
    assert [s["index"] for s in assessment["steps"]] == list(range(len(steps)))  # one entry per scored step
    arithmetic = [f for f in assessment["steps"][2]["flags"] if f["kind"] == "arithmetic"]
    assert [f["message"] for f in arithmetic] == ["5 - 2 = 4 does not hold (3 vs 4)"]
    assert apples["first_suspect"] == assessment["first_suspect"] <= 2
    assert {"arithmetic", "roscoe", "contradiction"} <= set(assessment["detectors"])
    assert all(s["contradiction"] is not None for s in assessment["steps"])
    # ROSCOE's part is read off the scorer's own numbers, not recomputed
    assert [s["alignment"] for s in assessment["steps"]] == [s["source_similarity"] for s in apples["steps"]]
    assert not any(f["kind"] == "arithmetic" for s in eggs["assessment"]["steps"] for f in s["flags"])  # 16-3-4=9
    header = json.loads((run_dir / "scores.json").read_text(encoding="utf-8"))
    assert "contradiction" in header["detectors"]


def test_the_reader_sees_what_the_writer_wrote(run_dir: Path) -> None:
    list(score_run_composed(run_dir, models={"encoder": HashEncoder(), "nli": RuleNLI()}, cache=False).records)
    (line, _) = _lines(run_dir)
    read = load_scores(run_dir)["q-apples"]
    assert read.first_suspect == line["first_suspect"]
    step = read.steps[2]
    assert "arithmetic" in [f.kind for f in step.findings]
    assert step.suspicion == pytest.approx(line["assessment"]["steps"][2]["suspicion"])
    raw = line["steps"][2]
    assert step.best_source is not None and step.best_source.text == line["source_steps"][raw["source_index"]]
    assert step.best_reference is not None
    assert step.best_reference.text == line["reference_steps"][raw["reference_index"]]
    assert step.max_contradiction is not None and step.max_contradiction.score == pytest.approx(raw["contradiction"])
    assert "source_index" not in step.values and "repeat_similarity" in step.values
    assert [f.kind for f in read.solution_findings] == [f["kind"] for f in line["assessment"]["flags"]]


def test_without_an_nli_model_contradictions_are_absent_with_the_reason(run_dir: Path) -> None:
    models = {"encoder": HashEncoder()}
    list(score_run_composed(run_dir, models=models, metrics=["faithfulness_step"], cache=False).records)
    (line, _) = _lines(run_dir)
    assessment = line["assessment"]
    assert "contradiction" not in assessment["detectors"]
    assert assessment["unavailable"]["contradiction"] == reason("nli_not_needed")  # a code: no flag in the record
    assert reason_text(assessment["unavailable"]["contradiction"]).endswith("(pass --nli)")  # the CLI's words
    assert all(s["contradiction"] is None for s in assessment["steps"])
    assert not any(f["kind"] == "contradiction" for s in assessment["steps"] for f in s["flags"])
    assert line["first_suspect"] == 2  # the verifier still finds the false step
    other = write_run(run_dir.parent / "none", run_dir.parent / "bank" / "单选.jsonl", outputs={"q-apples": WRONG})
    list(score_run_composed(other, models={**models, "nli": "none"}, cache=False).records)
    assert _lines(other)[0]["assessment"]["unavailable"]["contradiction"] == reason("no_model", "nli", "zh")


def test_an_nli_model_given_for_the_detectors_alone_is_used_and_recorded(run_dir: Path) -> None:
    nli = RuleNLI()
    models = {"encoder": HashEncoder(), "nli": nli}
    list(score_run_composed(run_dir, models=models, metrics=["faithfulness_step"], cache=False).records)
    assert "contradiction" in _lines(run_dir)[0]["assessment"]["detectors"]
    # No metric needs NLI here, so every pair is the detector's: the stem and earlier steps, never the options.
    premises = {p for call in nli.calls for p, _ in call}
    assert "小明有$$5$$个苹果，吃了$$2$$个，还剩几个？" in premises and "小明有5个苹果。" in premises
    assert not any(p.startswith(("A. ", "B. ", "C. ", "D. ")) for p in premises)
    header = json.loads((run_dir / "scores.json").read_text(encoding="utf-8"))
    assert header["models"]["nli"] == {"en": "rule-nli", "zh": "rule-nli"}


def test_no_detectors_writes_no_flags_and_resuming_must_match(run_dir: Path) -> None:
    models = {"encoder": HashEncoder(), "nli": RuleNLI()}
    job = score_run_composed(run_dir, models=models, cache=False, chunk_size=1, detectors=False)
    next(job.records)
    job.records.close()  # type: ignore[attr-defined]
    (line,) = _lines(run_dir)
    assert line["first_suspect"] is None and line["assessment"] is None
    assert load_scores(run_dir)["q-apples"].first_suspect is None
    with pytest.raises(InputError, match=r"scored with other detectors .*resume with detectors= as it was"):
        score_run_composed(run_dir, models=models, cache=False)
    again = score_run_composed(run_dir, models=models, cache=False, detectors=False)
    assert (again.todo, again.already) == (1, 1)
    list(again.records)
    assert [r["assessment"] for r in _lines(run_dir)] == [None, None]


def test_a_file_scored_before_the_detectors_loads_and_resumes_without_them(run_dir: Path) -> None:
    models = {"encoder": HashEncoder(), "nli": RuleNLI()}
    job = score_run_composed(run_dir, models=models, cache=False, chunk_size=1, detectors=False)
    next(job.records)
    job.records.close()  # type: ignore[attr-defined]
    header = json.loads((run_dir / "scores.json").read_text(encoding="utf-8"))
    del header["detectors"]  # as written before the field existed
    (run_dir / "scores.json").write_text(json.dumps(header), encoding="utf-8")
    (line,) = _lines(run_dir)
    del line["first_suspect"], line["assessment"]
    (run_dir / "scores.jsonl").write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    old = load_scores(run_dir)["q-apples"]
    assert old.first_suspect is None and all(not s.findings for s in old.steps)
    assert old.steps[0].best_source is not None  # the scorer's step matches were always there
    with pytest.raises(InputError, match="scored with other detectors"):
        score_run_composed(run_dir, models=models, cache=False)
    list(score_run_composed(run_dir, models=models, cache=False, detectors=False).records)
    assert [r["id"] for r in _lines(run_dir)] == ["q-apples", "q-eggs"]


def test_contradictions_reuse_the_cache(run_dir: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    list(score_run_composed(run_dir, models={"encoder": HashEncoder(), "nli": RuleNLI()}, cache=cache).records)
    first = json.loads((run_dir / "scores.jsonl").read_text(encoding="utf-8").splitlines()[0])
    (run_dir / "scores.jsonl").unlink()
    (run_dir / "scores.json").unlink()
    nli = RuleNLI()
    list(score_run_composed(run_dir, models={"encoder": HashEncoder(), "nli": nli}, cache=cache).records)
    assert nli.calls == []  # every pair, the metrics' and the detectors', came from the cache
    again = json.loads((run_dir / "scores.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert again["assessment"] == first["assessment"]


OLD_NAMES = [
    "arithmetic",
    "equations",
    "facts",
    "reference",
    "option_verdicts",
    "quantities",
    "doubt",
    "completeness",
    "roscoe",
    "contradiction",
]
"""The detectors line of a score header written before the registry named each detector once (with the
detectors registered since, so that only the renaming differs from today's list)."""


def test_a_file_scored_under_the_old_detector_names_resumes(run_dir: Path) -> None:
    models = {"encoder": HashEncoder(), "nli": RuleNLI()}
    job = score_run_composed(run_dir, models=models, cache=False, chunk_size=1)
    next(job.records)
    job.records.close()  # type: ignore[attr-defined]
    header = json.loads((run_dir / "scores.json").read_text(encoding="utf-8"))
    header["detectors"] = OLD_NAMES
    (run_dir / "scores.json").write_text(json.dumps(header), encoding="utf-8")
    (line,) = _lines(run_dir)
    line["assessment"]["detectors"] = OLD_NAMES
    (run_dir / "scores.jsonl").write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    again = score_run_composed(run_dir, models=models, cache=False)
    assert (again.todo, again.already) == (1, 1)
    list(again.records)
    old, new = (r["assessment"] for r in _lines(run_dir))
    assert old["detectors"] == OLD_NAMES  # the old line is kept as written; its names read as today's
    assert current_names(old["detectors"]) == new["detectors"]
    # Before: "resume with detectors= as it was", which the command line words "resume with --no-detectors".
    with pytest.raises(InputError, match=r"scored with other detectors .*resume with the detectors on, as it was"):
        score_run_composed(run_dir, models=models, cache=False, detectors=False)


def test_score_gives_the_reference_detector_the_bank_answer_analysis_and_grading(tmp_path: Path) -> None:
    wrong = "小明有5个苹果。他吃了2个。所以还剩5-2=3个。答案：C"  # right arithmetic, wrong letter
    run = write_run(tmp_path / "run", write_bank(tmp_path / "bank"), outputs={"q-apples": wrong})
    records = run / "records.jsonl"
    lines = [json.loads(line) for line in records.read_text(encoding="utf-8").splitlines()]
    lines[0]["correct"] = False  # the run graded the apples answer wrong, the eggs one right
    lines[1]["correct"] = True
    records.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines), encoding="utf-8")
    list(score_run_composed(run, models={"encoder": HashEncoder(), "nli": RuleNLI()}, cache=False).records)
    apples, eggs = _lines(run)
    assert "reference" in apples["assessment"]["detectors"]
    last = apples["assessment"]["steps"][-1]["flags"]
    assert [f["message"] for f in last if f["kind"] == "reference_answer"] == ["chooses C; the gold answer is B"]
    assert apples["first_suspect"] >= 0
    assert not [f for s in eggs["assessment"]["steps"] for f in s["flags"] if f["kind"].startswith("reference")]
