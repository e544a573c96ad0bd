"""The Python API: lazy imports, str or Path arguments, backend objects, and backends from entry points."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import k12eval
from kg.errors import InputError
from runners.backends import ENTRY_POINT_GROUP, backend_class, check_backend_class, get_backend
from runners.backends.base import (
    Backend,
    GenerationRequest,
    GenerationResult,
    LoglikelihoodRequest,
    LoglikelihoodResult,
)
from tests.conftest import REPO

SAMPLE = REPO / "data" / "sample"


def test_import_k12eval_loads_no_model_library_and_no_pandas() -> None:
    code = "import json, sys, k12eval\nprint(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    loaded = set(json.loads(proc.stdout))
    assert not loaded & {"torch", "transformers", "sentence_transformers", "vllm", "pandas", "matplotlib", "pyarrow"}
    assert "k12eval" in loaded


def test_the_api_names_are_exported_and_unknown_names_raise() -> None:
    assert {"load_bank", "run", "score", "report", "load_runs"} <= set(k12eval.__all__)
    assert k12eval.load_bank.__module__ == "k12eval.api"
    with pytest.raises(AttributeError):
        _ = k12eval.no_such_function  # type: ignore[attr-defined]


def test_load_bank_takes_str_and_path_and_sample_bank_is_the_bundled_copy() -> None:
    by_str = k12eval.load_bank(str(SAMPLE))
    by_path = k12eval.load_bank(k12eval.sample_bank())
    assert len(by_str) == 63 and [q.id for q in by_str] == [q.id for q in by_path]
    assert k12eval.sample_bank().resolve() == SAMPLE.resolve()  # the checkout's data/sample is the packaged one
    with pytest.raises(ValueError, match="sample_dev"):
        k12eval.sample_bank("other")


class Echo(Backend):
    """A backend of one's own: answers every question with option A."""

    name = "echo"
    is_chat = True

    def __init__(self, model: str, *, letter: str = "A") -> None:
        self.model, self.letter, self.calls = model, letter, 0

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        self.calls += 1
        return [GenerationResult(id=r.id, texts=[f"答案是 {self.letter}"]) for r in requests]

    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list[LoglikelihoodResult]:
        return [LoglikelihoodResult(id=r.id, error="not supported") for r in requests]

    def count_tokens(self, text: str) -> int:
        return len(text)


def test_run_takes_a_backend_object_and_comma_lists(tmp_path: Path) -> None:
    echo = Echo("mine")
    summary = k12eval.run(SAMPLE, "mine", str(tmp_path / "run"), backend=echo, subjects="数学,物理", limit=5)
    assert echo.calls >= 1 and len(summary.records) == 5
    assert {r.subject for r in summary.records} <= {"数学", "物理"}
    assert all(r.extracted == ["A"] for r in summary.records if r.type == "single_choice")
    header = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))
    assert header["backend"] == "echo"
    runs = k12eval.load_runs(tmp_path / "run", data=SAMPLE)
    assert len(runs) == 1 and len(runs[0].records) == 5
    nodes = k12eval.node_table(runs)
    assert nodes[(nodes["node"] == "all") & (nodes["slice"] == "all")]["n"].item() == 5


class _EntryPoint:
    """What importlib.metadata gives for one entry point (name, group, load)."""

    def __init__(self, name: str, target: type) -> None:
        self.name, self.group, self.target = name, ENTRY_POINT_GROUP, target

    def load(self) -> type:
        return self.target


def test_a_backend_registered_by_entry_point_is_found_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str | None] = []

    def entry_points(group: str | None = None) -> list[_EntryPoint]:
        asked.append(group)
        return [_EntryPoint("echo", Echo)] if group == ENTRY_POINT_GROUP else []

    monkeypatch.setattr("importlib.metadata.entry_points", entry_points)
    assert backend_class("replay").__name__ == "ReplayBackend" and asked == []  # built-in names read no metadata
    assert backend_class("echo") is Echo and asked == [ENTRY_POINT_GROUP]
    backend = get_backend("echo", "m", letter="B")
    assert isinstance(backend, Echo) and backend.letter == "B"
    with pytest.raises(InputError, match=r"unknown backend 'nope'; choose one of: .*replay, echo"):
        backend_class("nope")


class _Unchecked(Echo):
    protocol_role = "remote"  # type: ignore[assignment]


