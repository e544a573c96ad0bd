"""sha256 of files, checked against the catalogue before a copy is trusted."""

from __future__ import annotations

from pathlib import Path

from kg.errors import InputError
from runners.model_files import sha256_file

__all__ = ["ChecksumError", "sha256_file", "verify_files"]


class ChecksumError(InputError):
    """A file's sha256 is not the one published for it: the copy is refused."""


def verify_files(folder: Path, expected: dict[str, str], origin: str, model: str) -> dict[str, str]:
    """Check every file named in ``expected`` (paths relative to ``folder``) and return their digests.

    Raises :class:`ChecksumError` naming the file, both digests and the model when one differs or
    is missing, so a corrupted or tampered copy never reaches the cache.
    """
    found: dict[str, str] = {}
    for relative, want in expected.items():
        path = folder / relative
        if not path.is_file():
            raise ChecksumError(f"model {model}: expected file {relative!r} is missing from the assembled copy")
        got = sha256_file(path)
        if got != want.lower():
            raise ChecksumError(
                f"model {model}: sha256 mismatch for {relative!r}: expected {want} ({origin}), got {got}; "
                "the copy is refused (corrupted or tampered package files)"
            )
        found[relative] = got
    return found
