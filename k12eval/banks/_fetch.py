"""``k12eval data pull``: bring a benchmark's files onto this machine, from the hub, the publisher's archive or a copy.

From the hub, the files go through ``huggingface_hub.snapshot_download`` into the hub's own cache
(``HF_HUB_CACHE``, else ``HF_HOME/hub``), from ``HF_ENDPOINT`` (a mirror such as https://hf-mirror.com)
when it is set; both are read when the pull runs. A publisher's GitHub archive, a URL or a local zip (a
ModelScope download, a file fetched elsewhere) is unpacked into ``$K12EVAL_HOME/data/<name>/``. Each pull
records where the bank now is (``pulled.json``), which ``k12eval run NAME`` reads.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from k12eval.banks._benchmarks import Benchmark, find_benchmark, hub_id, known_names
from k12eval.banks._locate import MIRROR, cached_snapshot, find_local, matching_files
from k12eval.banks._unpack import ABANDONED, bank_root, data_home, unpack, write_pulled
from kg.errors import InputError, SettingError
from runners.leftovers import owner, remove_abandoned, replacing

Report = Callable[[str], None]


@dataclass(frozen=True)
class PullResult:
    """A bank on this machine after :func:`pull`."""

    name: str
    path: Path
    """The bank's folder: give it (or the name) to ``k12eval run``."""
    origin: str
    """Where it came from: the hub id, the archive's URL, or the local copy."""
    revision: str | None
    already: bool
    """True when it was already here and nothing was fetched."""


def pull(
    ref: str,
    *,
    source: str | None = None,
    revision: str | None = None,
    force: bool = False,
    root: Path | None = None,
    report: Report = lambda _: None,
) -> PullResult:
    """Fetch the benchmark ``ref`` names (or the hub dataset of ``hf://org/name``) unless it is already here.

    ``source``: a local zip, a local folder (a ModelScope download) or a URL to take the files from instead of
    the benchmark's own source. ``revision``: a hub branch, tag or commit. ``force``: fetch even when a copy
    is here. Errors (offline, no such repository) are :class:`InputError` lines saying what to do.
    """
    named = find_benchmark(ref)
    if named is None:
        repo = hub_id(ref)
        if repo is None:
            raise InputError(
                f"unknown benchmark {ref!r}; known: {known_names()} (k12eval data list), "
                "or a hub dataset as hf://ORG/NAME"
            )
        folder, commit = _snapshot(repo, None, revision)
        return PullResult(repo, folder, f"hub {repo}", commit, already=False)
    benchmark = named.benchmark
    for name in remove_abandoned(data_home(root) / benchmark.name, ABANDONED):
        report(f"removed {name}, left by a pull that was killed midway")
    if source is not None:
        return _pull_from(benchmark, source, root, report)
    if not force and revision is None:
        here = find_local(benchmark, root)
        if here is not None:
            return PullResult(benchmark.name, here, benchmark.published, None, already=True)
    if benchmark.hub is not None:
        folder, commit = _snapshot(benchmark.hub.repo_id, benchmark.hub.patterns, revision, benchmark)
        path = folder
        if benchmark.hub.unpack is not None:
            target = data_home(root) / benchmark.name / commit
            path = bank_root(unpack(folder / benchmark.hub.unpack, target))
        write_pulled(benchmark.name, path, "hub", benchmark.hub.repo_id, commit, root)
        return PullResult(benchmark.name, path, f"hub {benchmark.hub.repo_id}", commit, already=False)
    assert benchmark.archive is not None
    archive = benchmark.archive
    report(f"fetching {archive.url}")
    target = data_home(root) / benchmark.name / archive.commit
    if force or not target.is_dir():
        download = _download(archive.url, data_home(root) / benchmark.name, _archive_hint(benchmark))
        try:
            _replace(target, download, force)
        finally:
            download.unlink(missing_ok=True)
    path = bank_root(target, archive.subpath)
    write_pulled(benchmark.name, path, "archive", archive.url, archive.commit, root)
    return PullResult(benchmark.name, path, f"github {archive.repo}", archive.commit, already=False)


def _replace(target: Path, archive: Path, force: bool) -> None:
    if force and target.is_dir():
        with replacing(target):
            unpack(archive, target)
        return
    unpack(archive, target)


