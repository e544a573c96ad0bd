"""Xiezhi's protocol on its release as published (#31 items 4 and 5): the test split with the paper's 50 options by
default, exemplars from the train file, options ranked by a named length normalisation. The release is written here
(tests/xiezhi_tree.py)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

import k12eval
from k12eval.cli import app
from kg.errors import InputError
from runners.backends.base import Backend, LoglikelihoodRequest, LoglikelihoodResult
from runners.ranking import normalised_score, option_continuation
from tests.scripted import ScriptedBackend, prompt_text
from tests.xiezhi_tree import write_release


@pytest.fixture
def release(tmp_path: Path) -> Path:
    return write_release(tmp_path / "XiezhiBenchmark")


def _header(run: Path) -> dict[str, object]:
    return json.loads((run / "run.json").read_text(encoding="utf-8"))


def _records(run: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (run / "records.jsonl").read_text(encoding="utf-8").splitlines()]


class GoldLongest(Backend):
    """Scores an option's text token by token, a token a character: the gold option's tokens -1 each, every other
    option's -1.5 each. Gold options are the longest, so an unnormalised sum ranks a short one above them."""

    name = "gold-longest"
    model = "gold-longest"
    is_chat = False

    def __init__(self, golds: set[str]) -> None:
        self.golds = golds
        self.continuations: list[str] = []

    def generate(self, requests: Sequence[object]) -> list[object]:
        raise AssertionError("rank-options scores; it does not generate")

    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list[LoglikelihoodResult]:
        results = []
        for request in requests:
            self.continuations.extend(request.continuations)
            costs = [(-1.0 if text in self.golds else -1.5) * len(text) for text in request.continuations]
            results.append(LoglikelihoodResult(request.id, costs, [len(text) for text in request.continuations]))
        return results

    def count_tokens(self, text: str) -> int:
        return len(text)


def test_a_default_run_scores_the_test_split_with_50_options_and_records_it(
    release: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Before: the file's 4 options, and options-50 (asked for) missing from the recorded protocol.
    backend = ScriptedBackend("A")
    summary = k12eval.run(release, "m", tmp_path / "run", backend=backend)
    # the 2 English questions have too few English options of other 门类 to draw 46 from: left out, and said
    assert "variant options-50: 2 of 30 question(s) left out (e.g. xiezhi/xiezhi_spec_eng/1" in caplog.text
    assert len(summary.records) == 28 and all("/xiezhi_train_chn/" not in r.question_id for r in summary.records)
    sent = [prompt_text(r).split("### 所有选项:\n")[1] for r in backend.requests]
    assert not any(c.isascii() and c.isalpha() for prompt in sent for c in prompt)  # no English option drawn
    header = _header(tmp_path / "run")
    assert header["variant"] == "options-50" and header["protocol"]["variant"] == "options-50"  # type: ignore[index]
    assert header["protocol"]["split"] == "test" and header["data"]["split"] == "test"  # type: ignore[index]
    assert header["protocol"]["overrides"] == {}  # type: ignore[index]
    options = prompt_text(backend.requests[0]).split("### 所有选项:\n")[1].split("\n\n")[0]
    assert len(options.splitlines()) == 50  # every option on its own line


def test_the_files_four_options_are_a_named_variant(release: Path, tmp_path: Path) -> None:
    k12eval.run(release, "m", tmp_path / "run", backend=ScriptedBackend("A"), variant="original")
    header = _header(tmp_path / "run")
    assert header["variant"] == "original"
    assert header["protocol"]["overrides"] == {"variant": {"protocol": "options-50", "given": "original"}}  # type: ignore[index]


@pytest.mark.parametrize(("norm", "gold_first"), [("mean-token", 30), ("per-char", 30), ("sum", 0)])
def test_rank_norm_decides_whether_the_long_gold_wins_and_is_named_in_run_json(
    release: Path, tmp_path: Path, norm: str, gold_first: int
) -> None:
    from kg.importers import load_questions

    golds = {
        q.options["ABCD".index(q.answer[0])].text for q in load_questions(release / "Benchmarks" / "test").questions
    }  # type: ignore[arg-type]
    golds = {g + "长长长长" for g in golds}  # the gold made the longest option
    test = release / "Benchmarks" / "test"
    for file in test.rglob("*.json"):
        lines = [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines()]
        for record in lines:
            record["options"] = record["options"].replace(record["answer"], record["answer"] + "长长长长")
            record["answer"] += "长长长长"
        file.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines), encoding="utf-8")
    backend = GoldLongest(golds)
    options = {"strategy": "rank-options", "variant": "original"} | (
        {} if norm == "mean-token" else {"rank_norm": norm}
    )
    k12eval.run(release, "m", tmp_path / "run", backend=backend, **options)
    records = _records(tmp_path / "run")
    assert sum(r["gold_rank"] == 1 for r in records) == gold_first
    protocol = _header(tmp_path / "run")["protocol"]
    assert protocol["rank_norm"] == norm  # type: ignore[index]
    assert protocol["overrides"].get("rank_norm") == (
        None if norm == "mean-token" else {"protocol": "mean-token", "given": norm}
    )  # type: ignore[index, union-attr]
    # after "### 答案:\n" the option's text follows as it is, no leading space
    assert backend.continuations and not any(c.startswith(" ") for c in backend.continuations)


