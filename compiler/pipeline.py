"""The flow of pipec for one pipeline file, as code: `STAGES`, in order.

Each stage reads what the stages before it put on the file's `Unit` and adds its own result; one that reports an
error stops the file (a warning does not). `project/` runs them over a project's files for the command line:
`validate`, `explain`, `test` and the tools run `CHECKS` (every stage but the job's text), `compile` and `check`
all of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .diagnostics import Collector, Location
from .load.document import Document, load_file, repo_root
from .lower import record_path
from .lower.record_path import Lowered
from .lower.spark_line import check_target
from .resolve.builder import Builder, Compiled
from .validate.schema import validate_document

if TYPE_CHECKING:
    from .emit.job import Job


@dataclass(slots=True)
class Unit:
    """One pipeline file, as the stages fill it in."""

    path: Path
    diags: Collector
    document: Document | None = None
    compiled: Compiled | None = None
    lowered: Lowered | None = None
    job: Job | None = None

    @property
    def name_loc(self) -> Location | None:
        """Where the pipeline's name is written."""
        return self.document.smap.at(("name",)) if self.document else None


def load(unit: Unit) -> bool:
    """The file's YAML as plain data with a source map, within the loader's limits (load/)."""
    unit.document = load_file(unit.path, unit.diags, repo_root(unit.path.parent))
    return unit.document is not None


def validate(unit: Unit) -> bool:
    """The document against the pipeline language's JSON Schema, each scalar settled by its slot (validate/)."""
    unit.document = validate_document(unit.document, unit.diags)
    return unit.document is not None


def resolve(unit: Unit) -> bool:
    """The resolved model, with every semantic check and the record shape after each step (resolve/)."""
    unit.compiled = Builder(unit.document, unit.diags).build()
    return unit.compiled is not None


def lower(unit: Unit) -> bool:
    """The record path as IR blocks, the lowering passes applied (lower/)."""
    unit.lowered = record_path.lower(unit.compiled)
    return True


def check_spark_line(unit: Unit) -> bool:
    """What the lowered code needs of Spark, against `spark.version` where the pipeline declares it. Its errors
    are reported at their lines; the file still goes on to claim its name among the others."""
    check_target(unit.compiled, unit.lowered, unit.diags)
    return True


def emit(unit: Unit) -> bool:
    """The job's file: the IR rendered, laid out by the templates, formatted as black would (emit/)."""
    from .emit.job import generate  # lazily: `check` of an unchanged project never renders

    unit.job = generate(unit.compiled, unit.lowered)
    return True


Stage = Callable[[Unit], bool]
STAGES: tuple[Stage, ...] = (load, validate, resolve, lower, check_spark_line, emit)
CHECKS = STAGES[:-1]


def run(unit: Unit, stages: tuple[Stage, ...] = STAGES) -> Unit:
    """`stages` applied to the unit in order, until one reports an error."""
    for stage in stages:
        if not stage(unit):
            break
    return unit
