"""Checks that a job's record path is native Spark: no Python UDF, pandas UDF or RDD operator in a physical plan.

Shared by the record, changelog, dead-letter and example-plan tests (SPEC section 1).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from pipec.connectors import SOURCES
from pipec.model import TestCase
from pipec.resolve.builder import Compiled
from pipec.testing.given_rows import batch_rows
from pipec.testing.runner import write_given_files

# Physical operators that would mean Python code (or an RDD, or JVM objects) on the record path.
PYTHON_OPERATORS = (
    "BatchEvalPython",
    "ArrowEvalPython",
    "PythonUDF",
    "MapInPandas",
    "MapInArrow",
    "PythonMapInArrow",
    "FlatMapGroupsInPandas",
    "FlatMapCoGroupsInPandas",
    "AggregateInPandas",
    "WindowInPandas",
    "ExternalRDD",
    "SerializeFromObject",
    "DeserializeToObject",
    "MapPartitions",
)


def python_operators_in(plan: str) -> list[str]:
    """The PYTHON_OPERATORS named in a physical plan's text (empty for a native plan)."""
    return [op for op in PYTHON_OPERATORS if op in plan]


def python_operators(df) -> list[str]:
    """The Python/RDD operators in a DataFrame's physical plan (empty for a native plan)."""
    return python_operators_in(df._jdf.queryExecution().executedPlan().toString())


CODEGEN_FALLBACK = "org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback"


def interpreted_expressions(df) -> list[str]:
    """The class names of the expressions in a DataFrame's physical plan that Spark only interprets (CodegenFallback:
    a higher-order function's lambda, `from_json`, ...): a projection holding one runs outside whole-stage codegen."""
    fallback = df.sparkSession._jvm.java.lang.Class.forName(CODEGEN_FALLBACK)
    found: list[str] = []

    def each(seq, visit) -> None:
        for i in range(seq.size()):
            visit(seq.apply(i))

    def expression(e) -> None:
        if fallback.isAssignableFrom(e.getClass()):
            found.append(e.getClass().getSimpleName())
        each(e.children(), expression)

    def operator(plan) -> None:
        each(plan.expressions(), expression)
        each(plan.children(), operator)

    operator(df._jdf.queryExecution().executedPlan())
    return found


def batch_frame(spark, job: ModuleType, compiled: Compiled, case: TestCase, tmp: Path):
    """The job's `transform` over a test case's given records, as one batch DataFrame (for plan checks)."""
    if not SOURCES[compiled.pipeline.source.connector].reads_files:
        raw = batch_rows(spark, compiled.pipeline.source, case)
        if hasattr(job, "micro_batch"):
            return job.micro_batch(raw, 0, str(tmp / "checkpoint"))
        return job.transform(raw)
    src = tmp / "source"
    src.mkdir()
    write_given_files(spark, job, compiled, [r.fields.get("value") for r in case.given], src, 0)
    args = job.parse_args(["--source-path", str(src)])
    args.streaming = False
    return job.transform(job.read_source(spark, args))
