"""``k12eval kg``: import a question bank, count it, show its tree, export its graph."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from k12eval.cli._common import FORMATS_HELP, PluginHelp, UserError, guarded

if TYPE_CHECKING:
    from kg.graph import KnowledgeGraph
    from kg.importers import ImportResult

app = typer.Typer(help="Build and inspect the knowledge graph of a question bank.", no_args_is_help=True)

PathArg = Annotated[
    Path,
    typer.Argument(
        help="Question bank: a file or folder (CK12, CMMLU, C-Eval, Xiezhi, GAOKAO-Bench, JSONL/CSV), or a benchmark's "
        "name or hf://ORG/NAME (k12eval data list)."
    ),
]
FormatOpt = Annotated[str | None, typer.Option("--format", "-f", help=f"{FORMATS_HELP}; detected if omitted.")]
VariantOpt = Annotated[str, typer.Option("--variant", help="CK12 release variant: original, shuffled or distractors.")]
MappingOpt = Annotated[
    Path | None, typer.Option("--mapping", help="Mapping file naming the columns of your own JSONL/CSV.")
]
TaxonomyOpt = Annotated[
    Path | None,
    typer.Option(
        "--taxonomy", help="Xiezhi discipline taxonomy (subjects_tree_chn.json); found beside the data if omitted."
    ),
]
SkipOpt = Annotated[bool, typer.Option("--skip-invalid", help="Skip bad records and report them instead of stopping.")]


class _EchoHandler(logging.Handler):
    """Prints an importer's notes (e.g. C-Eval test files skipped) as ``warning: ...`` lines on stderr."""

    def emit(self, record: logging.LogRecord) -> None:
        typer.echo(f"warning: {record.getMessage()}", err=True)


@contextmanager
def _importer_notes() -> Iterator[None]:
    logger = logging.getLogger("kg.importers")
    handler = _EchoHandler(logging.WARNING)
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)


def _load(
    path: Path, fmt: str | None, variant: str, mapping: Path | None, skip_invalid: bool, taxonomy: Path | None = None
) -> tuple[ImportResult, KnowledgeGraph]:
    from k12eval.banks import resolve_data
    from kg.graph import build_graph
    from kg.importers import load_questions

    with _importer_notes():
        result = load_questions(
            resolve_data(path).path, fmt, variant=variant, mapping=mapping, taxonomy=taxonomy, skip_invalid=skip_invalid
        )
    if result.problems:
        typer.echo(f"skipped {len(result.problems)} invalid record(s):", err=True)
        for reason, count in result.skipped_by_reason().most_common():
            typer.echo(f"  {count:6d}  bad '{reason}'", err=True)
        for problem in result.problems[:5]:
            typer.echo(f"  e.g. {problem}", err=True)
    return result, build_graph(result.questions)


