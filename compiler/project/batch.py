"""`pipec compile` and `pipec check` over many files: each file is compiled on its own (load, validate, build,
generate) in a pool of forked worker processes, one per core, that inherit the loaded compiler, so start-up
is paid once; names are then checked across files in the parent, in file order.

`check` first looks each file up in the job cache (`compiler/project/job_cache.py`, keyed by the file's bytes and
pipec's fingerprint): a hit needs no compiling, only a hash of the job on disk, so a hand edit of a job is
still caught. Misses are compiled as `compile` does, and every full compile records its entry.
"""

from __future__ import annotations

import gc
import os
from pathlib import Path

from ..dataclass_lite import field, record
from ..diagnostics import Collector, CompileError, Diagnostic, Location
from ..load.document import display_name, repo_root
from ..pipeline import CHECKS, Unit, emit, run
from .driver import claim_name, discover_or_say
from .job_cache import JobCache, default_dir, digest, entry, warnings_of

POOL_FROM = 8  # fewer files than this are compiled in this process: forking would cost more than it saves


@record(frozen=False)
class Outcome:
    """What compiling one file gave: its diagnostics, its pipeline's name and where, and its job (file name
    and source; only the digest when it came from the cache)."""

    diagnostics: list[Diagnostic]
    name: str | None = None
    name_loc: Location | None = None
    filename: str | None = None
    source: str | None = None
    digest: str | None = None


@record(frozen=False)
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
    """Every stage over one file (pipeline.STAGES); its cache entry is written when it compiled cleanly."""
    diags = Collector()
    unit = run(Unit(path, diags), CHECKS)
    compiled = unit.compiled
    if compiled is None:
        return Outcome(diags.items)
    outcome = Outcome(diags.items, compiled.pipeline.name, unit.name_loc)
    if diags.errors:
        return outcome
    try:
        emit(unit)
    except CompileError as exc:
        diags.extend(exc.diagnostics)
        return outcome
    job = unit.job
    outcome.filename, outcome.source, outcome.digest = job.filename, job.source, digest(job.source.encode("utf-8"))
    cache = _cache()
    if cache is not None:
        cache.put(
            JobCache.key(compiled.pipeline.file, compiled.pipeline.sha256),
            entry(outcome.name, outcome.name_loc, job.filename, outcome.digest, diags.warnings),
        )
    return outcome


def _from_cache(path: Path, cache: JobCache) -> Outcome | None:
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    cached = cache.get(JobCache.key(_job_file(path), digest(raw)))
    if cached is None:
        return None
    file = display_name(path)
    name_loc = Location(file, *cached["name_at"]) if cached["name_at"] else None
    return Outcome(warnings_of(cached, file), cached["name"], name_loc, cached["filename"], None, cached["sha256"])


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


def compile_all(paths: list[str], use_cache: bool = False) -> Batch:
    """Every pipeline file under `paths`, compiled (from the cache where `use_cache` finds it)."""
    gc.set_threshold(50_000, 20, 100)  # compiling allocates many small objects and frees them without cycles
    batch = Batch()
    files = discover_or_say(paths, batch.diags)
    cache = _cache() if use_cache else None
    outcomes: list[Outcome | None] = [_from_cache(p, cache) if cache else None for p in files]
    missing = [i for i, outcome in enumerate(outcomes) if outcome is None]
    for i, outcome in zip(missing, _compile_many([files[i] for i in missing])):
        outcomes[i] = outcome
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

