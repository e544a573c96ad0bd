"""Fuzz the verifier, the splitter and the chain reader with hostile text (#14): nothing escapes.

Invariants: the arithmetic verifier and the splitter return for any text; every detector on a
chain gives an assessment that is checked (or, past its budget, too long), never an exception
and never an error status, which would mean a detector bug; the chain reader gives chains or
one :class:`InputError` line naming the file (and the line when one is to blame). Derandomized
and small, so the suite stays fast and the same on every run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg.errors import InputError
from reasoning_metrics.chainfile import read_chains
from reasoning_metrics.split import split_steps
from reasoning_metrics.verify import assess_one, check_steps

FUZZ = settings(derandomize=True, max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

PIECES = st.sampled_from(
    [
        "9" * 5000, "1e99999", "10^10^10", "(1+0.001)^5000", "2^-99999", "0.000000001", "1/0", "0^-1",
        "100000!", "170!", "171!", "sqrt(-4)", "√", "π", "%", "=", "≈", "≠", "<", ">", "×", "÷", "+", "-",
        "\\frac{1}{3}", "\\sqrt{2}", "\\boxed{", "}", "$", "$$", "\\(", "\\)", "\\[", "\\]", "{", "}",
        "(" * 200, ")" * 200, "\x00", "\ud83d", "\udc00", "\u2028", "\r\n", "\n", "\t", " ", "。", "！", "．",
        "!" * 300, "." * 300, "?" * 300, "…" * 50, "x", "Let x be", "x = 3", "2x + 1 = 7", "答案", "故选B",
        "12", "3.5", "1,000", "五", "二十", "50%", "$3", "the answer is", "Wait,", "I think", "e.g.", "1.",
    ]
)  # fmt: skip
STEP = st.lists(st.one_of(PIECES, st.text(max_size=20)), max_size=12).map("".join)


@dataclass(frozen=True)
class Sol:
    id: str
    problem: str
    steps: list[str]


@FUZZ
@given(STEP)
@pytest.mark.slow
def test_the_verifier_and_the_splitter_return_on_any_step(step: str) -> None:
    (check,) = check_steps([step])
    assert len(check.mentioned) >= 0
    assert all(isinstance(s, str) for s in split_steps(step))
    assert all(isinstance(s, str) for s in split_steps(step, "zh"))


@FUZZ
@given(STEP, st.lists(STEP, min_size=1, max_size=6))
@pytest.mark.slow
def test_every_detector_checks_any_chain(problem: str, steps: list[str]) -> None:
    assessment = assess_one(Sol("s", problem, steps))
    assert assessment.status in ("checked", "too_long"), assessment.flags
    assert len(assessment.steps) == len(steps)
    assessment.model_dump_json()  # storable as the score record holds it


@pytest.mark.slow
def test_a_long_line_of_everything_is_checked() -> None:
    step = " ".join(["(" * 40 + "9" * 400 + ")" * 40 + "^99 = 1", "\\frac{1}{0} = 5", "!" * 10_000] * 30)
    assert assess_one(Sol("s", "12 apples", [step, step])).status in ("checked", "too_long")


VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
FIELDS = st.sampled_from(["id", "source", "hypothesis", "reference", "lang", "other"])
RECORDS = st.dictionaries(FIELDS, st.one_of(VALUES, STEP, st.lists(STEP, max_size=3)), max_size=6)
LINES = st.one_of(
    RECORDS.map(lambda r: json.dumps(r, ensure_ascii=False).encode("utf-8", "surrogatepass")),
    st.sampled_from(
        [
            b"", b"\xef\xbb\xbf{}", b"{", b"[1, 2]", b"\"text\"", b"\xff\xfe", b"\x00", b"{\"id\": \"a\"}\r",
            b"[" * 3000 + b"]" * 3000, b"{\"id\": " + b"9" * 5000 + b"}", b"{\"id\": \"\\ud83d\"}",
            b"{\"id\": \"a\", \"source\": \"q\", \"hypothesis\": \"1 + 1 = 2\"}",
            b"{\"id\": \"a\", \"source\": \"q\", \"hypothesis\": [\"x\", 3]}",
        ]
    ),
)  # fmt: skip


@FUZZ
@given(st.lists(LINES, max_size=5))
@pytest.mark.slow
def test_the_chain_reader_gives_chains_or_one_line_naming_the_file(lines: list[bytes]) -> None:
    with _file(b"\n".join(lines)) as path:
        try:
            chains = read_chains(path)
        except InputError as exc:
            message = str(exc)
            assert "\n" not in message and message.startswith(str(path)), message
            return
        assert all(isinstance(c.source, str) for c in chains)


class _file:
    """A temporary chain file (hypothesis runs many examples in one test, so no tmp_path)."""

    def __init__(self, data: bytes) -> None:
        import tempfile

        self._dir = tempfile.TemporaryDirectory()
        self.path = Path(self._dir.name) / "chains.jsonl"
        self.path.write_bytes(data)

    def __enter__(self) -> Path:
        return self.path

    def __exit__(self, *_: object) -> None:
        self._dir.cleanup()


@pytest.mark.parametrize("line", [b"[" * 3000 + b"]" * 3000, b'{"id": ' + b"9" * 5000 + b"}"])
def test_the_chain_reader_names_the_line_of_deep_or_huge_json(tmp_path: Path, line: bytes) -> None:
    path = tmp_path / "chains.jsonl"
    path.write_bytes(b'{"id": "a", "source": "q", "hypothesis": "1 + 1 = 2"}\n' + line + b"\n")
    with pytest.raises(InputError) as caught:
        read_chains(path)
    assert str(caught.value).startswith(f"{path}, line 2") and "\n" not in str(caught.value)
