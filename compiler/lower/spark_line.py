"""The Spark line a job needs: the functions its generated code calls, against `spark.version` when declared."""

from __future__ import annotations

from .. import ir
from ..connectors import table_formats_of
from ..connectors.table_formats import line_problem
from ..diagnostics import Collector
from ..resolve.builder import Compiled
from ..spark_versions import FEATURES_SINCE, SINCE, line_key, needed_line
from .record_path import Lowered

REAL_TIME = "trigger real-time"


def names_called(node: object) -> set[str]:
    """The `F.*` functions and Column methods an IR node calls."""
    found: set[str] = set()
    _add_names_called(node, found)
    return found


def _add_names_called(node: object, found: set[str]) -> None:
    if isinstance(node, (tuple, list)):
        for item in node:
            _add_names_called(item, found)
        return
    names = ir.field_names(node)
    if names is None:
        return
    if isinstance(node, (ir.Func, ir.Method)):
        found.add(node.name)
    for name in names:
        if name != "loc":
            _add_names_called(getattr(node, name), found)


def blocks(lowered: Lowered) -> tuple[ir.Block, ...]:
    return (lowered.decode, *lowered.chain, lowered.encode)


def job_needs(lowered: Lowered, real_time: bool = False) -> tuple[str, list[str]]:
    """The oldest Spark line the job runs on, and the functions (or the real-time trigger) that need that line."""
    names = set().union(*(names_called(b.ops) for b in blocks(lowered)))
    return needed_line(names | {REAL_TIME} if real_time else names)


def check_target(compiled: Compiled, lowered: Lowered, diags: Collector) -> None:
    """A pipeline that declares `spark.version`: every source, step and sink whose code (`lowered`) needs a newer
    line, and a real-time trigger before its line, is an error at its own YAML line."""
    p = compiled.pipeline
    target = p.spark_version
    if target is None:
        return
    for block in blocks(lowered):
        newer = sorted(n for n in names_called(block.ops) if n in SINCE and line_key(SINCE[n]) > line_key(target))
        if newer:
            need = max((SINCE[n] for n in newer), key=line_key)
            diags.error(
                "E900",
                f"needs Spark {need} or newer ({', '.join(newer)}), but spark.version is {target}",
                block.loc or p.spark_version_loc,
                f"raise spark.version to {need} (at {p.spark_version_loc}), or use a step PySpark {target} can run",
            )
    for block, fmt in ((p.source, p.source.connector), (p.sink, p.sink.connector)):
        problem = line_problem(fmt, target) if fmt in table_formats_of(p.source, p.sink) else None
        if problem:
            diags.error(
                "E901",
                f"{problem}, but spark.version is {target}",
                block.loc,
                f"set spark.version (at {p.spark_version_loc}) to a line that has a runtime of {fmt}",
            )
    need = FEATURES_SINCE[REAL_TIME]
    if p.sink.real_time and line_key(target) < line_key(need):
        diags.error(
            "E900",
            f"trigger: real-time needs Spark {need} or newer (real-time mode), but spark.version is {target}",
            p.sink.trigger_loc,
            f"raise spark.version to {need} (at {p.spark_version_loc}), or use another trigger",
        )
