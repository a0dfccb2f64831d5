"""The `pipec` command line (SPEC section 2). Exit codes: 0 ok, 1 check/test failure, 2 invalid input."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from . import __version__
from .diagnostics import CompileError, escaped, render_all
from .project.batch import Batch, compile_all, stale
from .project.driver import Result, build_all, generate_all, write_atomically

OK, FAILED, INVALID = 0, 1, 2


def _report(result: Result | Batch, fmt: str) -> int:
    """Print diagnostics (text on stderr; with --format json, one JSON list on stdout); INVALID on any error."""
    items = sorted(result.diags.items, key=lambda d: (d.loc.file, d.loc.line, d.loc.col) if d.loc else ("", 0, 0))
    if fmt == "json":
        print(render_all(items, fmt))
    elif items:
        print(render_all(items, fmt), file=sys.stderr)
    return INVALID if result.diags.errors else OK


def _say(args, text: str) -> None:
    """Progress lines: stdout in text mode, stderr in json mode (stdout then holds only the JSON)."""
    print(text, file=sys.stderr if args.format == "json" else sys.stdout)


def _build(args) -> tuple[Result, int]:
    result = build_all(args.paths)
    return result, _report(result, args.format)


def cmd_validate(args) -> int:
    result = build_all(args.paths)
    if args.registry is not None and not result.diags.errors:
        from .tools.registry_check import check_registries  # lazily: only this option asks a registry

        for compiled in result.compiled:
            check_registries(compiled, args.registry or None, result.diags)
    code = _report(result, args.format)
    if code == OK:
        _say(args, f"{len(result.compiled)} pipeline(s) valid")
    return code


def _generate(result: Result, fmt: str) -> dict[str, str] | None:
    try:
        return generate_all(result)
    except CompileError as exc:
        print(render_all(exc.diagnostics, fmt), file=sys.stderr)
        return None


def cmd_compile(args) -> int:
    # the job cache too: a job current under --out is left as it is, one it knows is written from its text
    batch = compile_all(args.paths, use_cache=True, out=Path(args.out))
    written, current = [], [name for name, job in batch.jobs.items() if job.source is None]
    if not batch.diags.errors:
        try:
            jobs = {name: job.source for name, job in batch.jobs.items() if job.source is not None}
            written = write_atomically(Path(args.out), jobs)
        except CompileError as exc:
            batch.diags.extend(exc.diagnostics)
    code = _report(batch, args.format)
    if code != OK:
        return code
    for path in written:
        _say(args, f"wrote {escaped(str(path))}")
    for name in current:
        _say(args, f"current {escaped(str(Path(args.out) / name))}")
    if args.lineage:
        from .tools.openlineage import write_events

        for path in write_events(args.paths, Path(args.lineage)):
            _say(args, f"wrote {path}")
    return OK


def cmd_check(args) -> int:
    batch = compile_all(args.paths, use_cache=True)
    code = _report(batch, args.format)
    if code != OK:
        return code
    problems = stale(Path(args.out), batch.jobs)
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"run: pipec compile {' '.join(args.paths)} --out {args.out}", file=sys.stderr)
        return FAILED
    _say(args, f"{len(batch.jobs)} generated job(s) current")
    return OK


def cmd_explain(args) -> int:
    """Text: diagnostics on stderr, then each pipeline. json: one document on stdout, {diagnostics, pipelines}."""
    from .tools.explain import explain, facts

    result = build_all(args.paths)
    code = INVALID if result.diags.errors else OK
    items = sorted(result.diags.items, key=lambda d: (d.loc.file, d.loc.line, d.loc.col) if d.loc else ("", 0, 0))
    if args.format == "json":
        pipelines = [facts(c) for c in result.compiled] if code == OK else []
        print(json.dumps({"diagnostics": [d.to_json() for d in items], "pipelines": pipelines}, indent=2))
        return code
    if items:
        print(render_all(items, args.format), file=sys.stderr)
    for compiled in result.compiled if code == OK else ():
        print(explain(compiled))
    return code


def cmd_test(args) -> int:
    result, code = _build(args)
    if code != OK:
        return code
    files = _generate(result, args.format)
    if files is None:
        return INVALID
    from .testing.runner import run_tests

    return OK if run_tests(result.compiled, files, verbose=args.verbose) else FAILED


def cmd_run(args) -> int:
    result, code = _build(args)
    if code != OK:
        return code
    files = _generate(result, args.format)
    if files is None:
        return INVALID
    import subprocess  # only `run` starts a process
    import tempfile

    with tempfile.TemporaryDirectory(prefix="pipec-run-") as tmp:
        (path,) = write_atomically(Path(tmp), files)
        job_args = args.job_args[1:] if args.job_args[:1] == ["--"] else args.job_args
        return subprocess.call([sys.executable, str(path), *job_args])


def cmd_schema(args) -> int:
    """The pipeline JSON Schema, for an editor's `# yaml-language-server: $schema=...` line."""
    from .package_data import SCHEMA_PATH

    sys.stdout.write(SCHEMA_PATH.read_text(encoding="utf-8"))
    return OK


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="pipec", description="Compile pipeline YAML into standalone PySpark jobs.")
    top.add_argument("--version", action="version", version=f"pipec {__version__}")
    sub = top.add_subparsers(dest="command", required=True)

    def command(
        name: str, func, help: str, many: bool = True, out: bool = False, changed: bool = False
    ) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help, description=help)
        p.add_argument("paths", nargs="+" if many else 1, metavar="PATH", help="pipeline files or folders")
        p.add_argument("--format", choices=("text", "json"), default="text", help="diagnostics format")
        if out:
            p.add_argument("--out", default="generated", help="folder of generated jobs (default: generated)")
        if changed:
            p.add_argument(
                "--changed-since",
                metavar="REF",
                help="only the pipelines changed since git revision REF (all of them when pipec or a shared file changed)",
            )
        p.set_defaults(func=func)
        return p

    validate = command("validate", cmd_validate, "schema and semantic checks; writes nothing")
    validate.add_argument(
        "--registry",
        nargs="?",
        const="",
        metavar="URL",
        help="also check avro-confluent payloads against a Schema Registry: the declared columns read the subject's "
        "latest schema, a sink's schema is compatible under the subject's level (URL: this registry; without it, "
        "each payload's own url, ${env:...} resolved from the environment)",
    )
    compile_ = command(
        "compile", cmd_compile, "validate, then write one job per pipeline (atomically)", out=True, changed=True
    )
    compile_.add_argument(
        "--lineage", metavar="DIR", help="also write each pipeline's OpenLineage run event (column lineage) into DIR"
    )
    command("check", cmd_check, "exit 1 if a generated job is missing or stale", out=True, changed=True)
    test = command("test", cmd_test, "run each pipeline's tests: on a local Spark", changed=True)
    test.add_argument(
        "--verbose",
        action="store_true",
        help="show Spark's own start-up output (Ivy's resolution, its warnings); default: one line, the rest in a log",
    )
    command(
        "explain",
        cmd_explain,
        "the record schema after each step, and the sink's layout: columns, key and value "
        "encodings, topic, partitioning, dead letters (--format json: one JSON document)",
        many=False,
    )
    schema = sub.add_parser(
        "schema",
        help="print the pipeline JSON Schema (save it for your editor: pipec schema > pipeline.schema.json)",
        description="Print the JSON Schema of pipeline files, which editors use for completion and descriptions on hover.",
    )
    schema.set_defaults(func=cmd_schema)
    run = command("run", cmd_run, "compile to a temp folder and run the job locally", many=False)
    run.add_argument("job_args", nargs=argparse.REMAINDER, help="arguments for the job, after --")
    from .tools.commands import add_tool_commands

    add_tool_commands(sub)
    from .catalog.command import add_docs_command

    add_docs_command(sub)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        if getattr(args, "changed_since", None):
            from .tools.commands import narrow_to_changed

            code = narrow_to_changed(args)  # an exit code when there is nothing to do (or a bad revision)
            if code is not None:
                return code
        return args.func(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `pipec explain p.yaml | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return FAILED


if __name__ == "__main__":
    sys.exit(main())
