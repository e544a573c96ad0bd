"""The learned combiner: fixed halves, features generic over the registry, fitting, combiner.json,
``k12eval calibrate``, ``meta-eval --combiner / --half / --lodo`` (#15 items 2 and 4)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from kg.errors import InputError
from reasoning_metrics.combine import feature_names, load_combiner, parse_combiner, step_features
from reasoning_metrics.metaeval import DetectionContext, load_solutions, run_detectors
from reasoning_metrics.metaeval.calibration import calibrate
from reasoning_metrics.metaeval.halves import half_of, in_half, split_key
from reasoning_metrics.metaeval.sets import load_set, parse_set
from reasoning_metrics.verify import registry
from reasoning_metrics.verify.flags import FlagKind, SolutionAssessment, StepAssessment, StepFlag
from tests.reasoning_metrics.verify.combiner_samples import chains, write_chains

runner = CliRunner()


@pytest.fixture(scope="module")
def sets(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("combiner")
    return [write_chains(root / f"{name}.jsonl", chains(name, 40, seed)) for seed, name in enumerate("abc")]


def test_halves_are_sha256_parity_of_the_question_key() -> None:
    ids = [f"gsm8k-{k}" for k in range(200)]
    expected = {i: "dev" if hashlib.sha256(i.encode()).digest()[0] % 2 == 0 else "confirm" for i in ids}
    assert {i: half_of(i) for i in ids} == expected
    assert 60 < sum(v == "dev" for v in expected.values()) < 140


def test_a_questions_solutions_stay_in_one_half_across_files(tmp_path: Path) -> None:
    records = chains("q", 40, 0)
    a = write_chains(tmp_path / "gen_a.jsonl", records)
    b = write_chains(tmp_path / "gen_b.jsonl", records)  # the same questions, answered by another generator
    both = load_set(parse_set(f"two=chains:{a},{b}"))
    assert len(both) == 80 and len({s.id for s in both}) == 80  # ids made unique across the files
    dev = in_half(both, "dev")
    assert {split_key(s) for s in dev}.isdisjoint({split_key(s) for s in in_half(both, "confirm")})
    assert len(dev) == 2 * len(in_half(load_solutions(a, "chains"), "dev"))


def test_a_teacher_verdict_exported_by_the_report_loads(tmp_path: Path) -> None:
    """The page writes step_labels true = right, false = wrong (report.js exportLine): it used to be read
    the other way round and refused ('first_error' 1 disagrees with 'step_labels')."""
    line = {
        "id": "run1:q7", "source": "k12eval-report", "model": "m", "mode": "cot", "variant": "zh", "run": "run1",
        "question_id": "q7", "problem": "2 + 3 = ?", "steps": ["2 + 3 = 6", "So 6."],
        "step_labels": [True, False], "first_error": 1, "complete": True, "final_answer_correct": False,
    }  # fmt: skip
    line["step_labels"], line["steps"] = [True, False, None], ["2 + 3 = 5", "5 + 1 = 7", "So 7."]
    path = tmp_path / "verdicts.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    (solution,) = load_solutions(path, "chains")
    assert (solution.has_error, solution.first_error, solution.step_labels) == (True, 1, (False, True, None))
    assert solution.meta["final_answer_correct"] is False and split_key(solution) == "q7"


def test_mr_math_keeps_the_graded_answer() -> None:
    from reasoning_metrics.metaeval.data import _mr_math

    record = {
        "uuid": "u1", "question": "q", "model_output_steps": ["Step 1: 1 + 1 = 3", "Step 2: #### 3"],
        "model_output_solution_correctness": "wrong", "model_output_solution_first_error_step": 1,
        "model_output_answer_correctness": "wrong", "question_type": "original",
    }  # fmt: skip
    solution = _mr_math("f, record 0", Path("f"), record)
    assert solution.meta == {"question_type": "original", "final_answer_correct": False}


def test_features_follow_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """A detector added to the registry becomes features without a change in features.py."""
    judge = registry.DETECTORS["judge"]
    renamed = dataclasses.make_dataclass("Newcomer", [])()
    for attr in ("reads", "needs", "kinds", "find"):
        setattr(renamed, attr, getattr(judge, attr))
    renamed.name = "newcomer"
    table = {
        ("newcomer" if k == "judge" else k): (renamed if k == "judge" else v) for k, v in registry.DETECTORS.items()
    }
    monkeypatch.setattr(registry, "DETECTORS", table)
    import reasoning_metrics.combine.features as features

    monkeypatch.setattr(features, "DETECTORS", table)
    names = feature_names(roscoe=False, grade=True)
    assert {"newcomer.count", "newcomer.max", "newcomer.earlier", "newcomer.solution"} <= set(
        names
    ) and "judge.max" not in names
    flag = StepFlag(kind=FlagKind.JUDGE, severity=0.8, message="named")
    assessment = SolutionAssessment(
        id="s", score=0.8, first_suspect=1,
        steps=[StepAssessment(index=0, suspicion=0), StepAssessment(index=1, suspicion=0.8, flags=[flag])],
    )  # fmt: skip
    rows = step_features(["a", "b"], assessment, graded=False)
    assert (rows[1]["newcomer.count"], rows[1]["newcomer.max"], rows[0]["newcomer.max"]) == (1.0, 0.8, 0.0)
    assert rows[1]["aggregate.suspect"] == 1.0 and rows[0]["grade.wrong"] == 1.0
    assert set(rows[0]) == set(names)


@pytest.mark.slow
def test_calibrate_learns_the_false_step_and_round_trips(sets: list[Path], tmp_path: Path) -> None:
    combiner = calibrate([parse_set(f"chains:{p}") for p in sets[:2]], half="all", folds=3)
    assert [t["solutions"] for t in combiner.training] == [40, 40]
    assert combiner.cv["acc_error"] >= 0.9 and combiner.cv["acc_correct"] >= 0.9
    weight = dict(zip(combiner.features, combiner.coefficients, strict=True))
    assert weight["arithmetic.max"] > 0
    again = parse_combiner(combiner.to_json(), "c.json")
    assert again == combiner
    solutions = load_solutions(sets[2], "chains")
    ctx = DetectionContext(solutions, combiner=combiner)
    (result,) = run_detectors(ctx, ["combiner"])
    hits = sum(p == s.target for p, s in zip(result.native or [], solutions, strict=True))
    assert hits >= 0.9 * len(solutions)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.pop("threshold"), "field 'threshold'"),
        (lambda d: d["coefficients"].pop(), "field 'coefficients'"),
        (lambda d: d["features"].__setitem__(0, "gone.max"), "gone.max not computed by this version"),
        (lambda d: d.__setitem__("format", "x"), "not a combiner file"),
        (lambda d: d.__setitem__("version", 9), "field 'version'"),
        (lambda d: d.__setitem__("locate", "last"), "field 'locate'"),
    ],
)
@pytest.mark.slow
def test_a_bad_combiner_file_is_one_line(tmp_path: Path, edit: object, message: str) -> None:
    raw = json.loads(load_combiner("default").to_json())
    edit(raw)  # type: ignore[operator]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(InputError, match=message):
        load_combiner(path)
    result = runner.invoke(app, ["meta-eval", str(tmp_path), "-f", "chains", "--combiner", str(path)])
    assert result.exit_code == 2 and result.output.count("\n") == 1 and message.split()[0] in result.output


@pytest.mark.slow
def test_cli_calibrate_then_meta_eval_with_it(sets: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "combiner.json"
    result = runner.invoke(app, ["calibrate", *map(str, sets[:2]), "-f", "chains", "--out", str(out), "--half", "all"])
    assert result.exit_code == 0, result.output
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert saved["package_version"] and [t["name"] for t in saved["training"]] == ["a", "b"]
    args = ["meta-eval", str(sets[2]), "-f", "chains", "--encoder", "none", "--boot", "0", "-d", "aggregate"]
    result = runner.invoke(app, [*args, "--combiner", str(out), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert [d["name"] for d in report["detectors"]] == ["aggregate", "combiner"]
    assert report["detectors"][1]["acc_error"] >= 0.9 and report["detectors"][1]["auroc"] > 0.9
    dev = runner.invoke(app, [*args, "--half", "dev", "--json"])
    held = len(in_half(load_solutions(sets[2], "chains"), "dev"))
    assert json.loads(dev.output)["solutions"] == held and json.loads(dev.output)["half"] == "dev"
    # The Markdown header names the half and the limit: "3 solutions" alone read as the file's first three.
    shown = runner.invoke(app, [*args, "--half", "dev", "--limit", "3"]).output
    assert f"\n{min(3, held)} solutions (the dev half, the first 3), " in shown, shown
    whole = runner.invoke(app, args).output
    assert f"\n{len(load_solutions(sets[2], 'chains'))} solutions, " in whole, whole


@pytest.mark.slow
def test_cli_lodo_table(sets: list[Path]) -> None:
    specs = [x for p in sets for x in ("--lodo", f"chains:{p}")]
    result = runner.invoke(app, ["meta-eval", *specs, "--encoder", "none", "--folds", "3", "--by", "kind"])
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if line.startswith("| a |")]
    assert [r.split("|")[2].strip() for r in rows[:6]] == ["dev"] * 3 + ["confirm"] * 3
    groups = [r.split("|")[4].strip() for r in rows[6:]]
    assert (
        groups == [f"{k}: {d}" for k in ("early", "late") for d in ("aggregate", "combiner", "combiner (no grade)")] * 2
    )
    assert "a / combiner: trained on b dev" in result.output and "c dev" in result.output


def test_the_default_combiner_ships_and_reads_every_registered_detector() -> None:
    combiner = load_combiner("default")
    names = {t["name"] for t in combiner.training}
    assert {"processbench-gsm8k", "mr-gsm8k"} <= names and any(n.startswith("ck12-zh:") for n in names)
    assert all(t["half"] == "dev" for t in combiner.training)
    # A detector added later (not in the file yet) gets no weight until scripts/fit_default_combiner.py runs again.
    assert set(combiner.features) <= set(feature_names(roscoe=False, grade=True))
    assert {"arithmetic.max", "doubt.max", "aggregate.suspect", "grade.wrong"} <= set(combiner.features)


@pytest.mark.slow
def test_lodo_with_an_encoder_adds_roscoe_features_and_the_best_roscoe_row(sets: list[Path]) -> None:
    from reasoning_metrics.metaeval.lodo import leave_one_out, lodo_markdown, score_set
    from tests.reasoning_metrics.fakes import HashEncoder

    specs = [parse_set(f"chains:{p}") for p in sets[:2]]
    scored = [score_set(s, load_set(s)[:24], HashEncoder()) for s in specs]
    report = leave_one_out(scored, folds=2, roscoe=True)
    table = lodo_markdown(report)
    assert table.count("best ROSCOE (roscoe.") == 4  # two sets × two halves
    held = scored[0]
    assert "roscoe.alignment" in held.rows[0][0] and held.rows[0][0]["roscoe.alignment"] != 0.0


def test_min_correct_bounds_the_threshold() -> None:
    from reasoning_metrics.combine.fit import choose_threshold

    probabilities = [[0.6]] * 5 + [[0.65]] * 2 + [[0.1]] * 3
    targets = [0] * 5 + [-1] * 5
    free, scores = choose_threshold(probabilities, targets)
    assert free <= 0.6 and scores["f1"] == pytest.approx(0.75)
    bounded, scores = choose_threshold(probabilities, targets, min_correct=0.8)
    assert bounded > 0.65 and scores["acc_correct"] == 1.0


def test_a_solution_called_wrong_by_the_threshold_is_located_as_the_combiner_was_fitted() -> None:
    """``locate``: a graded-right (or ungraded) solution with a step over the threshold is called wrong; its
    first suspect is the earliest such step or, with ``likeliest``, the likeliest first error (#36 item 3)."""
    from reasoning_metrics.combine.model import first_suspect

    probabilities = [0.45, 0.05, 0.99]
    assert first_suspect(probabilities, 0.4) == 0  # the rule of combiners fitted before `locate`
    assert first_suspect(probabilities, 0.4, locate="likeliest") == 2  # 0.99 * 0.55 * 0.95 > 0.45
    assert first_suspect(probabilities, 0.995, locate="likeliest") == -1  # no step over it: called correct
    assert first_suspect(probabilities, 0.995, graded_wrong=True) == 2  # graded wrong: always the likeliest


def test_the_fit_chooses_how_to_locate_on_its_out_of_fold_predictions() -> None:
    from reasoning_metrics.combine.fit import choose_decoding

    # The first solution's error is its third step, the second's its second: no threshold places both by the
    # earliest step over it; the likeliest first error places both, and calls the correct one correct.
    probabilities = [[0.45, 0.05, 0.99], [0.1, 0.44, 0.01], [0.1, 0.2]]
    locate, threshold, scores = choose_decoding(probabilities, [2, 1, -1])
    assert locate == "likeliest" and 0.2 < threshold <= 0.44 and scores["f1"] == 1.0
    # Where both place every error, the older rule is kept.
    assert choose_decoding([[0.1, 0.9], [0.1, 0.2]], [1, -1])[0] == "earliest"


def test_locate_round_trips_and_old_files_keep_the_earliest_step() -> None:
    from reasoning_metrics.combine.model import Combiner

    fitted = Combiner(features=["pos.first"], coefficients=[1.0], intercept=0.0, threshold=0.5, locate="likeliest")
    assert parse_combiner(fitted.to_json(), "c.json").locate == "likeliest"
    raw = json.loads(fitted.to_json())
    del raw["locate"]
    assert parse_combiner(json.dumps(raw), "old.json").locate == "earliest"


def test_a_graded_right_chinese_chain_is_located_at_its_likeliest_first_error() -> None:
    """``score``'s path (:func:`combine_one`) on a Chinese chain graded right: with ``likeliest`` the combiner
    names the step stating a false fact, not the plan before it that only just passes the threshold."""
    from reasoning_metrics.combine.apply import combine_one
    from reasoning_metrics.combine.model import Combiner
    from reasoning_metrics.verify.rules.arithmetic import check_steps

    steps = [
        "要确定哪种方法能鉴别氮气和氧气，我们需要考虑它们的性质。",
        "两种气体都无色。",
        "氮气和氧气的化学性质完全相同。",
    ]
    assessment = SolutionAssessment(
        id="s", score=0.0, first_suspect=-1, steps=[StepAssessment(index=i, suspicion=0) for i in range(3)]
    )
    # p = sigmoid(-10.48 + 10.28 * first + 15.08 * relative): about 0.45, 0.05 and 0.99.
    weights = {"features": ["pos.first", "pos.relative"], "coefficients": [10.28, 15.08], "intercept": -10.48}
    earliest = Combiner(**weights, threshold=0.4)  # type: ignore[arg-type]
    likeliest = dataclasses.replace(earliest, locate="likeliest")
    source = "下列方法能用于鉴别氮气和氧气的是（　　）"
    checks = check_steps(steps, source)
    first = combine_one(earliest, steps, assessment, graded=True, source=source, checks=checks)
    second = combine_one(likeliest, steps, assessment, graded=True, source=source, checks=checks)
    assert first is not None and second is not None
    assert first.step_probabilities == second.step_probabilities
    assert (first.first_suspect, second.first_suspect) == (0, 2)


def _chinese(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same chains with Chinese wording and ``lang`` zh (the false sums stay where they were)."""
    out = []
    for r in records:
        steps = [
            s.replace("Together", "两人合计").replace("Times", "乘以").replace("The answer is", "答案是")
            for s in r["steps"]
        ]
        out.append(
            {
                **r,
                "id": f"zh-{r['id']}",
                "problem": "小明和小红各有一些弹珠，一共有多少个？",
                "steps": steps,
                "lang": "zh",
            }
        )
    return out


@pytest.mark.slow
def test_a_language_gets_its_own_combiner_and_its_solutions_use_it(tmp_path: Path) -> None:
    from reasoning_metrics.combine.apply import combine_one
    from reasoning_metrics.metaeval.combined import predict

    en = write_chains(tmp_path / "en.jsonl", chains("en", 40, 1))
    zh = write_chains(tmp_path / "zh.jsonl", _chinese(chains("zh", 40, 2)))
    combiner = calibrate([parse_set(f"chains:{p}") for p in (en, zh)], half="all", folds=3, by_language=("zh",))
    assert [t["name"] for t in combiner.training] == ["en", "zh"]
    assert list(combiner.languages) == ["zh"] and [t["name"] for t in combiner.languages["zh"].training] == ["zh"]
    assert parse_combiner(combiner.to_json(), "c.json") == combiner
    # Which weights a solution gets depends on its language: a pooled part that never flags, a Chinese part that
    # always flags the first step.
    never = dataclasses.replace(combiner, intercept=-50.0, coefficients=[0.0] * len(combiner.features))
    always = dataclasses.replace(never, intercept=50.0)
    mixed = dataclasses.replace(never, languages={"zh": always})
    solutions = load_solutions(en, "chains")[:3] + load_solutions(zh, "chains")[:3]
    ctx = DetectionContext(solutions)
    rows = [[{} for _ in s.steps] for s in solutions]
    p = predict(mixed, ctx.assessments, rows, [s.lang or "en" for s in solutions])
    assert p.first_suspects == [-1, -1, -1, 0, 0, 0]
    chinese = solutions[3]
    checks = [c.value or [] for c in ctx.checks]
    verdict = combine_one(mixed, chinese.steps, ctx.assessments[3], source=chinese.problem, checks=checks[3])
    assert verdict is not None and verdict.first_suspect == 0 and verdict.threshold == always.threshold
    english = combine_one(mixed, solutions[0].steps, ctx.assessments[0], source=solutions[0].problem, checks=checks[0])
    assert english is not None and english.first_suspect == -1


@pytest.mark.slow
def test_cli_calibrate_per_language(tmp_path: Path) -> None:
    en = write_chains(tmp_path / "en.jsonl", chains("en", 30, 1))
    zh = write_chains(tmp_path / "zh.jsonl", _chinese(chains("zh", 30, 2)))
    out = tmp_path / "c.json"
    args = ["calibrate", str(en), str(zh), "-f", "chains", "--out", str(out), "--half", "all", "--folds", "3"]
    result = runner.invoke(app, [*args, "--per-language", "zh", "--language-min-correct", "0.9"])
    assert result.exit_code == 0, result.output
    assert "zh solutions: their own combiner" in result.output
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert saved["languages"]["zh"]["cv"]["min_correct"] == 0.9 and saved["cv"]["min_correct"] == 0.0
    missing = runner.invoke(app, [*args, "--per-language", "fr"])
    assert missing.exit_code == 2 and "no fr set" in missing.output


@pytest.mark.slow
def test_cli_calibrate_says_when_it_used_fewer_folds_than_asked(tmp_path: Path) -> None:
    """Never a silent clamp: a fit has at most one fold per question, and calibrate says so when --folds asks more."""
    en = write_chains(tmp_path / "en.jsonl", chains("en", 12, 1))
    out = tmp_path / "c.json"
    args = ["calibrate", str(en), "-f", "chains", "--out", str(out), "--half", "all"]
    result = runner.invoke(app, [*args, "--folds", "500"])
    assert result.exit_code == 0, result.output
    used = json.loads(out.read_text(encoding="utf-8"))["cv"]["folds"]
    assert used < 500
    assert f"note: --folds 500: the training data has {used} questions to group by" in result.output
    asked = runner.invoke(app, [*args, "--folds", "3"])
    assert asked.exit_code == 0 and "note: --folds" not in asked.output


def test_meta_eval_names_the_folds_its_thresholds_had(tmp_path: Path) -> None:
    """The header's "K-fold" is what the threshold rules had: not --folds when the solutions are fewer."""
    data = write_chains(tmp_path / "few.jsonl", chains("en", 8, 1))
    args = ["meta-eval", str(data), "-f", "chains", "--encoder", "none", "--boot", "0", "-d", "aggregate"]
    result = runner.invoke(app, [*args, "--folds", "50"])
    assert result.exit_code == 0, result.output
    solutions = load_solutions(data, "chains")
    wrong = sum(s.has_error for s in solutions)
    assert f"threshold fitted by {max(wrong, len(solutions) - wrong)}-fold" in result.output
    assert "threshold fitted by 3-fold" in runner.invoke(app, [*args, "--folds", "3"]).output
