"""The demo's plan: a stratified subset of the sample, written as a CK12 folder, and refused when settings change."""

from __future__ import annotations

import importlib.util
import os
import stat
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from k12eval.cli._demo_plan import PLAN_FILE, DemoSettings, make_plan, stratified, write_subset
from k12eval.cli._demo_stages import report_is_current, vllm_python
from kg.errors import InputError
from kg.importers import load_questions
from tests.conftest import REPO

SAMPLE = REPO / "data" / "sample"


@pytest.fixture(scope="module")
def sample() -> list:
    return load_questions(SAMPLE).questions


def _settings(per_subject: int = 2, **changes: object) -> DemoSettings:
    base = DemoSettings(
        data=str(SAMPLE),
        dev=str(REPO / "data" / "sample_dev"),
        per_subject=per_subject,
        chat_model="m",
        embedder="e",
        embedder_zh="z",
        nli="none",
        backend="transformers",
        cot_tokens=16,
        answer_tokens=8,
        shots=1,
        token_budget=256,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def test_stratified_takes_k_per_subject_over_different_groups(sample: list) -> None:
    chosen = stratified(sample, 2)
    per_subject = Counter(q.subject for q in chosen)
    assert per_subject == {s: min(2, n) for s, n in Counter(q.subject for q in sample).items()}
    for subject in per_subject:
        groups = {(q.stage, q.type) for q in sample if q.subject == subject}
        picked = [(q.stage, q.type) for q in chosen if q.subject == subject]
        if len(groups) >= 2:
            assert len(set(picked)) == 2, f"{subject}: both picks from one stage/type group"
    order = [q.id for q in sample]
    assert [q.id for q in chosen] == sorted((q.id for q in chosen), key=order.index)
    assert stratified(sample, 2) == chosen


def test_stratified_spreads_the_demo_over_school_stages(sample: list) -> None:
    """The README says the demo's questions are spread over stages (#23 item 7: all 18 were middle school)."""
    chosen = stratified(sample, 2)
    stages = Counter(q.stage.value for q in chosen)
    primary_subjects = {q.subject for q in sample if q.stage and q.stage.value == "primary"}
    assert len(chosen) == 18
    assert stages["primary"] == len(primary_subjects) == 3, stages
    assert stages["middle"] >= 6 and stages["high"] >= 6, stages
    for subject in {q.subject for q in chosen}:
        if len({q.stage for q in sample if q.subject == subject}) >= 2:
            picked = [q.stage for q in chosen if q.subject == subject]
            assert len(set(picked)) == 2, f"{subject}: both picks from one stage"
    assert Counter(q.stage.value for q in stratified(sample, 1)) == {"primary": 3, "middle": 3, "high": 3}


def test_stratified_zero_means_all(sample: list) -> None:
    assert stratified(sample, 0) == sample
    assert len(stratified(sample, 1000)) == len(sample)


def test_subset_folder_imports_exactly_the_chosen_questions(sample: list, tmp_path: Path) -> None:
    chosen = stratified(sample, 1)
    copied = write_subset(SAMPLE, {q.id for q in chosen}, tmp_path / "subset")
    again = load_questions(tmp_path / "subset").questions
    assert copied == len(chosen) == len(again)
    assert sorted(again, key=lambda q: q.id) == sorted(chosen, key=lambda q: q.id)
    assert not (tmp_path / "subset.partial").exists()


def test_plan_is_reused_with_the_same_settings_and_refused_with_others(tmp_path: Path) -> None:
    work = tmp_path / "work"
    plan, reused = make_plan(work, _settings(1))
    assert not reused and (work / PLAN_FILE).is_file()
    assert len(plan.question_ids) == 9 and plan.bank == work / "questions"
    again, reused = make_plan(work, _settings(1))
    assert reused and again.question_ids == plan.question_ids
    with pytest.raises(InputError, match=r"settings\.cot_tokens.*16.*not 32"):
        make_plan(work, _settings(1, cot_tokens=32))


def test_plan_of_every_question_reads_the_bank_itself(tmp_path: Path) -> None:
    plan, _ = make_plan(tmp_path / "work", _settings(0))
    assert plan.bank == SAMPLE and len(plan.question_ids) == 63
    assert not (tmp_path / "work" / "questions").exists()


def test_report_is_current_compares_with_the_newest_input(tmp_path: Path) -> None:
    index, run = tmp_path / "index.html", tmp_path / "records.jsonl"
    assert not report_is_current(index, [run])
    run.write_text("{}\n")
    index.write_text("<html>")
    os.utime(run, (1_000, 1_000))
    assert report_is_current(index, [run, tmp_path / "missing.jsonl"])
    os.utime(run, (index.stat().st_mtime + 10,) * 2)
    assert not report_is_current(index, [run])


def _fake_python(root: Path, status: int) -> None:
    python = root / ".venv-vllm" / "bin" / "python"
    python.parent.mkdir(parents=True, exist_ok=True)
    python.write_text(f"#!/bin/sh\nexit {status}\n")
    python.chmod(python.stat().st_mode | stat.S_IEXEC)


def test_vllm_env_is_used_only_when_it_can_import_vllm(tmp_path: Path) -> None:
    assert vllm_python(tmp_path) is None
    _fake_python(tmp_path / "ok", 0)
    assert vllm_python(tmp_path / "ok") == tmp_path / "ok" / ".venv-vllm" / "bin" / "python"
    _fake_python(tmp_path / "broken", 1)
    assert vllm_python(tmp_path / "broken") is None


def test_auto_leaves_the_cpu_build_alone_and_vllm_asks_for_it(tmp_path: Path) -> None:
    if importlib.util.find_spec("vllm") is not None:
        pytest.skip("vllm is importable here: auto takes it")
    from k12eval.cli._demo_pipeline import DemoOptions, _pick_backend

    _fake_python(tmp_path / "ok", 0)
    options = DemoOptions(
        **dict.fromkeys(("data", "dev", "work", "out"), tmp_path),
        **dict.fromkeys(("chat_model", "embedder", "embedder_zh", "nli"), "x"),
        backend="auto",
        per_subject=2,
        cot_tokens=8,
        answer_tokens=4,
        batch_size=2,
        shots=1,
        token_budget=64,
        offline=True,
        root=tmp_path / "ok",
    )
    said: list[str] = []
    assert _pick_backend(options, said.append) == ("transformers", None)
    python = tmp_path / "ok" / ".venv-vllm" / "bin" / "python"
    assert _pick_backend(replace(options, backend="vllm"), said.append) == ("vllm", python)
    with pytest.raises(InputError, match="make setup-vllm"):
        _pick_backend(replace(options, backend="vllm", root=tmp_path / "none"), said.append)
    assert said[0].startswith("backend: transformers") and "CPU build" in said[1]
