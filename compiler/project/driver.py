"""The driver: find pipeline files, run the stages over all of them, write or check generated jobs."""

from __future__ import annotations

import errno
from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import Collector, CompileError, Diagnostic, Location, escaped
from ..load.inputs import SUFFIXES, discover
from ..pipeline import CHECKS, Unit, run
from ..resolve.builder import Compiled
from .atomic_write import write_all


@dataclass(slots=True)
class Result:
    """Every pipeline compiled from one invocation, and everything said about them."""

    compiled: list[Compiled] = field(default_factory=list)
    diags: Collector = field(default_factory=Collector)


def discover_or_say(paths: list[str], diags: Collector) -> list[Path]:
    """`discover`, with an error when nothing is found."""
    files = discover(paths, diags)
    if not files and not diags.errors:
        diags.error(
            "E006",
            f"no pipeline files (*.yaml, *.yml) under {', '.join(paths)}",
            Location(paths[0], 1, 1),
            "name a folder holding pipeline files, or the files themselves",
        )
    return files


def build_file(path: Path, diags: Collector) -> tuple[Compiled, Location] | None:
    """Every check of one pipeline file (pipeline.CHECKS): the pipeline and where its name stands, or None."""
    unit = run(Unit(path, diags), CHECKS)
    return None if unit.compiled is None else (unit.compiled, unit.name_loc)


def claim_name(names: dict[str, Location | None], name: str, loc: Location | None, diags: Collector) -> bool:
    """Records `name` for the file at `loc`; an error (and False) when an earlier file has it."""
    if name in names:
        used_by = names[name]
        diags.error(
            "E007",
            f"pipeline name '{name}' is already used by {used_by.file if used_by else '?'}",
            loc,
            "names are unique among the files compiled together: each becomes generated/<name>.py",
        )
        return False
    names[name] = loc
    return True


def build_all(paths: list[str]) -> Result:
    """Load, validate and build every pipeline; names must be unique among them."""
    result = Result()
    names: dict[str, Location | None] = {}
    for path in discover_or_say(paths, result.diags):
        built = build_file(path, result.diags)
        if built and claim_name(names, built[0].pipeline.name, built[1], result.diags):
            result.compiled.append(built[0])
    return result


def generate_all(result: Result) -> dict[str, str]:
    """file name -> job source, for every compiled pipeline (only when there were no errors)."""
    from ..emit.job import generate_many

    result.diags.check()
    return {job.filename: job.source for job in generate_many(result.compiled)}


_WRITE_HINTS = {
    errno.ENAMETOOLONG: "shorten the pipeline's name (the job is NAME.py)",
    errno.EISDIR: "a folder has the job's name: move it, or choose another --out",
    errno.EEXIST: "--out names a file: name a folder (it is made when missing)",
    errno.ENOTDIR: "--out must be a folder, and every part of its path a folder",
    errno.EACCES: "give yourself write permission there, or choose another --out",
    errno.EROFS: "the file system is read-only: choose another --out",
    errno.ENOSPC: "the disk is full: free some space",
}


def write_atomically(out: Path, files: dict[str, str]) -> list[Path]:
    """Write every job into `out`, or none (atomic_write.write_all); a failure is one error at the path at fault."""
    try:
        return write_all(out, files)
    except OSError as exc:
        at = escaped(str(exc.filename or out))
        reason = (exc.strerror or str(exc)).lower()
        raise CompileError(
            [
                Diagnostic(
                    "E010",
                    f"cannot write {at}: {reason}; nothing was written",
                    Location(at, 1, 1),
                    _WRITE_HINTS.get(exc.errno, "check --out and its permissions"),
                )
            ]
        ) from None


__all__ = ["SUFFIXES", "CompileError", "Result", "build_all", "discover", "generate_all", "write_atomically"]