@app.command("stats", cls=PluginHelp)
@guarded
def stats(
    path: PathArg,
    fmt: FormatOpt = None,
    variant: VariantOpt = "original",
    mapping: MappingOpt = None,
    taxonomy: TaxonomyOpt = None,
    skip_invalid: SkipOpt = False,
    select: Annotated[
        str,
        typer.Option(
            "--select",
            help="Count a named selection only: all, or reasoning-subset (CK12 Table 2: math questions whose analysis "
            "has more than two steps), as run --select picks it.",
        ),
    ] = "all",
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Count questions, subjects and knowledge points, by type, subject and stage, and the questions with CMMLU's
    analysed features (negation, sub-options) with 95% Wilson intervals."""
    from kg.graph import MIN_LEVEL2_QUESTIONS, build_graph
    from reports.analyses import feature_shares
    from runners.dryrun import terminal_safe
    from runners.selection import select as select_questions

    result, graph = _load(path, fmt, variant, mapping, skip_invalid, taxonomy)
    if select != "all":
        result.questions = select_questions(result.questions, select)
        graph = build_graph(result.questions)
    overall = graph.stats()
    sparse = graph.sparse_level2()
    summary: dict[str, Any] = {
        "path": str(path),
        "format": result.format,
        "variant": variant,
        "select": select,
        "questions": overall.questions,
        "subjects": len(graph.nodes_of_kind("subject")),
        "level1": overall.level1,
        "level2": overall.level2,
        "by_type": overall.by_type,
        "by_subject": overall.by_subject,
        "by_stage": overall.by_stage,
        "by_difficulty": overall.by_difficulty,
        "invalid": len(result.problems),
        "warnings": sum(1 for q in result.questions if q.extra.get("warnings")),
        "invalid_by_field": dict(result.skipped_by_reason()),
        "level2_under_10": len(sparse),
        "features": feature_shares(result.questions),
    }
    if sparse:
        nodes = graph.graph.nodes
        names = ", ".join(
            terminal_safe(f"{nodes[n]['subject']}/{nodes[n]['level1']}/{nodes[n]['name']}") + f" ({c})"
            for n, c in sparse[:5]
        )
        typer.echo(
            f"warning: {len(sparse)} of {overall.level2} level-2 point(s) have fewer than {MIN_LEVEL2_QUESTIONS} "
            f"questions (CK12 keeps no fewer than {MIN_LEVEL2_QUESTIONS} a point; their accuracies are noisy), "
            f"e.g. {names}",
            err=True,
        )
    if as_json:
        typer.echo(json.dumps(summary, ensure_ascii=False))
        return
    chosen = "" if select == "all" else f", --select {select}"
    typer.echo(f"{summary['questions']} questions ({result.format}, {variant}{chosen}) from {path}")
    typer.echo(f"{summary['subjects']} subjects, {summary['level1']} level-1 and {summary['level2']} level-2 points")
    for key in ("by_type", "by_subject", "by_stage", "by_difficulty"):
        counts = ", ".join(f"{k} {v}" for k, v in summary[key].items())
        typer.echo(f"{key.removeprefix('by_')}: {counts}")
    for name, share in summary["features"].items():
        if share["of"]:
            typer.echo(
                f"{name.replace('_', '-')} (CMMLU's analysis): {share['n']} of {share['of']} questions = "
                f"{100 * share['share']:.1f} % ({100 * share['low']:.1f}-{100 * share['high']:.1f} %, Wilson 95 %)"
            )
    if summary["invalid"]:
        typer.echo(f"invalid (skipped): {summary['invalid']}")


@app.command("show", cls=PluginHelp)
@guarded
def show(
    path: PathArg,
    node: Annotated[
        str | None,
        typer.Argument(help="Node id (subject:数学), path (数学/函数) or question id; all subjects if omitted."),
    ] = None,
    fmt: FormatOpt = None,
    variant: VariantOpt = "original",
    mapping: MappingOpt = None,
    taxonomy: TaxonomyOpt = None,
    skip_invalid: SkipOpt = False,
    depth: Annotated[int, typer.Option("--depth", help="Levels to show below the node (questions are level 3).")] = 2,
) -> None:
    """Print the tree under a node with the number of questions in each subtree."""
    _, graph = _load(path, fmt, variant, mapping, skip_invalid, taxonomy)
    try:
        root = graph.resolve(node) if node else None
    except KeyError as exc:
        raise UserError(str(exc.args[0])) from None
    for level, node_id in graph.walk(root):
        if level > depth:
            continue
        data = graph.graph.nodes[node_id]
        if data["kind"] == "question":
            question = graph.questions[data["name"]]
            typer.echo(f"{'  ' * level}{node_id}  [{question.type.value}] {question.stem[:50]!r}")
        else:
            count = len(graph.questions_under(node_id))
            typer.echo(f"{'  ' * level}{data['name']}  ({count})  {node_id}")


@app.command("export", cls=PluginHelp)
@guarded
def export(
    path: PathArg,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output file: .json (node-link) or .graphml.")],
    fmt: FormatOpt = None,
    variant: VariantOpt = "original",
    mapping: MappingOpt = None,
    taxonomy: TaxonomyOpt = None,
    skip_invalid: SkipOpt = False,
) -> None:
    """Export the graph as node-link JSON or GraphML."""
    if out.suffix not in (".json", ".graphml"):
        raise UserError(f"{out}: the output must end in .json or .graphml")
    _, graph = _load(path, fmt, variant, mapping, skip_invalid, taxonomy)
    out.parent.mkdir(parents=True, exist_ok=True)
    escaped = graph.export(out)
    if escaped:
        typer.echo(
            f"warning: {out}: {escaped} text(s) hold characters XML cannot (NUL, ESC...), written as escapes "
            "(\\x00); a .json export keeps them exactly",
            err=True,
        )
    stats = asdict(graph.stats())
    typer.echo(f"wrote {out} ({graph.graph.number_of_nodes()} nodes, {stats['questions']} questions)")


@app.command("overlap", cls=PluginHelp)
@guarded
def overlap(
    path: PathArg,
    other: Annotated[Path, typer.Argument(help="The bank to look in (any format `kg stats` reads).")],
    fmt: FormatOpt = None,
    mapping: MappingOpt = None,
    other_format: Annotated[
        str | None, typer.Option("--other-format", help="Format of the other bank; detected if omitted.")
    ] = None,
    other_mapping: Annotated[
        Path | None, typer.Option("--other-mapping", help="Mapping file of the other bank (your own JSONL/CSV).")
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="CSV of the matching pairs (id, other_id).")] = None,
    skip_invalid: SkipOpt = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Questions of a bank also in another: CMMLU's overlap check (stem and sorted options, punctuation
    and spaces removed, exact match)."""
    import pandas as pd

    from kg.overlap import find_overlap
    from reports.spreadsheet import write_csv
    from reports.stats import wilson_interval
    from runners.dryrun import terminal_safe

    mine, _ = _load(path, fmt, "original", mapping, skip_invalid)
    theirs, _ = _load(other, other_format, "original", other_mapping, skip_invalid)
    found = find_overlap(mine.questions, theirs.questions)
    low, high = wilson_interval(found.matched_a, found.questions_a) if found.questions_a else (0.0, 0.0)
    share = found.matched_a / found.questions_a if found.questions_a else 0.0
    summary = {
        "path": str(path),
        "other": str(other),
        "questions": found.questions_a,
        "other_questions": found.questions_b,
        "matched": found.matched_a,
        "share": share,
        "share_lo": low,
        "share_hi": high,
        "pairs": len(found.pairs),
        "empty_keys": found.empty,
    }
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        write_csv(pd.DataFrame(found.pairs, columns=["id", "other_id"]), out)  # escaped against formulas
    if as_json:
        typer.echo(json.dumps(summary, ensure_ascii=False))
        return
    typer.echo(
        f"{found.matched_a} of {found.questions_a} question(s) of {terminal_safe(str(path))} "
        f"({100 * share:.1f} %, {100 * low:.1f}-{100 * high:.1f} %) are also in "
        f"{terminal_safe(str(other))} ({found.questions_b} questions)"
    )
    for mine_id, their_id in found.pairs[:10]:
        typer.echo(f"  {terminal_safe(mine_id)}  =  {terminal_safe(their_id)}")
    if len(found.pairs) > 10:
        typer.echo(f"  ... {len(found.pairs) - 10} more" + (f" in {out}" if out else " (--out writes them all)"))
