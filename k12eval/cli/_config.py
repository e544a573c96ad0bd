"""Command options from a TOML file, checked against the command's own signature.

A command such as ``k12eval run`` takes ``--config run.toml``; the file's keys become the
command's defaults, so options given on the command line still win. Keys are the option
names with ``-`` or ``_`` (``max-tokens``, ``max_tokens``; ``format`` and ``fmt`` alike), in a
table named after the command (``[run]``) or at the top level. Relative paths are read from
the config file's folder, so a config works from any working directory; a benchmark's name or ``hf://`` id
(``data = "gaokao"``) stays a name unless the config's folder holds a file of that name. Every key is checked
before anything runs: an unknown key or a value of the wrong type is an :class:`InputError`
naming the file and the key.
"""

from __future__ import annotations

import tomllib
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kg.errors import InputError

NUMBER_OR_WORD = frozenset({"batch_size", "max_failures"})
"""Text options that take a number too (``batch_size = 8`` or ``"auto"``, ``max_failures = 3`` or ``"5%"``)."""


def load_config(
    path: Path, command: Callable[..., Any], table: str, *, skip: tuple[str, ...] = ("config",)
) -> dict[str, Any]:
    """The defaults ``path`` gives to ``command``'s parameters, keyed by parameter name.

    ``skip`` names parameters a config file may not set (the ``--config`` option itself).
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot read the config file ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: the config file is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: not valid TOML: {exc}") from None
    section: Any = data.get(table, data)
    where = f"in [{table}]" if table in data else "at the top level"
    if not isinstance(section, dict):
        raise InputError(f"{path}: {table!r} must be a table ([{table}]), got {_kind(section)}")
    params = _parameters(command, skip)
    defaults: dict[str, Any] = {}
    for key, value in section.items():
        name = params.aliases.get(key.replace("-", "_"))
        if name is None:
            known = ", ".join(sorted(params.shown.values()))
            raise InputError(f"{path}: unknown option {key!r} {where}; known options: {known}")
        if name in defaults:
            raise InputError(f"{path}: option {key!r} is given twice (under two names)")
        if name in NUMBER_OR_WORD and isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        defaults[name] = _convert(value, params.types[name], path.parent, f"{path}: option {key!r}")
    return defaults


class _Parameters(typing.NamedTuple):
    types: dict[str, Any]
    """Parameter name -> annotated type (``Annotated`` stripped)."""
    aliases: dict[str, str]
    """Parameter name or long option name (``-`` as ``_``) -> parameter name."""
    shown: dict[str, str]
    """Parameter name -> the key to show in messages (the long option's name)."""


def _parameters(command: Callable[..., Any], skip: tuple[str, ...]) -> _Parameters:
    hints = typing.get_type_hints(command, include_extras=True)
    kinds: dict[str, Any] = {}
    aliases: dict[str, str] = {}
    shown: dict[str, str] = {}
    for name, hint in hints.items():
        if name == "return" or name in skip:
            continue
        base, *meta = typing.get_args(hint) if typing.get_origin(hint) is typing.Annotated else (hint,)
        kinds[name] = base
        aliases[name] = name
        longs = [
            decl.split("/")[0][2:]
            for info in meta
            for decl in (getattr(info, "default", None), *(getattr(info, "param_decls", None) or ()))
            if isinstance(decl, str) and decl.startswith("--")
        ]
        aliases.update((long.replace("-", "_"), name) for long in longs)
        shown[name] = longs[0] if longs else name.replace("_", "-")
    return _Parameters(kinds, aliases, shown)


def _convert(value: Any, kind: Any, base: Path, label: str) -> Any:
    """``value`` checked against ``kind`` (str, int, float, bool, Path, list[...], X | None)."""
    if isinstance(kind, types.UnionType) or typing.get_origin(kind) is typing.Union:
        options = [k for k in typing.get_args(kind) if k is not type(None)]
        kind = options[0] if len(options) == 1 else Any
    if typing.get_origin(kind) is list:
        (item,) = typing.get_args(kind)
        if isinstance(value, dict):  # a table for a KEY=VALUE option such as backend-option
            value = [f"{k}={_text(v)}" for k, v in value.items()]
        items = value if isinstance(value, list) else [value]
        return [_convert(v, item, base, f"{label} item {i + 1}") for i, v in enumerate(items)]
    if kind is bool and isinstance(value, bool):
        return value
    if kind is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    if kind is float and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if kind is str and isinstance(value, str):
        return value
    if kind is Path and isinstance(value, str):
        path = base / Path(value).expanduser()  # an absolute path stays as it is
        return value if not path.exists() and _names_a_bank(value) else str(path)
    if kind is Any:
        return value
    raise InputError(f"{label}: expected {_expected(kind)}, got {_kind(value)} {value!r}")


def _names_a_bank(value: str) -> bool:
    """Whether ``value`` is a benchmark's name or a hub id (``gaokao``, ``hf://ceval/ceval-exam``): a name, not a
    path relative to the config file, unless a file of that name is there (an existing path always wins)."""
    from k12eval.banks import find_benchmark, hub_id

    return find_benchmark(value) is not None or hub_id(value) is not None


def _text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _expected(kind: Any) -> str:
    names = {bool: "true or false", int: "an integer", float: "a number", str: "text", Path: "a path (text)"}
    return names.get(kind, getattr(kind, "__name__", str(kind)))


def _kind(value: Any) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "text", list: "an array", dict: "a table"}
    return names.get(type(value), type(value).__name__)
