"""`pipec compile` and `pipec check` over many files: each file is compiled on its own (load, validate, build,
generate) in a pool of forked worker processes, one per core, that inherit the loaded compiler, so start-up
is paid once; names are then checked across files in the parent, in file order.

The workers render each job's text; the parent formats them all in one formatter call (`emit/formatter.py`).

`check` and `compile` first look each file up in the job cache (`compiler/project/job_cache.py`, keyed by the
file's bytes and pipec's fingerprint): a hit needs no compiling, only a hash of the job on disk, so a hand edit of a
job is still caught (and `compile` rewrites it from the job text the cache keeps). Misses are compiled, and every
full compile records its entry.
"""

from __future__ import annotations

import gc
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import Collector, CompileError, Diagnostic, Location
from ..load.document import display_name, repo_root
from ..pipeline import CHECKS, Unit, run
from .driver import claim_name, discover_or_say
from .job_cache import JobCache, default_dir, digest, entry, warnings_of

POOL_FROM = 8  # fewer files than this are compiled in this process: forking would cost more than it saves


@dataclass(slots=True)
class Outcome:
    """What compiling one file gave: its diagnostics, its pipeline's name and where, and its job (file name and
    source, unformatted until the parent formats it; only the digest and cache key when it came from the cache)."""

    diagnostics: list[Diagnostic]
    name: str | None = None
    name_loc: Location | None = None
    filename: str | None = None
    source: str | None = None
    digest: str | None = None
    key: str | None = None  # its job cache entry


@dataclass(slots=True)
class Batch:
    """Every file of one invocation: file name -> outcome with a job, and every diagnostic."""

    jobs: dict[str, Outcome] = field(default_factory=dict)
    diags: Collector = field(default_factory=Collector)


def _cache() -> JobCache | None:
    folder = default_dir()
    return JobCache(folder) if folder else None


def _job_file(path: Path) -> str:
    """The name the job's comments give the file: relative to its repository (see load.document.load_file)."""
    root = repo_root(path.parent)
    return display_name(path, root) if root else display_name(path)


def compile_file(path: Path) -> Outcome:
    """Every stage over one file (pipeline.STAGES) but the formatting of its job's text."""
    diags = Collector()
    unit = run(Unit(path, diags), CHECKS)
    compiled = unit.compiled
    if compiled is None:
        return Outcome(diags.items)
    outcome = Outcome(diags.items, compiled.pipeline.name, unit.name_loc)
    if diags.errors:
        return outcome
    from ..emit.job import job_text  # lazily: a project the cache knows never renders

    try:
        text = job_text(compiled, unit.lowered)
    except CompileError as exc:
        diags.extend(exc.diagnostics)
        return outcome
    outcome.filename, outcome.source = f"{compiled.pipeline.name}.py", text
    outcome.key = JobCache.key(compiled.pipeline.file, compiled.pipeline.sha256)
    return outcome


def _formatted(outcomes: list[Outcome]) -> None:
    """Every compiled job's text formatted, in one formatter call; each recorded in the cache with its digest."""
    from ..emit.formatter import format_sources

    compiled = {f"job{i}.py": o for i, o in enumerate(outcomes) if o.source is not None and o.digest is None}
    formatted = format_sources({name: o.source for name, o in compiled.items()})
    cache = _cache()
    for name, outcome in compiled.items():
        outcome.source = formatted[name]
        outcome.digest = digest(outcome.source.encode("utf-8"))
        warnings = [d for d in outcome.diagnostics if d.severity == "warning"]
        if cache is not None:
            entry_ = entry(outcome.name, outcome.name_loc, outcome.filename, outcome.digest, warnings)
            cache.put(outcome.key, entry_, outcome.source)


def _from_cache(path: Path, cache: JobCache) -> Outcome | None:
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    key = JobCache.key(_job_file(path), digest(raw))
    cached = cache.get(key)
    if cached is None:
        return None
    file = display_name(path)
    name_loc = Location(file, *cached["name_at"]) if cached["name_at"] else None
    return Outcome(warnings_of(cached, file), cached["name"], name_loc, cached["filename"], None, cached["sha256"], key)


def _workers(count: int) -> int:
    return min(len(os.sched_getaffinity(0)), count) if count >= POOL_FROM else 1


def _compile_many(paths: list[Path]) -> list[Outcome]:
    workers = _workers(len(paths))
    if workers < 2:
        return [compile_file(p) for p in paths]
    import multiprocessing  # only here: a compile of a few files never starts a pool
    from concurrent.futures import ProcessPoolExecutor

    first = compile_file(paths[0])  # here, before forking: the workers inherit the loaded compiler and templates
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        rest = pool.map(compile_file, paths[1:], chunksize=max(1, len(paths) // (workers * 8)))
        return [first, *rest]


def _with_source(outcome: Outcome | None, cache: JobCache, out: Path) -> Outcome | None:
    """A cache hit as `compile` needs it: its source where the job under `out` differs (None: not in the cache)."""
    if outcome is None or on_disk(out, outcome.filename) == outcome.digest:
        return outcome
    source = cache.source(outcome.key)
    if source is None or digest(source.encode("utf-8")) != outcome.digest:
        return None
    outcome.source = source
    return outcome


def compile_all(paths: list[str], use_cache: bool = False, out: Path | None = None) -> Batch:
    """Every pipeline file under `paths`, compiled (from the cache where `use_cache` finds it; given `out`, with the
    source of each job that differs from the one there)."""
    gc.set_threshold(50_000, 20, 100)  # compiling allocates many small objects and frees them without cycles
    batch = Batch()
    files = discover_or_say(paths, batch.diags)
    cache = _cache() if use_cache else None
    outcomes: list[Outcome | None] = [_from_cache(p, cache) if cache else None for p in files]
    if cache is not None and out is not None:
        outcomes = [_with_source(o, cache, out) for o in outcomes]
    missing = [i for i, outcome in enumerate(outcomes) if outcome is None]
    for i, outcome in zip(missing, _compile_many([files[i] for i in missing])):
        outcomes[i] = outcome
    _formatted([o for o in outcomes if o is not None])
    names: dict[str, Location | None] = {}
    for outcome in outcomes:
        batch.diags.extend(outcome.diagnostics)
        if outcome.name is None:
            continue
        if not claim_name(names, outcome.name, outcome.name_loc, batch.diags):
            continue
        if outcome.filename is not None:
            batch.jobs[outcome.filename] = outcome
    return batch


def on_disk(out: Path, name: str) -> str | None:
    """The digest of the job `name` under `out`, None when there is none."""
    try:
        return digest((out / name).read_bytes())
    except OSError:
        return None


def stale(out: Path, jobs: dict[str, Outcome]) -> list[str]:
    """Jobs that are missing under `out` or differ from what compile would write."""
    problems = []
    for name, outcome in jobs.items():
        target = out / name
        try:
            current = target.read_bytes()
        except FileNotFoundError:
            problems.append(f"{target}: missing")
            continue
        except OSError as exc:  # a folder named like the job, no permission
            problems.append(f"{target}: cannot be read ({(exc.strerror or str(exc)).lower()})")
            continue
        if digest(current) != outcome.digest:
            problems.append(f"{target}: differs from its pipeline")
    return problems
