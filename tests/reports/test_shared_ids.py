"""Two runs whose banks hold different questions under one id (two teachers' tests that both number their
questions 1, 2, 3): the report joins runs on ids, so it says so rather than count one's answers under the
other's questions without a word. Variants of one question (shuffled options) are no clash."""

from __future__ import annotations

from pathlib import Path

from reports import write_report
from tests._runs import Answer, question, write_bank, write_run


def test_two_banks_numbering_their_questions_alike_are_named_in_a_warning(tmp_path: Path) -> None:
    maths = [question(str(n), "数学", "代数", "方程", stem=f"甲卷第 {n} 题") for n in (1, 2)]
    poems = [question(str(n), "语文", "古诗", "背诵", stem=f"乙卷第 {n} 题") for n in (1, 3)]
    bank_a, bank_b = write_bank(tmp_path / "甲", maths), write_bank(tmp_path / "乙", poems)
    run_a = write_run(tmp_path / "a", {q.id: q for q in maths}, {q.id: Answer(True) for q in maths}, bank=bank_a)
    run_b = write_run(tmp_path / "b", {q.id: q for q in poems}, {q.id: Answer(False) for q in poems}, bank=bank_b)
    result = write_report([run_a, run_b], tmp_path / "report", plots=False)
    (note,) = [w for w in result.warnings if "shared id" in w]
    assert "1 shared id" in note and "'1'" in note
    assert "数学 / 代数 / 方程 in a" in note and "语文 / 古诗 / 背诵 in b" in note
    assert "乙卷" not in note  # names the places, not the texts the report does not keep
    assert "题号相同但题目不同" in note.zh  # type: ignore[attr-defined]


def test_a_question_asked_in_two_wordings_is_no_clash(tmp_path: Path) -> None:
    qs = [question("q1", "数学", "代数", "方程", options=["一", "二", "三", "四"])]
    shuffled = [question("q1", "数学", "代数", "方程", options=["三", "一", "四", "二"], answer=["B"])]
    bank = write_bank(tmp_path / "bank", qs)
    write_bank(tmp_path / "bank", shuffled, variant="shuffled")
    run_a = write_run(tmp_path / "a", {"q1": qs[0]}, {"q1": Answer(True)}, bank=bank)
    run_b = write_run(tmp_path / "b", {"q1": shuffled[0]}, {"q1": Answer(True)}, variant="shuffled", bank=bank)
    result = write_report([run_a, run_b], tmp_path / "report", plots=False)
    assert not [w for w in result.warnings if "shared id" in w]