def test_normalised_scores_and_continuations() -> None:
    assert normalised_score(-6.0, 3, "牛顿力学", "mean-token") == -2.0
    assert normalised_score(-6.0, 3, "牛顿力学", "per-char") == -1.5  # four characters, not 12 UTF-8 bytes
    assert normalised_score(-6.0, 3, "牛顿力学", "sum") == -6.0
    assert normalised_score(-1.0, 0, "", "per-char") == -1.0  # an empty cell divides by 1
    assert option_continuation("### 答案:\n", "聂耳") == "聂耳"
    assert option_continuation("答案是：", "聂耳") == "聂耳"
    assert option_continuation("Answer:", "Paris") == " Paris"
    assert option_continuation([{"role": "user", "content": "Q"}], "Paris") == "Paris"


def test_exemplars_come_from_the_released_train_file_only(release: Path, tmp_path: Path) -> None:
    backend = ScriptedBackend("A")
    k12eval.run(release, "m", tmp_path / "run", backend=backend, mode="few-shot", few_shot=release, variant="original",
                subjects="理学")  # fmt: skip
    prompts = [prompt_text(r) for r in backend.requests]
    assert prompts and all(p.count("Demonstration ") == 3 for p in prompts)
    for prompt in prompts:
        shown = [n for n in range(23) if f"第{n}题" in prompt]
        assert len([n for n in shown if n < 20]) == 1 and len([n for n in shown if n >= 20]) == 3, prompt


def test_a_pool_honours_skip_invalid(release: Path, tmp_path: Path) -> None:
    train = release / "Benchmarks" / "train" / "xiezhi_train_chn" / "xiezhi.v1.1.json"
    bad = {"question": "坏题_____", "labels": ["理学"], "answer": "不在选项里", "options": "甲\n乙"}
    train.write_text(train.read_text(encoding="utf-8") + json.dumps(bad, ensure_ascii=False) + "\n", encoding="utf-8")
    asked = {"backend": ScriptedBackend("A"), "mode": "few-shot", "few_shot": release, "variant": "original"}
    with pytest.raises(
        InputError, match=r"xiezhi\.v1\.1\.json, line 7 \(record xiezhi/xiezhi_train_chn/7\), field 'answer'"
    ):
        k12eval.run(release, "m", tmp_path / "strict", **asked)
    summary = k12eval.run(release, "m", tmp_path / "run", skip_invalid=True, **asked)
    assert len(summary.records) == 30


def test_run_taxonomy_places_a_copy_away_from_the_release_and_the_report_reads_it(
    release: Path, tmp_path: Path
) -> None:
    from runners.bank import run_bank
    from runners.store import RunStore

    copy = tmp_path / "copy" / "xiezhi_spec_chn.json"
    copy.parent.mkdir()
    copy.write_bytes((release / "Benchmarks" / "test" / "xiezhi_spec_chn" / "xiezhi.v1.1.json").read_bytes())
    taxonomy = release / "discipline_taxonomy"
    args = [
        "run",
        str(copy),
        "-m",
        "m",
        "-b",
        "replay",
        "-B",
        f"path={tmp_path / 'none.jsonl'}",
        "-o",
        str(tmp_path / "r"),
    ]
    (tmp_path / "none.jsonl").write_text("", encoding="utf-8")
    result = CliRunner().invoke(
        app, [*args, "--taxonomy", str(taxonomy), "--max-failures", "100%", "--variant", "original"]
    )
    assert result.exit_code == 0, result.output
    header = RunStore(tmp_path / "r").read_header()
    assert header.data["taxonomy"] == str(taxonomy.resolve())
    bank = run_bank(tmp_path / "r", header)
    assert {q.subject for q in bank.questions.values()} == {"理学", "工学"}


@pytest.mark.shared_data
def test_the_released_train_file_is_the_pool_of_the_shared_sample(shared_data: Path) -> None:
    xiezhi = shared_data / "xiezhi"
    args = ["run", str(xiezhi / "xiezhi_spec_chn.sample500.jsonl"), "-m", "m", "-o", "unused", "--dry-run", "--limit", "2",
            "--mode", "few-shot", "--few-shot", str(xiezhi / "xiezhi_train_chn.jsonl")]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    prompts = result.stdout.split("\n## ")[1:]
    assert len(prompts) == 2  # each with exemplars from the train file (3, fewer when 50 options pass the budget)
    assert all(1 <= p.count("Demonstration ") <= 3 and "### 所有选项:" in p for p in prompts)


def test_a_run_is_resumed_only_under_the_same_rank_norm(release: Path, tmp_path: Path) -> None:
    from kg.errors import OtherRunError

    asked = {"strategy": "rank-options", "variant": "original", "limit": 2}
    k12eval.run(release, "m", tmp_path / "run", backend=GoldLongest(set()), rank_norm="per-char", **asked)
    assert _header(tmp_path / "run")["rank_norm"] == "per-char"
    with pytest.raises(OtherRunError, match="rank_norm: 'per-char' there, 'mean-token' now"):
        k12eval.run(release, "m", tmp_path / "run", backend=GoldLongest(set()), **asked)