def _pull_from(benchmark: Benchmark, source: str, root: Path | None, report: Report) -> PullResult:
    """The bank from a copy: a URL or a zip is unpacked; a folder is used where it is (its zip unpacked)."""
    home = data_home(root) / benchmark.name
    subpath = benchmark.archive.subpath if benchmark.archive else None
    if source.startswith(("http://", "https://")):
        report(f"fetching {source}")
        download = _download(
            source,
            home,
            f"check the URL, or fetch the file elsewhere and pull from it: k12eval data pull {benchmark.name} --from FILE",
        )
        try:
            path = bank_root(unpack(download, home / f"url-{_digest(download)}"), subpath)
        finally:
            download.unlink(missing_ok=True)
        write_pulled(benchmark.name, path, "url", source, None, root)
        return PullResult(benchmark.name, path, source, None, already=False)
    given = Path(source).expanduser()
    if not given.exists():
        raise SettingError("source", source, "no such file or folder", quoted=False)
    archive = _the_archive(benchmark, given)
    if archive is None:
        path = given.resolve()
    else:
        path = bank_root(unpack(archive, home / f"local-{_digest(archive)}"), subpath)
    write_pulled(benchmark.name, path, "local", str(given.resolve()), None, root)
    return PullResult(benchmark.name, path, str(given), None, already=False)


def _the_archive(benchmark: Benchmark, given: Path) -> Path | None:
    """The zip to unpack: ``given`` itself, or in a folder the benchmark's own archive (a ModelScope download
    holds ``cmmlu_v1_0_1.zip`` beside its loading script) or its one zip; ``None``: use the folder as it is."""
    if given.is_file():
        return given
    if benchmark.hub is not None and benchmark.hub.unpack and (given / benchmark.hub.unpack).is_file():
        return given / benchmark.hub.unpack
    zips = sorted(given.glob("*.zip"))
    data = [p for p in given.iterdir() if p.is_dir() and not p.name.startswith(".")]
    return zips[0] if len(zips) == 1 and not data else None


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def _snapshot(
    repo: str, patterns: tuple[str, ...] | None, revision: str | None, benchmark: Benchmark | None = None
) -> tuple[Path, str]:
    """``snapshot_download`` of the dataset ``repo`` into the hub cache, from ``HF_ENDPOINT``; (folder, commit)."""
    from k12eval.models import hub_cache_dir, hub_offline

    hint = _hub_hint(repo, benchmark)
    if hub_offline():
        cached = cached_snapshot(repo, patterns) if revision is None else None
        if cached is not None:
            return cached
        why = "huggingface_hub is not installed" if _no_hub_library() else "the hub is switched off (HF_HUB_OFFLINE)"
        raise InputError(f"cannot fetch {repo}: {why}; {hint}")
    from huggingface_hub import snapshot_download

    endpoint = os.environ.get("HF_ENDPOINT") or None
    try:
        folder = Path(
            snapshot_download(
                repo_id=repo,
                repo_type="dataset",
                revision=revision,
                cache_dir=str(hub_cache_dir()),
                allow_patterns=list(patterns) if patterns else None,
                endpoint=endpoint,
            )
        )
    except Exception as exc:  # the hub library's errors: OSError kinds, and its HTTP client's own
        if not isinstance(exc, OSError | ValueError) and not type(exc).__module__.startswith(("httpx", "requests")):
            raise
        where = f" from {endpoint}" if endpoint else ""
        raise InputError(f"could not fetch {repo}{where} ({_first_line(exc)}); {hint}") from None
    if not matching_files(folder, patterns):
        wanted = ", ".join(patterns) if patterns else "any file"
        raise InputError(
            f"{repo} on the hub has no file matching {wanted} at {folder.name}; its layout may have changed: "
            f"pull a copy fetched elsewhere: k12eval data pull {benchmark.name if benchmark else f'hf://{repo}'} "
            "--from FOLDER"
        )
    return folder, folder.name


def _no_hub_library() -> bool:
    import importlib.util

    return importlib.util.find_spec("huggingface_hub") is None


def _hub_hint(repo: str, benchmark: Benchmark | None) -> str:
    hint = f"through the mirror: HF_ENDPOINT={MIRROR}"
    if benchmark is not None and benchmark.modelscope:
        hint += (
            f"; from ModelScope: modelscope download --dataset {benchmark.modelscope} --local_dir DIR, "
            f"then k12eval data pull {benchmark.name} --from DIR"
        )
    return hint + "; or pass the folder of a copy"


def _archive_hint(benchmark: Benchmark) -> str:
    return f"fetch the archive elsewhere and pass it: k12eval data pull {benchmark.name} --from FILE.zip"


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _download(url: str, folder: Path, hint: str) -> Path:
    """``url`` downloaded into a hidden file in ``folder`` (following redirects); :class:`InputError` on failure."""
    import httpx

    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f".download-{owner()}.zip"
    try:
        with httpx.stream("GET", url, follow_redirects=True, timeout=httpx.Timeout(30.0, read=300.0)) as response:
            if response.status_code >= 400:
                raise InputError(f"could not fetch {url} (HTTP {response.status_code}); {hint}")
            with target.open("wb") as sink:
                for chunk in response.iter_bytes(1 << 20):
                    sink.write(chunk)
    except httpx.HTTPError as exc:
        target.unlink(missing_ok=True)
        raise InputError(f"could not fetch {url} ({_first_line(exc)}); {hint}") from None
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    return target
