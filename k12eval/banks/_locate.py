"""What a question-bank argument names, turned into a local folder, without the network.

``k12eval run`` and ``k12eval kg`` take a path, a benchmark's name (``ceval``, ``cmmlu``, the lm-eval and
OpenCompass names, the hub id) or ``hf://org/name``. An existing path always wins. A name is looked up in
what ``k12eval data pull`` recorded, then in the Hugging Face hub's own cache (``HF_HUB_CACHE``,
``HF_HOME/hub``), where ``huggingface-cli download``, ``datasets`` and lm-eval leave their copies too.
Nothing is downloaded here: a bank that is not on this machine is one error line saying how to bring it.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from k12eval.banks._benchmarks import Benchmark, find_benchmark, hub_id
from k12eval.banks._unpack import bank_root, data_home, read_pulled, unpack
from kg.errors import InputError

if TYPE_CHECKING:
    from kg.records import Question

MIRROR = "https://hf-mirror.com"
"""The hub mirror most users in China set as ``HF_ENDPOINT``."""


class NotOnThisMachine(InputError):
    """A benchmark's name or hub id whose files are not on this machine; the message says how to fetch them."""


@dataclass(frozen=True)
class DataRef:
    """A question-bank argument, resolved: the folder to read and, for a name, what it named."""

    path: Path
    benchmark: str | None = None
    """The benchmark's name when a name was given."""
    subject: str | None = None
    """The subject an lm-eval subtask name carried, as the bank names it (``ceval-valid_computer_network``: 计算机网络)."""
    named: str | None = None
    """What the user typed, when it was a name or a hub id (``GaokaoBench``, ``hf://ceval/ceval-exam``)."""
    revision: str | None = None
    """The hub commit or archive commit of the files found, when known."""
    origin: str | None = None
    """Where the files came from: ``hub ORG/NAME``, ``archive URL``, or ``url``/``local`` and the copy ``data pull
    --from`` took."""

    def in_scope(self, questions: Iterable[Question]) -> Iterator[Question]:
        """``questions`` of the subject the name carried (``cmmlu_agronomy``: 农学 alone, as ``run`` asks it), else
        all of them."""
        return (q for q in questions if self.subject is None or q.subject == self.subject)

    def record(self) -> dict[str, str | None] | None:
        """What ``run.json`` keeps beside the folder (its ``data.named``): the name as typed, the benchmark, its
        subject, the revision and origin of the files; ``None`` for a path."""
        if self.named is None:
            return None
        return {"as_typed": self.named, "benchmark": self.benchmark, "subject": self.subject,
                "revision": self.revision, "origin": self.origin}  # fmt: skip


def resolve_data(ref: str | Path, root: Path | None = None) -> DataRef:
    """The local folder ``ref`` stands for: an existing path as it is, a benchmark or ``hf://`` id from the caches.

    Anything else is returned as a path for the importer to refuse (``no such file or folder``).
    Raises :class:`InputError` for a known name or hub id that is not on this machine, saying how to fetch it.
    """
    path = Path(ref).expanduser()
    if path.exists():
        return DataRef(path)
    typed = str(ref)
    named = find_benchmark(typed)
    if named is not None:
        found = find_local_copy(named.benchmark, root)
        if found is None:
            raise NotOnThisMachine(not_here(named.benchmark))
        folder, revision, origin = found
        return DataRef(folder, named.benchmark.name, named.subject, typed, revision, origin)
    repo = hub_id(typed)
    if repo is not None:
        cached = cached_snapshot(repo, None)
        if cached is None:
            raise NotOnThisMachine(not_here_hub(repo))
        return DataRef(cached[0], named=f"hf://{repo}", revision=cached[1], origin=f"hub {repo}")
    return DataRef(path)


