"""The benchmarks k12eval knows by name: where each is published, under which licence, and the names users type.

One record per benchmark (:data:`BENCHMARKS`). A benchmark comes from the Hugging Face hub (:class:`HubSource`:
a dataset repository, the files of it that hold the bank) or, where the hub has no copy of the publisher's
own, from the publisher's GitHub archive at a pinned commit (:class:`ArchiveSource`). The names a user may
type for it are its own name, the lm-evaluation-harness and OpenCompass task names and the hub id
(:func:`find_benchmark`); an lm-eval subtask (``ceval-valid_computer_network``, ``cmmlu_agronomy``) names
the benchmark and one of its subjects.

Where the facts come from (checked against the public repositories, see docs/data.md): the hub cards of
``ceval/ceval-exam`` (Parquet per subject and split since its conversion to Parquet) and ``haonan-li/cmmlu``
(``cmmlu_v1_0_1.zip`` with ``dev/`` and ``test/`` CSVs, read by its ``cmmlu.py``); lm-eval's
``tasks/ceval/_default_ceval_yaml`` (``dataset_path: ceval/ceval-exam``, ``validation_split: val``) and
``tasks/cmmlu/_default_template_yaml`` (``dataset_path: haonan-li/cmmlu``, ``test_split: test``); the
GitHub repositories of CK12 (``tal-tech/chinese-k12-evaluation``, whose ``data/`` was removed from the
branch on 2024-01-02 and lives on in commit ``f23cfed``), Xiezhi (``MikeGu721/XiezhiBenchmark``) and
GAOKAO-Bench (``OpenLMLab/GAOKAO-Bench``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from kg.importers._ceval_subjects import SUBJECTS as CEVAL_SUBJECTS
from kg.importers._cmmlu_subjects import SUBJECTS as CMMLU_SUBJECTS


@dataclass(frozen=True)
class HubSource:
    """A dataset repository on the Hugging Face hub and the files of it that hold the bank."""

    repo_id: str
    patterns: tuple[str, ...]
    """``allow_patterns`` of ``snapshot_download``: only these files are fetched."""
    unpack: str | None = None
    """A zip archive among those files whose contents are the bank (CMMLU's ``cmmlu_v1_0_1.zip``)."""


@dataclass(frozen=True)
class ArchiveSource:
    """A publisher's GitHub repository, fetched as the archive of one commit."""

    repo: str
    """``owner/name`` on GitHub."""
    commit: str
    subpath: str
    """The bank's folder inside the repository."""

    @property
    def url(self) -> str:
        """The archive of the pinned commit (GitHub serves one for every commit)."""
        return f"https://github.com/{self.repo}/archive/{self.commit}.zip"


@dataclass(frozen=True)
class Benchmark:
    """One benchmark: what it is, where it is published, and how k12eval reads it."""

    name: str
    title: str
    fmt: str
    """The importer that reads it (``kg.importers.FORMATS``)."""
    licence: str
    homepage: str
    eval_split: str | None
    """The split its paper reports (``None``: the bank has no splits)."""
    aliases: tuple[str, ...]
    """Other names users type: lm-eval and OpenCompass task names, the hub id, the GitHub repository."""
    hub: HubSource | None = None
    archive: ArchiveSource | None = None
    modelscope: str | None = None
    """The ModelScope dataset id of a copy, for users who cannot reach the hub."""
    subjects: Mapping[str, str] = field(default_factory=dict)
    """Subject key an lm-eval subtask name may end in (``ceval-valid_<key>``) -> the subject's name in the bank."""
    subtask_prefixes: tuple[str, ...] = ()
    """lm-eval / OpenCompass prefixes of one subject's task (``ceval-valid_``, ``cmmlu_``, ``cmmlu-``)."""

    @property
    def published(self) -> str:
        """Where the files come from, in words: the hub id or the GitHub repository at its commit."""
        if self.hub is not None:
            return f"hub {self.hub.repo_id}"
        assert self.archive is not None
        return f"github {self.archive.repo}@{self.archive.commit[:7]}"


BENCHMARKS: tuple[Benchmark, ...] = (
    Benchmark(
        name="ck12",
        title="CK12 (chinese-k12-evaluation, AAAI 2024)",
        fmt="ck12",
        licence="no licence file published (cite the paper)",
        homepage="https://github.com/tal-tech/chinese-k12-evaluation",
        eval_split=None,
        aliases=("chinese-k12-evaluation", "tal-tech/chinese-k12-evaluation", "k12"),
        archive=ArchiveSource("tal-tech/chinese-k12-evaluation", "f23cfed115f037067bb72a1258c175661d6994aa", "data"),
    ),
    Benchmark(
        name="cmmlu",
        title="CMMLU (Li et al. 2023)",
        fmt="cmmlu",
        licence="CC BY-NC-SA 4.0",
        homepage="https://github.com/haonan-li/CMMLU",
        eval_split="test",
        aliases=("haonan-li/cmmlu", "haonan-li/CMMLU"),
        hub=HubSource("haonan-li/cmmlu", ("cmmlu_v1_0_1.zip",), unpack="cmmlu_v1_0_1.zip"),
        modelscope="modelscope/cmmlu",
        subjects={key: zh for key, (zh, _) in CMMLU_SUBJECTS.items()},
        subtask_prefixes=("cmmlu_", "cmmlu-"),
    ),
    Benchmark(
        name="ceval",
        title="C-Eval (Huang et al. 2023)",
        fmt="ceval",
        licence="CC BY-NC-SA 4.0",
        homepage="https://github.com/hkust-nlp/ceval",
        eval_split="val",
        aliases=("ceval/ceval-exam", "ceval-exam", "ceval-valid", "c-eval"),
        hub=HubSource("ceval/ceval-exam", ("*.parquet",)),
        modelscope="modelscope/ceval-exam",
        subjects={key: zh for key, (zh, _) in CEVAL_SUBJECTS.items()},
        subtask_prefixes=("ceval-valid_", "ceval-"),
    ),
    Benchmark(
        name="xiezhi",
        title="Xiezhi (Gu et al. 2024)",
        fmt="xiezhi",
        licence="CC BY-NC-SA 4.0 (the code: MIT)",
        homepage="https://github.com/MikeGu721/XiezhiBenchmark",
        eval_split="test",
        aliases=("MikeGu721/XiezhiBenchmark", "xiezhibenchmark"),
        archive=ArchiveSource(
            "MikeGu721/XiezhiBenchmark", "9c6ba468d1ede4dad84ccd8284264e75665c5fab", "Tasks/Knowledge/Benchmarks"
        ),
    ),
    Benchmark(
        name="gaokao",
        title="GAOKAO-Bench (Zhang et al. 2023), objective questions",
        fmt="gaokao",
        licence="Apache-2.0",
        homepage="https://github.com/OpenLMLab/GAOKAO-Bench",
        eval_split=None,
        aliases=("gaokao-bench", "OpenLMLab/GAOKAO-Bench", "GaokaoBench"),
        archive=ArchiveSource("OpenLMLab/GAOKAO-Bench", "6dbb24f8d8439041e5431c4c184a582182a6ce9c", "Data"),
    ),
)
"""Every benchmark k12eval can fetch by name, in the order ``k12eval data list`` shows them."""


@dataclass(frozen=True)
class Named:
    """What a name the user typed stands for: a benchmark, and one of its subjects for an lm-eval subtask."""

    benchmark: Benchmark
    subject: str | None = None
    """The subject's name in the bank (CMMLU's and C-Eval's Chinese name, ``操作系统``)."""


_HF_PREFIX = re.compile(r"^hf:/+(datasets/)?", re.IGNORECASE)


def hub_id(ref: str) -> str | None:
    """``org/name`` of an ``hf://org/name`` (or ``hf://datasets/org/name``) reference, else ``None``.

    A path argument may have been through :class:`pathlib.Path`, which writes ``hf://`` as ``hf:/``.
    """
    text = ref.replace("\\", "/")
    match = _HF_PREFIX.match(text)
    if match is None:
        return None
    rest = text[match.end() :].strip("/")
    return rest if re.fullmatch(r"[\w.-]+/[\w.-]+", rest) else None


def find_benchmark(ref: str) -> Named | None:
    """The benchmark ``ref`` names (its name, an alias, its hub id, ``hf://`` + hub id, an lm-eval subtask), or ``None``.

    Case does not matter: ``C-Eval``, ``CEVAL`` and ``ceval`` are the same.
    """
    text = hub_id(ref) or ref.replace("\\", "/").strip()
    key = text.casefold()
    for benchmark in BENCHMARKS:
        names = (benchmark.name, *benchmark.aliases, *([benchmark.hub.repo_id] if benchmark.hub else []))
        if key in {n.casefold() for n in names}:
            return Named(benchmark)
    for benchmark in BENCHMARKS:
        for prefix in benchmark.subtask_prefixes:
            subject = benchmark.subjects.get(key[len(prefix) :]) if key.startswith(prefix) else None
            if subject is not None:
                return Named(benchmark, subject)
    return None


def known_names() -> str:
    """The benchmarks' names, for an error message."""
    return ", ".join(b.name for b in BENCHMARKS)
