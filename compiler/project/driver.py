"""The driver: find pipeline files, run the stages over all of them, write or check generated jobs."""

from __future__ import annotations

from pathlib import Path

from ..dataclass_lite import field, record
from ..diagnostics import Collector, CompileError, Location
from ..pipeline import CHECKS, Unit, run
from ..resolve.builder import Compiled
from .atomic_write import write_text

SUFFIXES = (".yaml", ".yml")



def discover(paths: list[str], diags: Collector) -> list[Path]:
    """Files named, and every *.yaml / *.yml below folders named, in a stable order."""
    found: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found += sorted(f for f in p.rglob("*") if f.suffix in SUFFIXES and f.is_file())
        elif p.is_file():
            found.append(p)
        else:
            diags.error("E005", f"no such file or folder: {raw}", None)
    unique = list(dict.fromkeys(f.resolve() for f in found))
    return unique


@record(frozen=False)
class Result:
    """Every pipeline compiled from one invocation, and everything said about them."""

    compiled: list[Compiled] = field(default_factory=list)
    diags: Collector = field(default_factory=Collector)


def discover_or_say(paths: list[str], diags: Collector) -> list[Path]:
    """`discover`, with an error when nothing is found."""
    files = discover(paths, diags)
    if not files and not diags.errors:
        diags.error("E006", f"no pipeline files (*.yaml, *.yml) under {', '.join(paths)}", None)
    return files


def build_file(path: Path, diags: Collector) -> tuple[Compiled, Location] | None:
    """Every check of one pipeline file (pipeline.CHECKS): the pipeline and where its name stands, or None."""
    unit = run(Unit(path, diags), CHECKS)
    return None if unit.compiled is None else (unit.compiled, unit.name_loc)


def claim_name(names: dict[str, Location | None], name: str, loc: Location | None, diags: Collector) -> bool:
    """Records `name` for the file at `loc`; an error (and False) when an earlier file has it."""
    if name in names:
        used_by = names[name]
        diags.error("E007", f"pipeline name '{name}' is already used by {used_by.file if used_by else '?'}", loc,
                    "names are unique among the files compiled together: each becomes generated/<name>.py")
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
    from ..emit.job import generate

    result.diags.check()
    return {job.filename: job.source for job in (generate(c) for c in result.compiled)}


def write_atomically(out: Path, files: dict[str, str]) -> list[Path]:
    """Write each file through a temp file and a rename, so no reader sees half a file."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in files.items():
        target = out / name
        write_text(target, text)
        written.append(target)
    return written


__all__ = ["CompileError", "Result", "build_all", "discover", "generate_all", "write_atomically"]
