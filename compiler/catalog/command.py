"""`pipec docs PATH... --out DIR [--check]`: the static site of every pipeline under PATH."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..resolve.builder import Compiled

OK, FAILED, INVALID = 0, 1, 2


def job_source(compiled: Compiled, jobs: Path) -> tuple[str, str]:
    """(file name, text) of the job `pipec compile` writes for this pipeline: the file in `jobs` when the job cache
    vouches for it (as `pipec check` does), else generated here."""
    from ..project.job_cache import JobCache, default_dir, digest

    p = compiled.pipeline
    folder = default_dir()
    cached = JobCache(folder).get(JobCache.key(p.file, p.sha256)) if folder else None
    if cached is not None:
        try:
            data = (jobs / cached["filename"]).read_bytes()
        except OSError:
            data = None
        if data is not None and digest(data) == cached["sha256"]:
            return cached["filename"], data.decode("utf-8")
    from ..emit.job import generate

    job = generate(compiled)
    return job.filename, job.source


def build_pages(paths: list[str], jobs: Path, fmt: str = "text") -> dict[str, str] | None:
    """Every page of the site, or None after printing why the pipelines do not compile."""
    from ..diagnostics import CompileError, render_all
    from ..project.driver import build_all
    from .site import Site

    result = build_all(paths)
    if result.diags.errors:
        print(render_all(result.diags.items, fmt), file=sys.stderr)
        return None
    try:
        sources = {c.pipeline.name: job_source(c, jobs) for c in result.compiled}
    except CompileError as exc:
        print(render_all(exc.diagnostics, fmt), file=sys.stderr)
        return None
    texts = {c.pipeline.name: f.read_text(encoding="utf-8") for c, f in zip(result.compiled, result.files)}
    return Site(result, sources, texts).pages()


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
    docs = sub.add_parser("docs", help="a static site of every pipeline: steps, schemas, lineage, tests, graph",
                          description="Write a static HTML site of the pipelines under PATH (no server needed: open "
                          "DIR/index.html); with --check, exit 1 when the site in DIR is not what it would write.")
    docs.add_argument("paths", nargs="+", metavar="PATH", help="pipeline files or folders")
    docs.add_argument("--out", required=True, metavar="DIR", help="the site's folder")
    docs.add_argument("--check", action="store_true", help="write nothing; exit 1 if the site in DIR is stale")
    docs.add_argument("--jobs", default="generated", metavar="DIR",
                      help="the generated jobs the site shows, where the job cache vouches for them (default: "
                      "generated); others are generated in memory")
    docs.add_argument("--format", choices=("text", "json"), default="text", help="diagnostics format")
    docs.set_defaults(func=cmd_docs)