def locate(benchmark: Benchmark, root: Path | None = None) -> Path:
    """The folder of ``benchmark``'s bank on this machine; :class:`NotOnThisMachine` saying how to fetch it if none."""
    found = find_local(benchmark, root)
    if found is None:
        raise NotOnThisMachine(not_here(benchmark))
    return found


def find_local(benchmark: Benchmark, root: Path | None = None) -> Path | None:
    """``benchmark``'s bank on this machine: the last ``data pull``, else the hub cache's copy, else ``None``."""
    found = find_local_copy(benchmark, root)
    return found[0] if found is not None else None


def find_local_copy(benchmark: Benchmark, root: Path | None = None) -> tuple[Path, str | None, str] | None:
    """``(folder, revision, origin)`` of :func:`find_local`'s copy, or ``None``."""
    pulled = read_pulled(benchmark.name, root)
    if pulled is not None:
        return Path(pulled.path), pulled.revision, f"{pulled.source} {pulled.origin}"
    if benchmark.hub is None:
        return None
    cached = cached_snapshot(benchmark.hub.repo_id, benchmark.hub.patterns)
    if cached is None:
        return None
    folder, commit = cached
    origin = f"hub {benchmark.hub.repo_id}"
    if benchmark.hub.unpack is None:
        return folder, commit, origin
    target = unpack(folder / benchmark.hub.unpack, data_home(root) / benchmark.name / commit)
    return bank_root(target), commit, origin


def cached_snapshot(repo_id: str, patterns: Sequence[str] | None) -> tuple[Path, str] | None:
    """The hub cache's snapshot of the dataset ``repo_id`` (its ``main``) and its commit, when it holds files
    matching ``patterns`` (any file when ``None``); ``None`` otherwise. Never goes to the network."""
    try:
        from huggingface_hub import snapshot_download
    except ImportError:
        return None
    from k12eval.models import hub_cache_dir

    try:
        folder = snapshot_download(
            repo_id=repo_id,
            repo_type="dataset",
            cache_dir=str(hub_cache_dir()),
            allow_patterns=list(patterns) if patterns else None,
            local_files_only=True,
        )
    except (OSError, ValueError):  # not in the cache (LocalEntryNotFoundError), or a partial snapshot
        return None
    path = Path(folder)
    return (path, path.name) if matching_files(path, patterns) else None


def matching_files(folder: Path, patterns: Sequence[str] | None) -> list[Path]:
    """The files under ``folder`` whose path (with ``/``) matches one of ``patterns`` (all files when ``None``),
    as ``snapshot_download``'s ``allow_patterns`` match them."""
    found = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        if relative.startswith(".") or not path.is_file():
            continue
        if patterns is None or any(fnmatch.fnmatch(relative, p) for p in patterns):
            found.append(path)
    return found


def not_here(benchmark: Benchmark) -> str:
    """One line: ``benchmark`` is not on this machine, and the ways to bring it."""
    name = benchmark.name
    if benchmark.hub is not None:
        ways = f"HF_ENDPOINT={MIRROR} k12eval data pull {name} through the mirror"
        if benchmark.modelscope:
            ways += (
                f"; from ModelScope: modelscope download --dataset {benchmark.modelscope} --local_dir DIR, "
                f"then k12eval data pull {name} --from DIR"
            )
    else:
        assert benchmark.archive is not None
        ways = f"its archive {benchmark.archive.url} fetched elsewhere: k12eval data pull {name} --from FILE.zip"
    return (
        f"benchmark {name} ({benchmark.title}) is not on this machine; fetch it with: k12eval data pull {name} "
        f"({ways}), or pass the folder of a copy"
    )


def not_here_hub(repo: str) -> str:
    """One line: the hub dataset ``repo`` is not in the hub cache, and the ways to bring it."""
    return (
        f"hub dataset {repo} is not in the Hugging Face cache here; fetch it with: k12eval data pull hf://{repo} "
        f"(HF_ENDPOINT={MIRROR} k12eval data pull hf://{repo} through the mirror), or pass the folder of a copy"
    )
