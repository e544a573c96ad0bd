"""Fuzzing the replay reader through the real CLI (``k12eval run -b replay``), as issue #14 asks.

A replay file is a random mix of good answers and lines spoiled in one known way (not JSON, not an
object, no id, a wrong-typed answer, a huge integer, deep nesting, a byte that is not UTF-8), with
LF or CRLF line ends, with or without a BOM, sometimes with a very long answer or a lone surrogate in
an answer (model output is kept whatever it holds: the surrogate becomes U+FFFD).
The invariant: exit 0 with one record per question when nothing is spoiled; otherwise exit 2 and
one ``error:`` line naming the replay file and the first spoiled line; never a traceback. Arbitrary
bytes: exit 0, 1 (questions without a recorded answer failed) or 2, never a traceback. Examples are derandomized so CI sees the same ones.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from k12eval.cli import app
from runners.store import RunStore
from tests._runs import question, write_bank

FUZZ = settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
QUESTIONS = [question(f"q{i}", "数学", "函数", "一次函数", stem=f"第 {i} 题") for i in range(4)]
ANSWER = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\n\r"), max_size=40)
SPOILERS: dict[str, bytes] = {
    "not json": b"{not json",
    "not an object": b"[1, 2]",
    "no id": b'{"response": "A"}',
    "answer of a wrong type": b'{"id": "q0", "response": {"text": "A"}}',
    "huge integer": b'{"id": "q0", "response": "A", "prompt_tokens": ' + b"9" * 5000 + b"}",
    "deep nesting": b'{"id": "q0", "response": ' + b"[" * 5000 + b"]" * 5000 + b"}",
    "invalid UTF-8": b'{"id": "q0", "response": "\xff\xfe"}',
}


def _invoke(bank: Path, replay: Path, out: Path) -> tuple[int, str]:
    args = ["run", str(bank), "-m", "replayed", "-b", "replay", "-B", f"path={replay}", "-o", str(out)]
    result = CliRunner().invoke(app, args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"traceback: {result.exception!r}") from result.exception
    return result.exit_code, result.output


@FUZZ
@given(
    answers=st.lists(ANSWER, min_size=4, max_size=4),
    spoil=st.one_of(st.none(), st.tuples(st.sampled_from(sorted(SPOILERS)), st.integers(0, 4))),
    crlf=st.booleans(),
    bom=st.booleans(),
    long=st.booleans(),
    surrogate=st.booleans(),
)
@pytest.mark.slow
def test_a_replay_file_runs_or_is_refused_naming_its_first_spoiled_line(
    answers: list[str], spoil: tuple[str, int] | None, crlf: bool, bom: bool, long: bool, surrogate: bool
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        bank = write_bank(tmp / "bank", QUESTIONS)
        if long:
            answers[0] = "正确答案是：A。" * 20_000
        lines = [
            json.dumps({"id": q.id, "response": a}, ensure_ascii=False).encode()
            for q, a in zip(QUESTIONS, answers, strict=True)
        ]
        if surrogate:
            lines[1] = b'{"id": "q1", "response": "\\ud83d \xe7\xad\x94\xe6\xa1\x88\xe6\x98\xaf A"}'
        if spoil is not None:
            lines.insert(spoil[1], SPOILERS[spoil[0]])
        replay = tmp / "answers.jsonl"
        data = (b"\r\n" if crlf else b"\n").join(lines) + b"\n"
        replay.write_bytes((b"\xef\xbb\xbf" if bom else b"") + data)
        code, output = _invoke(bank, replay, tmp / "run")
        if spoil is None:
            assert code == 0, output
            records = RunStore(tmp / "run").records()
            assert sorted(r.question_id for r in records) == [q.id for q in QUESTIONS]
            assert all(r.parse_status != "failed" for r in records)
            if surrogate:
                (kept,) = [r.output for r in records if r.question_id == "q1"]
                assert kept is not None and kept.startswith("\ufffd ")
        else:
            assert code == 2, output
            (line,) = output.strip().splitlines()
            assert line.startswith("error: ") and str(replay) in line and f"line {spoil[1] + 1}" in line, line


@FUZZ
@given(data=st.binary(max_size=300))
@pytest.mark.slow
def test_arbitrary_bytes_as_a_replay_file_never_give_a_traceback(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        bank = write_bank(tmp / "bank", QUESTIONS)
        replay = tmp / "answers.jsonl"
        replay.write_bytes(data)
        code, output = _invoke(bank, replay, tmp / "run")
        assert code in (0, 1, 2), output
        if code == 2:  # refused: one line
            assert len(output.strip().splitlines()) == 1 and output.startswith("error: ")
        if code == 1:  # questions with no recorded answer failed: the last line says how many
            assert output.strip().splitlines()[-1].startswith("error: ") and "failed" in output
