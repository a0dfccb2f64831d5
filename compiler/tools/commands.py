"""The tools' subcommands (`pipec import connect`, `diff`, `graph`) and `--changed-since`, wired into compiler/cli.py."""

from __future__ import annotations

import sys

from .git import GitError

OK, FAILED, INVALID = 0, 1, 2


def narrow_to_changed(args) -> int | None:
    """Replace args.paths by the pipelines changed since args.changed_since; an exit code when none is left."""
    from .changed import select

    try:
        selection = select(args.paths, args.changed_since, getattr(args, "out", "generated"))
    except GitError as exc:
        print(f"pipec: {exc}", file=sys.stderr)
        return INVALID
    print(f"pipec: --changed-since {args.changed_since}: {selection.reason}", file=sys.stderr)
    if not selection.files:
        return OK
    args.paths = selection.files
    return None


def cmd_diff(args) -> int:
    from .diff_command import RENDERERS, run_diff

    try:
        result = run_diff(args.paths, args.against)
    except GitError as exc:
        print(f"pipec: {exc}", file=sys.stderr)
        return INVALID
    if result.errors:
        from ..diagnostics import render_all

        print(render_all(result.errors), file=sys.stderr)
        print("pipec diff: the working tree's pipelines above do not compile; fix them first", file=sys.stderr)
        return INVALID
    print(RENDERERS[args.format](result))
    return result.exit_code(args.fail_on == "contract")


def cmd_graph(args) -> int:
    from .graph import render_graph

    return render_graph(args)


def cmd_import_connect(args) -> int:
    from .connect_cli import import_connect

    return import_connect(args)


def add_tool_commands(sub) -> None:
    diff = sub.add_parser(
        "diff",
        help="per changed pipeline: can it restart on its checkpoint, and what changes for consumers",
        description="Compare the pipelines changed since a git revision with their versions there: "
        "exit 0 when every change can run on the existing checkpoint, 1 when one needs a new "
        "checkpoint or a state reset (or, with --fail-on contract, breaks its output contract), 2 for bad input.",
    )
    diff.add_argument(
        "paths", nargs="*", metavar="PATH", help="pipeline files or folders (default: pipelines/, else the repository)"
    )
    diff.add_argument(
        "--against", metavar="REF", help="git revision to compare with (default: the merge base with the base branch)"
    )
    diff.add_argument(
        "--format", choices=("text", "markdown", "json"), default="text", help="markdown: for a pull-request comment"
    )
    diff.add_argument(
        "--fail-on",
        choices=("reset", "contract"),
        default="reset",
        help="contract: also exit 1 on a breaking change of the output contract",
    )
    diff.set_defaults(func=cmd_diff)

    graph = sub.add_parser(
        "graph",
        help="topics, folders and pipelines as a graph; column lineage as OpenLineage",
        description="Draw which pipeline reads and writes which topic or folder.",
    )
    graph.add_argument("paths", nargs="+", metavar="PATH", help="pipeline files or folders")
    graph.add_argument(
        "--format",
        choices=("mermaid", "dot", "svg", "openlineage"),
        default="mermaid",
        help="svg needs Graphviz's `dot` on PATH; openlineage: one run event per pipeline with column lineage",
    )
    graph.add_argument("--out", metavar="PATH", help="write there instead of stdout (a folder for openlineage)")
    graph.set_defaults(func=cmd_graph)

    imp = sub.add_parser("import", help="import pipelines from other systems")
    kinds = imp.add_subparsers(dest="kind", required=True)
    connect = kinds.add_parser(
        "connect",
        help="Kafka Connect connector configs (REST JSON or .properties) -> pipeline YAML",
        description="Translate Kafka Connect connector configurations into pipeline YAML.",
    )
    connect.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="connector configs: REST JSON ({name, config}), bare JSON config, or .properties",
    )
    connect.add_argument("--out", metavar="DIR", help="write one NAME.yaml per connector into DIR (default: stdout)")
    connect.add_argument(
        "--value-sample",
        metavar="FILE",
        help="a record value (plain JSON, or a JsonConverter envelope with its Connect schema) whose fields become the columns",
    )
    connect.add_argument("--key-sample", metavar="FILE", help="a record key, likewise, for the key columns")
    connect.add_argument("--format", choices=("text", "json"), default="text", help="diagnostics format")
    connect.add_argument(
        "--allow-todo",
        action="store_true",
        help="exit 0 although the YAML holds TODO_ placeholders (each is a warning at its line; default: exit 1)",
    )
    connect.set_defaults(func=cmd_import_connect)
