"""Every `k12eval ...` command the README and docs/ show names a command and options that exist.

A user copies these lines first; a renamed flag left in a doc fails them before anything runs.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from typer.main import get_command

from k12eval.cli import app
from tests.conftest import REPO

DOCS = [REPO / "README.md", *sorted(p for p in (REPO / "docs").glob("*.md") if p.name != "cli.md")]
_FENCE = re.compile(r"^```(?:bash|sh|shell|console)\s*\n(.*?)^```", re.M | re.S)
_INLINE = re.compile(r"(?<!`)`((?:[\w./]*/)?k12eval [a-z][^`]*)`")
_PREFIX = re.compile(r"^(?:\$ |nice -n \d+ |/usr/bin/time -v |time |[A-Z_]+=\S+ |(?:[\w.~-]*/)*(?=k12eval ))+")


def doc_commands(text: str) -> list[list[str]]:
    """The `k12eval` command lines of a Markdown text's shell blocks and inline code, as argument lists (after
    `k12eval`).

    Continued lines are joined, comments and a leading `$ `, `nice -n 19`, `VAR=value` or `.venv/bin/` dropped; a
    line piping or chaining into another command keeps only its first part.
    """
    lines = [line for block in _FENCE.findall(text) for line in block.replace("\\\n", " ").splitlines()]
    lines += [span.replace("\\|", "|") for span in _INLINE.findall(text)]
    commands = []
    for line in lines:
        line = _PREFIX.sub("", line.strip())
        if line.startswith("k12eval "):
            words = shlex.split(line, comments=True)
            for i, word in enumerate(words):
                if word in ("|", "&&", ";", "||", ">", "2>", "&>", ">>", "&"):
                    words = words[:i]
                    break
            commands.append(words[1:])
    return commands


def _option_names(command: Any) -> set[str]:
    names = {"--help", "-h"}
    for param in command.params:
        if param.param_type_name == "option":
            names.update(param.opts)
            names.update(param.secondary_opts)
    return names


def unknown_words(args: list[str], root: Any) -> list[str]:
    """The subcommand or option names of ``args`` the command line does not have (typer's vendored click: duck-typed)."""
    command = root
    args = list(args)
    while hasattr(command, "commands") and args and not args[0].startswith("-"):
        sub = command.commands.get(args[0])
        if sub is None and getattr(command, "invoke_without_command", False):
            break  # a group that is a command of its own (report): the word is its argument
        if sub is None:
            return [args[0]]
        command, args = sub, args[1:]
    known = _option_names(command)
    named = [name for a in args if a.startswith("-") and a != "-" for name in a.split("=", 1)[0].split("/")]
    return [name for name in named if name not in known]  # `--embedder/--nli` in prose names two options


def test_unknown_words_names_a_missing_flag_and_command() -> None:
    root = get_command(app)
    assert unknown_words(["run", "data/sample", "--no-such-flag", "-m", "x"], root) == ["--no-such-flag"]
    assert unknown_words(["kg", "nosuch"], root) == ["nosuch"]
    assert unknown_words(["kg", "stats", "data/sample", "--json"], root) == []


def test_doc_commands_joins_continued_lines_and_drops_comments() -> None:
    text = "```bash\nk12eval run data/sample -m m \\\n    --limit 4   # four\necho k12eval x\n```\n"
    assert doc_commands(text) == [["run", "data/sample", "-m", "m", "--limit", "4"]]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_documented_command_exists(doc: Path) -> None:
    root = get_command(app)
    wrong = {
        " ".join(args): bad
        for args in doc_commands(doc.read_text(encoding="utf-8"))
        if (bad := unknown_words(args, root))
    }
    assert not wrong, f"{doc.name}: commands with names the CLI lacks: {wrong}"
