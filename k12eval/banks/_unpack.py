"""Zip archives unpacked into k12eval's data cache, safely, and the record of what was pulled from where.

An archive is unpacked into a hidden staging folder and renamed into place once whole, so an interrupted
pull leaves nothing that looks pulled. A member whose path would leave the folder (``../``, an absolute
path, a drive letter) or that is a link is refused: an archive is data from elsewhere.
"""

from __future__ import annotations

import json
import re
import shutil
import stat
import zipfile
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

from kg.errors import InputError
from runners.files import cache_home
from runners.leftovers import OWNER, owner, put_in_place

PULLED_FILE = "pulled.json"


def data_home(root: Path | None = None) -> Path:
    """Where pulled banks live: ``$K12EVAL_HOME/data`` (``runners.files.cache_home``)."""
    return cache_home(root) / "data"


@dataclass(frozen=True)
class Pulled:
    """What ``k12eval data pull`` left for a benchmark: the bank's folder and where it came from."""

    name: str
    path: str
    """The bank's folder (absolute)."""
    source: str
    """``hub``, ``archive`` (the publisher's GitHub archive), ``url`` or ``local`` (``--from``)."""
    origin: str
    """The hub id, the URL or the local file or folder it came from."""
    revision: str | None
    """The hub commit or the archive's commit, when known."""
    pulled: str
    """When (UTC, ISO 8601)."""


def write_pulled(name: str, path: Path, source: str, origin: str, revision: str | None, root: Path | None) -> Pulled:
    """Record that ``name``'s bank is at ``path``; the record replaces an older one whole."""
    record = Pulled(
        name, str(path.resolve()), source, origin, revision, datetime.now(UTC).isoformat(timespec="seconds")
    )
    folder = data_home(root) / name
    folder.mkdir(parents=True, exist_ok=True)
    staging = folder / f".{PULLED_FILE}.{owner()}"
    staging.write_text(json.dumps(asdict(record), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    staging.replace(folder / PULLED_FILE)
    return record


def read_pulled(name: str, root: Path | None = None) -> Pulled | None:
    """The record of ``name``'s last pull, if there is one whose folder still exists."""
    file = data_home(root) / name / PULLED_FILE
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
        record = Pulled(**data)
    except (OSError, ValueError, TypeError):
        return None
    return record if Path(record.path).is_dir() else None


def _member_path(name: str, archive: Path) -> PurePosixPath:
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or (path.parts and ":" in path.parts[0]):
        raise InputError(f"{archive}: the archive member {name!r} would be written outside its folder; not unpacked")
    return path


def unpack(archive: Path, target: Path) -> Path:
    """Unpack the zip ``archive`` into ``target`` (replacing nothing that exists); return ``target``.

    A ``target`` that already exists is taken as unpacked before (the staging rename makes it whole).
    """
    if target.is_dir():
        return target
    if not zipfile.is_zipfile(archive):
        raise InputError(f"{archive}: not a zip archive (a truncated download, or another kind of file)")
    staging = target.with_name(f".unpacking-{target.name}-{owner()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                relative = _member_path(info.filename, archive)
                if stat.S_ISLNK(info.external_attr >> 16):
                    raise InputError(f"{archive}: the archive member {info.filename!r} is a link; not unpacked")
                destination = staging.joinpath(*relative.parts)
                if info.is_dir():
                    destination.mkdir(parents=True, exist_ok=True)
                    continue
                destination.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(info) as source, destination.open("wb") as sink:
                    shutil.copyfileobj(source, sink)
    except (zipfile.BadZipFile, EOFError) as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise InputError(f"{archive}: a damaged zip archive ({exc}); fetch it again") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    put_in_place(staging, target)  # another pull of the same archive may have put its copy there meanwhile
    return target


ABANDONED = (
    re.compile(rf"\.download-{OWNER}\.zip"),
    re.compile(rf"\.unpacking-.+-{OWNER}"),
    re.compile(rf"\.replaced-(?P<home>.+)-{OWNER}"),
    re.compile(rf"\.{re.escape(PULLED_FILE)}\.{OWNER}"),
)
"""What a pull writes before it puts a file or folder in place, each named with the pulling process's id and
machine (:func:`runners.leftovers.owner`; :func:`runners.leftovers.remove_abandoned` reads them): a download, an
unpacking, a bank moved aside by ``--force``, a record."""


def bank_root(unpacked: Path, subpath: str | None = None) -> Path:
    """The bank's folder in an unpacked archive: below its one top folder (``REPO-<commit>/`` of a GitHub
    archive), then ``subpath`` when the archive has it (a publisher's repository) and not otherwise (a zip of
    the data alone)."""
    root = unpacked
    entries = [p for p in root.iterdir() if not p.name.startswith((".", "__MACOSX"))]
    if len(entries) == 1 and entries[0].is_dir():
        root = entries[0]
    if subpath and (root / subpath).is_dir():
        return root / subpath
    return root
