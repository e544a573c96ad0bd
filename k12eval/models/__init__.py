"""Model management: a catalogue of known models, a local cache, offline installs from PyPI, a resolver.

Every command that takes a model option passes it through :func:`require_model` (or
:func:`resolve_model`), so a catalogue name, an installed model, a hub id and a local folder
are all accepted the same way. Nothing here imports torch or transformers at module import.
"""

from __future__ import annotations

from k12eval.models._cache import (
    MANIFEST_FILE,
    FileEntry,
    Manifest,
    PackageRef,
    find_installed,
    home,
    installed,
    models_dir,
    read_manifest,
)
from k12eval.models._catalogue import (
    Catalogue,
    CatalogueEntry,
    OfflineSource,
    PackageSource,
    load_catalogue,
    parse_catalogue,
)
from k12eval.models._checksums import ChecksumError, sha256_file
from k12eval.models._hub import hub_cache_dir, hub_offline
from k12eval.models._pull import PullResult, pull
from k12eval.models._resolve import (
    backend_model,
    metric_model,
    missing_model_error,
    require_model,
    resolve_model,
)

__all__ = [
    "MANIFEST_FILE",
    "Catalogue",
    "CatalogueEntry",
    "ChecksumError",
    "FileEntry",
    "Manifest",
    "OfflineSource",
    "PackageRef",
    "PackageSource",
    "PullResult",
    "backend_model",
    "find_installed",
    "home",
    "hub_cache_dir",
    "hub_offline",
    "installed",
    "load_catalogue",
    "metric_model",
    "missing_model_error",
    "models_dir",
    "parse_catalogue",
    "pull",
    "read_manifest",
    "require_model",
    "resolve_model",
    "sha256_file",
]
