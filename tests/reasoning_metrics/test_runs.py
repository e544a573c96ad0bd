"""Scoring a run: source and reference reloaded from the bank, typed records, resumable, no duplicates."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kg.errors import InputError, SettingError
from reasoning_metrics.run_scoring import question_source, run_chains
from reasoning_metrics.score_store import read_score_lines
from tests.qfactory import single

from .fakes import HashEncoder, RuleNLI
from .written_runs import score_run_composed, write_bank, write_run

FAKES = {"encoder": HashEncoder(), "nli": RuleNLI()}


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return write_run(tmp_path / "run", write_bank(tmp_path / "bank"))


def _ids(path: Path) -> list[str]:
    return [r["id"] for _, r in read_score_lines(path)]


def test_chains_carry_the_stem_as_source_and_analysis_as_reference(run_dir: Path) -> None:
    run = run_chains(run_dir)
    assert run.no_output == 1
    assert [c.id for _, c in run.chains] == ["q-apples", "q-eggs"]
    chain = run.chains[0][1]
    assert chain.source == "小明有$$5$$个苹果，吃了$$2$$个，还剩几个？"  # the options are not facts to rest on
    assert run.problems["q-apples"].splitlines()[1:] == ["A. $$2$$", "B. $$3$$", "C. $$4$$", "D. $$7$$"]
    assert isinstance(chain.reference, str) and chain.reference.startswith("小明原有")


def test_the_options_join_the_source_only_when_asked(run_dir: Path) -> None:
    chain = run_chains(run_dir, with_options=True).chains[0][1]
    assert chain.source.splitlines() == [
        "小明有$$5$$个苹果，吃了$$2$$个，还剩几个？",
        "A. $$2$$",
        "B. $$3$$",
        "C. $$4$$",
        "D. $$7$$",
    ]


def test_the_header_says_which_source_and_a_resume_with_the_other_is_refused(run_dir: Path) -> None:
    encoder = HashEncoder()
    list(score_run_composed(run_dir, models={**FAKES, "encoder": encoder}, cache=False).records)
    seen = {text for call in encoder.calls for text in call}
    assert "A. $$2$$" not in seen and "小明有$$5$$个苹果，吃了$$2$$个，还剩几个？" in seen  # no option seen
    lines = [r for _, r in read_score_lines(run_dir / "scores.jsonl")]
    assert lines[0]["source_steps"] == ["小明有$$5$$个苹果，吃了$$2$$个，还剩几个？"]
    assert json.loads((run_dir / "scores.json").read_text(encoding="utf-8"))["source"] == "stem"
    with pytest.raises(InputError, match=r"scored with other source \(source: \"stem\"\)"):
        score_run_composed(run_dir, models=FAKES, cache=False, source_with_options=True)
    out = run_dir / "with-options.jsonl"
    list(score_run_composed(run_dir, out=out, models=FAKES, cache=False, source_with_options=True).records)
    lines = [r for _, r in read_score_lines(out)]
    assert lines[0]["source_steps"][-4:] == ["A. $$2$$", "B. $$3$$", "C. $$4$$", "D. $$7$$"]
    assert json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))["source"] == "stem+options"


def test_score_run_writes_typed_records_with_node_ids(run_dir: Path) -> None:
    job = score_run_composed(run_dir, models=FAKES, cache=False)
    assert (job.todo, job.already, job.no_output) == (2, 0, 1)
    records = list(job.records)
    assert [r.question_id for r in records] == ["q-apples", "q-eggs"]
    lines = [r for _, r in read_score_lines(run_dir / "scores.jsonl")]
    assert [r["nodes"]["level2"] for r in lines] == ["l2:数学/运算/减法"] * 2
    assert lines[0]["reference_steps"] == [
        "小明原有$$5$$个苹果，",
        "吃了$$2$$个，还剩$$5-2=3$$个．",
        "故选$${B}$$．",
    ]
    assert lines[0]["lang"] == "zh" and lines[0]["version"] == 1
    assert all(v is not None for v in lines[0]["scores"].values())
    header = json.loads((run_dir / "scores.json").read_text(encoding="utf-8"))
    assert header["models"]["encoder"] == {"en": "hash-encoder", "zh": "hash-encoder"}


def test_an_interrupted_run_resumes_without_duplicates(run_dir: Path) -> None:
    job = score_run_composed(run_dir, models=FAKES, cache=False, chunk_size=1)
    next(job.records)  # killed after the first record
    job.records.close()  # type: ignore[attr-defined]
    assert _ids(run_dir / "scores.jsonl") == ["q-apples"]
    again = score_run_composed(run_dir, models=FAKES, cache=False)
    assert (again.todo, again.already) == (1, 1)
    list(again.records)
    assert _ids(run_dir / "scores.jsonl") == ["q-apples", "q-eggs"]
    done = score_run_composed(run_dir, models=FAKES, cache=False)
    assert (done.todo, done.already) == (0, 2) and list(done.records) == []
    assert _ids(run_dir / "scores.jsonl") == ["q-apples", "q-eggs"]


def test_a_line_torn_by_a_kill_is_rescored_once(run_dir: Path) -> None:
    list(score_run_composed(run_dir, models=FAKES, cache=False).records)
    out = run_dir / "scores.jsonl"
    data = out.read_bytes()
    out.write_bytes(data[: len(data) - 40])  # the last record was being written
    job = score_run_composed(run_dir, models=FAKES, cache=False)
    assert job.todo == 1
    list(job.records)
    assert _ids(out) == ["q-apples", "q-eggs"]
    assert all(line.endswith(b"}") for line in out.read_bytes().splitlines())


def test_a_damaged_line_in_the_middle_stops_with_its_line_number(run_dir: Path) -> None:
    list(score_run_composed(run_dir, models=FAKES, cache=False).records)  # its header: a file it scored into
    out = run_dir / "scores.jsonl"
    out.write_text('{"id": "q-apples"}\nnot json\n{"id": "q-eggs"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"scores\.jsonl, line 2: not a score record"):
        score_run_composed(run_dir, models=FAKES, cache=False)


def test_resuming_with_other_metrics_or_models_is_refused(run_dir: Path) -> None:
    list(score_run_composed(run_dir, models=FAKES, cache=False).records)
    with pytest.raises(InputError, match="scored with other metrics"):
        score_run_composed(run_dir, models=FAKES, metrics=["faithfulness_step"], cache=False)
    other = HashEncoder()
    other.name = "other-encoder"
    with pytest.raises(InputError, match="scored with other models"):
        score_run_composed(run_dir, models={**FAKES, "encoder": other}, cache=False)


def test_run_errors_name_file_line_and_field(tmp_path: Path) -> None:
    bank = write_bank(tmp_path / "bank")
    plain = write_run(tmp_path / "plain", bank, mode="zero-shot")
    with pytest.raises(InputError, match="field 'mode': 'zero-shot' runs have no chains of thought"):
        run_chains(plain)
    run = write_run(tmp_path / "run", bank)
    lines = (run / "records.jsonl").read_text(encoding="utf-8").splitlines()
    broken = json.loads(lines[1])
    del broken["gold"]
    (run / "records.jsonl").write_text("\n".join([lines[0], json.dumps(broken), lines[2]]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"records\.jsonl, line 2 \(record q-eggs\), field 'gold'"):
        run_chains(run)
    stranger = write_run(tmp_path / "stranger", bank)
    text = (stranger / "records.jsonl").read_text(encoding="utf-8").replace("q-square", "q-unknown")
    (stranger / "records.jsonl").write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=r"line 3 \(record q-unknown\), field 'question_id': not in the question bank"):
        run_chains(stranger)
    moved = write_run(tmp_path / "moved", tmp_path / "nowhere.jsonl")
    with pytest.raises(InputError, match=r"field 'data.path'.*pass the question bank with data="):
        run_chains(moved)
    assert len(run_chains(moved, data=bank).chains) == 2


def test_question_source_lists_options() -> None:
    q = single(("1", "2"), "B", stem="1+1=?")
    assert question_source(q) == "1+1=?\nA. 1\nB. 2"


def test_a_model_that_does_not_load_stops_the_job_before_any_record(run_dir: Path, tmp_path: Path) -> None:
    models = {**FAKES, "nli": str(tmp_path / "no-such-nli")}
    with pytest.raises(InputError, match=r"could not load nli model .*no-such-nli.*'none' to score without"):
        score_run_composed(run_dir, models=models, cache=False)
    assert _ids(run_dir / "scores.jsonl") == []
    job = score_run_composed(run_dir, models={**FAKES, "nli": "none"}, cache=False, metrics=["faithfulness_step"])
    (record,) = list(job.records)[:1]
    assert record.scores["faithfulness_step"] is not None


def test_score_run_writes_the_combiners_verdict_only_when_asked(tmp_path: Path) -> None:
    """``score --combiner default``: each checked record gets step probabilities and a first suspect, and
    the header names the combiner, so resuming without it (or with another) is refused (#15 item 4)."""
    wrong = {"q-apples": "小明有5个苹果。他吃了2个。所以还剩4个。答案：C"}
    run_dir = write_run(
        tmp_path / "run", write_bank(tmp_path / "bank"), outputs=wrong, graded={"q-apples": False, "q-eggs": True}
    )
    from reasoning_metrics.combine import load_combiner, step_features
    from reasoning_metrics.combine.model import first_suspect
    from reasoning_metrics.verify.rules.arithmetic import check_steps

    plain = score_run_composed(run_dir, models=FAKES, cache=False, out=run_dir / "plain.jsonl")
    assert all(r.combined is None for r in plain.records)
    combiner = load_combiner("default")
    job = score_run_composed(run_dir, models=FAKES, cache=False, combiner=("default", combiner))
    records = list(job.records)
    run = run_chains(run_dir)
    graded = {c.id: rec.correct for rec, c in run.chains}
    assert set(graded.values()) >= {True, False}  # both decodings are exercised
    for r in records:
        assert r.combined is not None and len(r.combined.step_probabilities) == len(r.steps)
        p = r.combined.step_probabilities
        # Features read the question as the model saw it and the teacher's analysis (#15 item 3).
        rows = step_features(
            [s.text for s in r.steps],
            r.assessment,
            check_steps([s.text for s in r.steps]),
            graded=graded[r.id],
            source=run.problems[r.id],
            analysis=run.references[r.id].analysis,
        )
        own = combiner.for_language(r.lang)  # the chain language's combiner (the default holds a Chinese one)
        assert p == pytest.approx(own.step_probabilities(rows), abs=1e-6)
        assert r.combined.first_suspect == first_suspect(p, own.threshold, graded[r.id] is False, own.locate)
        assert r.combined.locate == own.locate  # what the page says of how it located the step
        assert r.combined.score == pytest.approx(max(p), abs=1e-6)
    header = json.loads((run_dir / "scores.json").read_text(encoding="utf-8"))
    assert header["combiner"].startswith("default (sha256 ")
    with pytest.raises(InputError, match="scored with other combiner"):
        score_run_composed(run_dir, models=FAKES, cache=False)
    with pytest.raises(SettingError, match="a combiner reads the detectors' findings") as refused:
        score_run_composed(run_dir, models=FAKES, cache=False, detectors=False, combiner=("default", combiner))
    assert refused.value.setting == "detectors" and "--" not in str(refused.value)  # no flag in the library


def test_reading_a_score_file_loads_neither_the_detectors_nor_the_scoring_job() -> None:
    import json
    import subprocess
    import sys

    code = (
        "import sys, json\n"
        "from reasoning_metrics.score_store import SCORES_FILE, ScoreRecord, read_score_lines\n"
        "from reports.score_file import load_scores\n"
        "heavy = ['sympy', 'torch', 'reasoning_metrics.run_scoring', 'reasoning_metrics.scoring',\n"
        "         'reasoning_metrics.verify.rules.arithmetic', 'reasoning_metrics.combine.features']\n"
        "print(json.dumps([m for m in heavy if m in sys.modules]))\n"
    )
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert json.loads(proc.stdout) == []


def test_a_hard_linked_score_file_is_neither_cut_nor_appended_to(run_dir: Path, tmp_path: Path) -> None:
    """Before (#32, fresh round): the resume cut the other name's torn last line and appended scores to it."""
    list(score_run_composed(run_dir, models=FAKES, cache=False).records)
    out = run_dir / "scores.jsonl"
    elsewhere = tmp_path / "backup.jsonl"
    elsewhere.write_bytes(out.read_bytes()[:-40])  # a snapshot whose last line a kill tore
    out.unlink()
    os.link(elsewhere, out)
    kept = elsewhere.read_bytes()
    with pytest.raises(InputError, match=r"scores\.jsonl: has 2 names \(a hard link\)"):
        score_run_composed(run_dir, models=FAKES, cache=False)
    assert elsewhere.read_bytes() == kept