def test_a_backend_class_is_checked_before_it_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    # #35 item 3: capabilities are typed members of the Backend base, checked when a plugin's class loads.
    class Loose:
        name = "loose"

    plugins = {"loose": Loose, "unchecked": _Unchecked}
    monkeypatch.setattr(
        "importlib.metadata.entry_points",
        lambda group=None: [_EntryPoint(n, c) for n, c in plugins.items()] if group == ENTRY_POINT_GROUP else [],
    )
    with pytest.raises(InputError, match=r"backend 'loose' \(k12eval.backends entry point loose\) is not a "):
        backend_class("loose")
    with pytest.raises(InputError, match=r"protocol_role is 'remote', not one of local, api, generate"):
        backend_class("unchecked")
    for name in ("transformers", "vllm", "openai", "replay"):
        assert check_backend_class(backend_class(name)) is None
    assert [backend_class(n).is_chat for n in ("transformers", "vllm", "openai", "replay")] == [
        False,
        False,
        True,
        False,
    ]  # what a dry run assumes before a model is loaded
    with pytest.raises(InputError, match=r"backend 'Loose': is not a runners.backends.Backend subclass"):
        k12eval.run(SAMPLE, "m", "unused", backend=Loose())  # type: ignore[arg-type]


def test_an_entry_point_in_an_installed_distribution_is_found(tmp_path: Path) -> None:
    # A real (tiny) distribution on sys.path, in a subprocess: what `pip install my-backend` would leave.
    site = tmp_path / "site"
    (site / "my_backend-1.0.dist-info").mkdir(parents=True)
    (site / "my_backend-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: my-backend\nVersion: 1.0\n"
    )
    (site / "my_backend-1.0.dist-info" / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\nshout = my_backend:Shout\n", encoding="utf-8"
    )
    (site / "my_backend.py").write_text(
        "from runners.backends import Backend\n\n\nclass Shout(Backend):\n    name = 'shout'\n\n"
        "    def __init__(self, model, *, loud=True):\n        self.model, self.loud = model, loud\n\n"
        "    def generate(self, requests):\n        return []\n\n"
        "    def loglikelihood(self, requests):\n        return []\n\n"
        "    def count_tokens(self, text):\n        return len(text)\n"
    )
    code = "from runners.backends import get_backend; print(type(get_backend('shout', 'm', loud=False)).__name__)"
    env = {"PYTHONPATH": f"{site}:{REPO}", "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Shout"


def test_score_refuses_a_folder_that_is_not_a_run(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a run folder"):
        k12eval.score(tmp_path / "nothing")
    assert not (tmp_path / "nothing").exists()


def test_demo_defaults_to_the_bundled_banks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from k12eval.cli import app

    seen = {}

    def run_demo(options: object, echo: object) -> None:
        seen["options"] = options
        raise InputError("stopped here")

    monkeypatch.setattr("k12eval.cli._demo_pipeline.run_demo", run_demo)
    monkeypatch.chdir(tmp_path)  # no data/sample here: the defaults must not be relative to the working folder
    result = CliRunner().invoke(app, ["demo", "--work", str(tmp_path / "w")])
    assert result.exit_code == 2 and "stopped here" in result.output
    options = seen["options"]
    assert options.data == k12eval.sample_bank("sample") and options.dev == k12eval.sample_bank("sample_dev")  # type: ignore[attr-defined]


def test_score_cli_api_and_demo_compose_the_score_job_in_one_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each caller hands its options to k12eval.api.score_job and does nothing of the job itself.
    from typer.testing import CliRunner

    from k12eval.cli import app
    from k12eval.cli._demo_pipeline import _score
    from k12eval.cli._demo_stages import StageTimes
    from tests.reasoning_metrics.written_runs import write_bank, write_run

    run_dir = tmp_path / "run"
    write_run(run_dir, write_bank(tmp_path / "bank"))
    calls: list[dict[str, object]] = []

    def score_job(run: object, **options: object) -> object:
        calls.append({"run": run, **options})
        raise InputError("composed once")

    monkeypatch.setattr("k12eval.api.score_job", score_job)
    result = CliRunner().invoke(app, ["score", str(run_dir), "--no-detectors", "--combiner", "none"])
    assert result.exit_code == 2 and "composed once" in result.output
    with pytest.raises(InputError, match="composed once"):
        k12eval.score(run_dir, detectors=False)
    with pytest.raises(InputError, match="composed once"):
        _score(StageTimes(lambda text: None, 1), run_dir, {"en": "a", "zh": "b"}, None, lambda text: None)
    assert [(c["run"], c.get("detectors", True), c.get("combiner")) for c in calls] == [
        (run_dir, False, "none"),
        (run_dir, False, None),
        (run_dir, True, "default"),
    ]


def test_meta_eval_calibrate_and_the_demos_runs_end_in_the_api(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # #35 item 2: each command parses its options and calls one k12eval.api function, which composes the job.
    from typer.testing import CliRunner

    from k12eval.cli import app
    from k12eval.cli._demo_pipeline import _answer
    from k12eval.cli._demo_plan import DemoPlan
    from k12eval.cli._demo_stages import StageTimes

    calls: list[tuple[str, tuple[object, ...], dict[str, object]]] = []

    def job(name: str) -> Any:
        def composed(*args: object, **options: object) -> object:
            calls.append((name, args, options))
            raise InputError(f"{name}: composed once")

        return composed

    for name in ("meta_eval", "meta_eval_lodo", "calibrate", "run_job"):
        monkeypatch.setattr(f"k12eval.api.{name}", job(name))
    data = tmp_path / "labelled.jsonl"
    data.write_text("", encoding="utf-8")
    runner = CliRunner()
    result = runner.invoke(app, ["meta-eval", str(data), "-f", "chains", "-d", "arithmetic", "--nli", "none"])
    assert result.exit_code == 2 and "meta_eval: composed once" in result.output
    result = runner.invoke(app, ["meta-eval", "--lodo", f"chains:{data}", "--lodo", f"b=chains:{data}"])
    assert result.exit_code == 2 and "meta_eval_lodo: composed once" in result.output
    result = runner.invoke(app, ["calibrate", f"chains:{data}", "-o", str(tmp_path / "c.json")])
    assert result.exit_code == 2 and "calibrate: composed once" in result.output
    plan = DemoPlan(None, ("sample-1",), SAMPLE)  # type: ignore[arg-type]
    fields = {"data": SAMPLE, "model": "m", "backend": "replay", "out": tmp_path / "run", "mode": "zero-shot"}
    with pytest.raises(InputError, match="run_job: composed once"):
        _answer(StageTimes(lambda text: None, 1), plan, None, lambda text: None, "run", fields, "")
    assert [name for name, _, _ in calls] == ["meta_eval", "meta_eval_lodo", "calibrate", "run_job"]
    meta = calls[0]
    assert meta[1] == (data, "chains") and meta[2]["detectors"] == ["arithmetic"] and meta[2]["nli"] == "none"
    assert calls[1][1] == ([f"chains:{data}", f"b=chains:{data}"], None)
    [options] = calls[3][1]
    assert (options.data, options.model, options.backend, options.mode) == (SAMPLE, "m", "replay", "zero-shot")


def test_a_chain_file_is_scored_and_resumed_by_the_library_not_the_cli(tmp_path: Path) -> None:
    from k12eval.api import chain_scoring
    from reasoning_metrics.permetric import score_plan
    from tests.reasoning_metrics.fakes import HashEncoder

    chains = [
        {
            "id": "甲",
            "source": "小明有 5 个苹果，吃了 2 个。",
            "hypothesis": "5 - 2 = 3。所以还剩 3 个。",
            "lang": "zh",
        },
        {
            "id": "乙",
            "source": "一袋米 25 千克，吃了 5 千克。",
            "hypothesis": "25 - 5 = 20。还剩 20 千克。",
            "lang": "zh",
        },
    ]
    file = tmp_path / "chains.jsonl"
    file.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in chains), encoding="utf-8")
    out = tmp_path / "scores.jsonl"
    options = {"out": out, "plan": score_plan(["faithfulness_step"]), "models": {"encoder": HashEncoder()}}
    with chain_scoring(file, **options) as job:  # type: ignore[arg-type]
        assert job.todo == 2
        first = next(job.records)  # stopped after one chain, as a killed job would be
    with chain_scoring(file, **options) as job:  # type: ignore[arg-type]
        assert job.todo == 1
        [second] = list(job.records)
    assert {first.id, second.id} == {"甲", "乙"}
    assert [json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()] == [first.id, second.id]


def test_a_score_job_resolves_its_metrics_once_and_hands_the_plan_down(tmp_path: Path) -> None:
    from k12eval.api import chain_scoring, score_job
    from reasoning_metrics import metric_table, permetric
    from tests.reasoning_metrics.fakes import HashEncoder
    from tests.reasoning_metrics.written_runs import write_bank, write_run

    run_dir = tmp_path / "run"
    write_run(run_dir, write_bank(tmp_path / "bank"))
    chains = tmp_path / "chains.jsonl"
    chain = {"id": "甲", "source": "小明有 5 个苹果，吃了 2 个。", "hypothesis": "5 - 2 = 3。还剩 3 个。"}
    chains.write_text(json.dumps(chain, ensure_ascii=False) + "\n", encoding="utf-8")
    resolutions: list[object] = []
    plans: list[object] = []

    def count(frame: Any, event: str, arg: object) -> None:
        if event == "call" and frame.f_code is metric_table.resolve.__code__:
            resolutions.append(frame.f_locals.get("names"))
        if event == "call" and frame.f_code is permetric.score_plan.__code__:  # made once, then only handed down
            plans.append(frame.f_locals.get("metrics"))

    encoder = {"encoder": HashEncoder()}
    sys.setprofile(count)
    try:
        plan = permetric.score_plan(["info_chain"])
        done = score_job(run_dir, plan=plan, models=encoder, detectors=False, combiner="none")
        scored_run = (list(resolutions), list(plans))
        resolutions.clear()
        plans.clear()
        plan = permetric.score_plan(["info_chain"])
        with chain_scoring(chains, out=tmp_path / "s.jsonl", plan=plan, models=encoder) as job:
            list(job.records)
    finally:
        sys.setprofile(None)
    assert done.todo > 0 and all("info_chain" in line["scores"] for line in done.lines)
    assert scored_run == ([["info_chain"]], [["info_chain"]])
    assert (resolutions, plans) == ([["info_chain"]], [["info_chain"]])


@pytest.mark.usefixtures("offline")  # its own embedding cache
def test_the_api_and_the_demo_hand_a_model_as_many_texts_per_call_as_score_does(tmp_path: Path) -> None:
    # `score --batch-size` became 256 so that a GPU gets whole batches (#24 item 3); score_job, which the
    # Python API and the demo call, still handed the models 32 texts at a time.
    from tests.reasoning_metrics.fakes import HashEncoder
    from tests.reasoning_metrics.written_runs import write_bank, write_run

    steps = "".join(f"第{i}步：{i}+{i}={2 * i}。" for i in range(1, 61))
    run_dir = write_run(tmp_path / "run", write_bank(tmp_path / "bank"), outputs={"q-apples": steps + "答案：B"})
    encoder = HashEncoder()
    records = k12eval.score(
        run_dir, metrics=["faithfulness_step"], models={"encoder": encoder}, detectors=False, combiner="none"
    )
    assert [r.unavailable for r in records] == [{}, {}], records
    assert max(len(call) for call in encoder.calls) > 32


def test_a_score_job_wraps_its_models_in_model_slots_once(tmp_path: Path) -> None:
    # One set of slots per job, made where the job is composed and handed down to the header, the loading and
    # the scoring (#25 item 2): three sets disagreeing on a model's name or its loaded copy cannot happen.
    from k12eval.api import chain_scoring, score_job
    from reasoning_metrics.permetric import score_plan
    from reasoning_metrics.slots import ModelSlots
    from tests.reasoning_metrics.fakes import HashEncoder
    from tests.reasoning_metrics.written_runs import write_bank, write_run

    run_dir = tmp_path / "run"
    write_run(run_dir, write_bank(tmp_path / "bank"))
    chains = tmp_path / "chains.jsonl"
    chain = {"id": "甲", "source": "小明有 5 个苹果，吃了 2 个。", "hypothesis": "5 - 2 = 3。还剩 3 个。"}
    chains.write_text(json.dumps(chain, ensure_ascii=False) + "\n", encoding="utf-8")
    made: list[object] = []

    def count(frame: Any, event: str, arg: object) -> None:
        if event == "call" and frame.f_code is ModelSlots.__init__.__code__:
            made.append(frame.f_locals.get("given"))

    encoder = {"encoder": HashEncoder()}
    sys.setprofile(count)
    try:
        done = score_job(run_dir, plan=score_plan(["info_chain"]), models=encoder, detectors=False, combiner="none")
        per_run = len(made)
        made.clear()
        with chain_scoring(chains, out=tmp_path / "s.jsonl", plan=score_plan(["info_chain"]), models=encoder) as job:
            scored = list(job.records)
    finally:
        sys.setprofile(None)
    assert done.todo > 0 and all(line["scores"]["info_chain"] is not None for line in done.lines)
    assert len(scored) == 1 and scored[0].scores["info_chain"] is not None
    assert (per_run, len(made)) == (1, 1)


def test_run_on_the_command_line_answers_with_the_options_the_api_composes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `k12eval run` parses its options and leaves the composing of the job to k12eval.api (#25 item 3): the
    # options it answers with are those api.run_options makes of the same arguments.
    from typer.testing import CliRunner

    from k12eval import api
    from k12eval.cli import app

    answered: list[object] = []

    def stop(options: object, progress: object = None) -> None:
        answered.append(options)
        raise InputError("stopped by the test")

    monkeypatch.setattr(api, "run_job", stop)
    out = tmp_path / "运行"
    args = ["run", str(k12eval.sample_bank()), "-m", "qwen-test", "-b", "openai", "-o", str(out)]
    args += ["--mode", "few-shot-cot", "-s", "数学,物理", "--limit", "2", "-B", "base_url=http://127.0.0.1:9", "-q"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2 and "stopped by the test" in result.output
    composed = api.run_options(
        k12eval.sample_bank(),
        "qwen-test",
        out,
        backend="openai",
        resolve_model=True,
        mode="few-shot-cot",
        subjects="数学,物理",
        limit=2,
        backend_options={"base_url": "http://127.0.0.1:9"},
        batch_size="auto",
    )
    assert answered == [composed]
