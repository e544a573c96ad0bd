"""Each benchmark's own protocol where the user gives none: seed and few-shot budget (#16 item 10); the
template set, shots and strategy chosen from the bank, and the protocol record run.json keeps (#26 deliver 1, item 3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from runners.backends.base import Backend
from runners.options import RunOptions
from runners.protocol import with_protocol_defaults
from tests.importer_helpers import FIXTURES

XIEZHI = FIXTURES / "xiezhi" / "xiezhi_mini.jsonl"
CMMLU = FIXTURES / "cmmlu"


def _options(data: Path, **given: object) -> RunOptions:
    return with_protocol_defaults(RunOptions(data=data, model="m", out=Path("unused"), **given))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("data", "given", "seed", "budget"),
    [
        (XIEZHI, {}, 42, 1024),  # Xiezhi's documented seed
        (XIEZHI, {"seed": 0}, 0, 1024),  # a seed given is kept, 0 included
        (CMMLU, {"template_set": "cmmlu"}, 0, 2048),  # CMMLU's released max_length
        (CMMLU, {"template_set": "cmmlu", "token_budget": 512}, 0, 512),
        (CMMLU, {}, 0, 2048),  # a CMMLU bank gets CMMLU's templates and budget, not CK12's
        (CMMLU, {"template_set": "ck12"}, 0, 1024),  # CK12's templates, CK12's budget
    ],
)
def test_defaults_follow_the_benchmark(data: Path, given: dict[str, object], seed: int, budget: int) -> None:
    options = _options(data, **given)
    assert (options.seed, options.token_budget) == (seed, budget)


def test_the_run_header_records_the_seed_and_budget_used(tmp_path: Path) -> None:
    answers = tmp_path / "answers.jsonl"
    answers.write_text("", encoding="utf-8")
    out = tmp_path / "run"
    args = [
        "run",
        str(CMMLU),
        "-f",
        "cmmlu",
        "-m",
        "x",
        "-b",
        "replay",
        "-B",
        f"path={answers}",
        "-o",
        str(out),
    ]
    args += ["--templates", "cmmlu", "--mode", "few-shot", "--few-shot", str(CMMLU), "--max-failures", "100%"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    header = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert header["fewshot"]["token_budget"] == 2048 and header["seed"] == 0
    xiezhi = tmp_path / "xiezhi"
    args = ["run", str(XIEZHI), "-m", "x", "-b", "replay", "-B", f"path={answers}", "-o", str(xiezhi)]
    result = CliRunner().invoke(app, [*args, "--max-failures", "100%", "--variant", "original"])  # 7: too few for 50
    assert result.exit_code == 0, result.output
    assert json.loads((xiezhi / "run.json").read_text(encoding="utf-8"))["seed"] == 42


@pytest.mark.parametrize(
    ("data", "backend", "template_set", "shots", "strategy"),
    [
        (CMMLU, "transformers", "cmmlu", 5, "next-token"),
        (CMMLU, "replay", "cmmlu", 5, "generate"),  # replayed text: no probabilities to compare
        (XIEZHI, "transformers", "xiezhi", 3, "rank-options"),  # the paper: at most 3 shots
        (XIEZHI, "openai", "xiezhi", 3, "instruct-rank"),  # API models rank the options in words (Xiezhi's rule)
        (XIEZHI, "replay", "xiezhi", 3, "generate"),  # replayed answers are read as answers
        (FIXTURES / "ck12", "transformers", "ck12", 5, "generate"),
    ],
)
def test_the_bank_chooses_its_protocol(data: Path, backend: str, template_set: str, shots: int, strategy: str) -> None:
    options = _options(data, backend=backend)
    assert (options.template_set, options.shots, options.strategy) == (template_set, shots, strategy)
    assert options.protocol is not None and options.protocol["overrides"] == {}


class _LocalPlugin(Backend):
    """A plugin's backend object that declares a model run here (``protocol_role``), under a name no table knows."""

    name = "mine"
    protocol_role = "local"


class _UndeclaredPlugin(Backend):
    name = "theirs"  # protocol_role: the base's default, "generate"


def test_a_backend_object_is_asked_as_its_class_declares() -> None:
    # The strategy follows what the backend's class declares, not a list of built-in names (#25 item 1).
    local = _options(CMMLU, backend="mine", backend_instance=_LocalPlugin("m"))
    undeclared = _options(CMMLU, backend="theirs", backend_instance=_UndeclaredPlugin("m"))
    assert (local.strategy, undeclared.strategy) == ("next-token", "generate")


def test_a_cot_mode_generates_whatever_the_protocol_scores_by() -> None:
    assert _options(CMMLU, mode="zero-shot-cot").strategy == "generate"


def test_options_given_override_the_protocol_and_the_record_says_so() -> None:
    options = _options(CMMLU, template_set="ck12", shots=2, strategy="generate", token_budget=512)
    assert options.protocol is not None
    assert options.protocol["name"] == "cmmlu" and options.protocol["template_set"] == "ck12"
    assert options.protocol["overrides"] == {
        "template_set": {"protocol": "cmmlu", "given": "ck12"},
        "shots": {"protocol": 5, "given": 2},
        "token_budget": {"protocol": 2048, "given": 512},
        "strategy": {"protocol": "next-token", "given": "generate"},
    }
    # a value given that is the protocol's own is no override
    assert _options(CMMLU, token_budget=2048, shots=5).protocol["overrides"] == {}  # type: ignore[index]


def test_run_json_names_the_protocol_of_a_cmmlu_bank_run_without_templates(tmp_path: Path) -> None:
    answers = tmp_path / "answers.jsonl"
    answers.write_text("", encoding="utf-8")
    out = tmp_path / "run"
    args = ["run", str(CMMLU / "dev"), "-m", "x", "-b", "replay", "-B", f"path={answers}", "-o", str(out)]
    result = CliRunner().invoke(app, [*args, "--max-failures", "100%"])
    assert result.exit_code == 0, result.output
    header = json.loads((out / "run.json").read_text(encoding="utf-8"))
    protocol = header["protocol"]
    assert (protocol["name"], protocol["template_set"], protocol["language"]) == ("cmmlu", "cmmlu", "zh")
    assert protocol["token_budget"] == 2048 and protocol["overrides"] == {}
    record = json.loads((out / "records.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert record["prompt"][-1]["content"].startswith("以下是关于")  # CMMLU's wording, not CK12's
    assert record["shots"] == 0


def test_the_prompt_language_of_each_protocol_is_the_one_prompting_uses() -> None:
    # #35 item 3: read from the protocol record, not from a second table that repeated it.
    from runners.protocol import PROTOCOLS, prompt_language
    from tests.qfactory import single

    for name, protocol in PROTOCOLS.items():
        for stem in ("en", "zh"):
            question = single(source=name, language=stem, stem="Which city is the capital of China?")
            expected = stem if protocol.language == "auto" else protocol.language
            assert prompt_language(question) == expected, (name, stem)


def test_dry_run_names_the_protocol_and_what_was_overridden() -> None:
    result = CliRunner().invoke(
        app, ["run", str(CMMLU / "dev"), "-m", "x", "-o", "unused", "--dry-run", "--shots", "2"]
    )
    assert result.exit_code == 0, result.output
    first = result.output.splitlines()[0]
    assert "protocol cmmlu, --shots 2" in first and "templates cmmlu" in first and "strategy next-token" in first
