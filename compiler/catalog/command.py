"""`pipec docs PATH... --out DIR [--check]`: the static site of every pipeline under PATH."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..project.driver import Result
    from ..resolve.builder import Compiled

OK, FAILED, INVALID = 0, 1, 2


def _vouched_job(compiled: Compiled, jobs: Path) -> tuple[str, str] | None:
    """(file name, text) of the job in `jobs` when the job cache vouches that it is what `pipec compile` writes
    for this YAML and this pipec (as `pipec check` does); the cache holds only pipelines that compiled cleanly."""
    from ..project.job_cache import JobCache, default_dir, digest

    p = compiled.pipeline
    folder = default_dir()
    cached = JobCache(folder).get(JobCache.key(p.file, p.sha256)) if folder else None
    if cached is None:
        return None
    try:
        data = (jobs / cached["filename"]).read_bytes()
    except OSError:
        return None
    return (cached["filename"], data.decode("utf-8")) if digest(data) == cached["sha256"] else None


def build(paths: list[str], jobs: Path) -> tuple[Result, dict[str, tuple[str, str]], dict[str, str]]:
    """Every pipeline's model (load, validate, resolve), its job (the stages after those, only for a job the cache
    does not vouch for) and its YAML: the Result (its diagnostics), name -> (job file name, text), name -> YAML."""
    from ..diagnostics import CompileError
    from ..pipeline import STAGES, Unit, resolve, run
    from ..project.driver import Result, claim_name, discover_or_say

    model, rest = STAGES[: STAGES.index(resolve) + 1], STAGES[STAGES.index(resolve) + 1 :]
    result, names, sources, texts = Result(), {}, {}, {}
    for path in discover_or_say(paths, result.diags):
        unit = run(Unit(path, result.diags), model)
        if unit.compiled is None or not claim_name(names, unit.compiled.pipeline.name, unit.name_loc, result.diags):
            continue
        name = unit.compiled.pipeline.name
        job = _vouched_job(unit.compiled, jobs)
        if job is None and not result.diags.errors:
            try:
                run(unit, rest)  # the checks after resolve (the Spark line) and the job
            except CompileError as exc:
                result.diags.extend(exc.diagnostics)
            job = (unit.job.filename, unit.job.source) if unit.job is not None else None
        result.compiled.append(unit.compiled)
        sources[name] = job
        texts[name] = path.read_text(encoding="utf-8")
    return result, sources, texts


def build_pages(paths: list[str], jobs: Path, fmt: str = "text") -> dict[str, str] | None:
    """Every page of the site, or None after printing why the pipelines do not compile."""
    from ..diagnostics import render_all
    from .site import Site

    result, sources, texts = build(paths, jobs)
    if result.diags.errors:
        print(render_all(result.diags.items, fmt), file=sys.stderr)
        return None
    return Site(result.compiled, sources, texts).pages()


def cmd_docs(args) -> int:
    from .output import NotOurs, stale, write_site

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        print(f"pipec docs: --out {out} is a file, not a folder", file=sys.stderr)
        return INVALID
    pages = build_pages(args.paths, Path(args.jobs), args.format)
    if pages is None:
        return INVALID
    if args.check:
        problems = stale(out, pages)
        for problem in problems:
            print(problem, file=sys.stderr)
        if problems:
            print(f"run: pipec docs {' '.join(args.paths)} --out {args.out}", file=sys.stderr)
            return FAILED
        print(f"site in {out} current ({len(pages)} files)")
        return OK
    try:
        written, removed = write_site(out, pages)
    except NotOurs as exc:
        print(f"pipec docs: {exc}", file=sys.stderr)
        return INVALID
    print(f"wrote {out}/index.html: {len(pages)} files, {written} changed, {removed} removed")
    return OK


def add_docs_command(sub) -> None:
    docs = sub.add_parser(
        "docs",
        help="a static site of every pipeline: steps, schemas, lineage, tests, graph",
        description="Write a static HTML site of the pipelines under PATH (no server needed: open "
        "DIR/index.html); with --check, exit 1 when the site in DIR is not what it would write.",
    )
    docs.add_argument("paths", nargs="+", metavar="PATH", help="pipeline files or folders")
    docs.add_argument("--out", required=True, metavar="DIR", help="the site's folder")
    docs.add_argument("--check", action="store_true", help="write nothing; exit 1 if the site in DIR is stale")
    docs.add_argument(
        "--jobs",
        default="generated",
        metavar="DIR",
        help="the generated jobs the site shows, where the job cache vouches for them (default: "
        "generated); others are generated in memory",
    )
    docs.add_argument("--format", choices=("text", "json"), default="text", help="diagnostics format")
    docs.set_defaults(func=cmd_docs)
