"""`pipec test` for table sinks (delta, iceberg): a case runs the job's own path, `start` (its streaming query or batch
run, its foreachBatch and MERGE), into a real table in a temporary folder, starting from `table_before`; then the
table is read back and compared with `expect_table` as a multiset of rows."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from ..connectors import SOURCES
from ..model import TestCase, TestRecord
from ..resolve.builder import Compiled
from .compare import compare
from .given_rows import batch_rows, given_frames, raw_schema

SHOWN = ("__START_AT", "__END_AT")  # the bookkeeping columns a test compares (history's bounds)


def _plain(value: Any) -> Any:
    if hasattr(value, "asDict"):
        return {k: _plain(v) for k, v in value.asDict(recursive=False).items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def table_rows(spark, table) -> list[dict]:
    """The table's rows as records (`value`: the row), without pipec's other bookkeeping columns."""
    rows = spark.read.table(table.ref).collect()
    out = []
    for row in rows:
        data = _plain(row)
        out.append({"value": {k: v for k, v in data.items() if not k.startswith("__") or k in SHOWN}})
    return out


def write_before(spark, job: ModuleType, table, rows: tuple[TestRecord, ...]) -> None:
    """`table_before`: the rows as JSON, parsed with the table's own schema; their sequence is older than any
    given record's (the sequence-by value, or the epoch with no partition or offset); a history row's version
    starts at its __START_AT."""
    from pyspark.sql import functions as F

    table.prepare(spark)
    if not rows:
        return
    schema = spark.read.table(table.ref).schema
    given = [f for f in schema.fields if f.name != "__SEQUENCE"]
    from pyspark.sql.types import StructType

    texts = spark.createDataFrame([(json.dumps(r.fields, default=str),) for r in rows], "j STRING")
    parsed = texts.select(F.from_json("j", StructType(given)).alias("r")).select("r.*")
    if "__SEQUENCE" in schema.names:
        seq = schema["__SEQUENCE"].dataType
        first = seq.fieldNames()[0]
        start = (
            F.col("__START_AT")
            if "__START_AT" in schema.names
            else (F.col(first) if table.sequence_by else F.lit(0).cast("timestamp"))
        )
        fields = [start.cast(seq[first].dataType).alias(first)]
        fields += [F.lit(None).cast(f.dataType).alias(f.name) for f in seq.fields[1:]]
        parsed = parsed.withColumn("__SEQUENCE", F.struct(*fields))
    writer = parsed.select(*schema.names).write.format(table.format).mode("append")
    writer.saveAsTable(table.name) if table.name else writer.save(table.path)


def _feed(spark, job: ModuleType, compiled: Compiled, case: TestCase, tmp: Path, args, files: Files) -> None:
    """Run the job's `start` over the given records: one batch run, or one available-now run per micro-batch."""
    source = compiled.pipeline.source
    counts = job.Counts(args.streaming)
    if SOURCES[source.connector].reads_files:
        batches, write_given_files = files.batches(case), files.write
        folder = Path(args.source_path)
        if not args.streaming:
            write_given_files(spark, job, compiled, [v for b in batches for v in b], folder, 0)
            job.start(job.read_source(spark, args), args, counts)
            counts.report_batch()
            return
        for i, values in enumerate(batches):
            write_given_files(spark, job, compiled, values, folder, i)
            job.start(job.read_source(spark, args), args, counts).awaitTermination()
        return
    if not args.streaming:
        job.start(batch_rows(spark, source, case), args, counts)
        counts.report_batch()
        return
    folder = tmp / "rows"
    for _, part in given_frames(spark, source, case):
        part.coalesce(1).write.mode("append").parquet(str(folder))
        raw = spark.readStream.schema(raw_schema(source)).parquet(str(folder))
        job.start(raw, args, counts).awaitTermination()


@dataclass(frozen=True, slots=True)
class Files:
    """How the runner writes a files source's given records: grouped by micro-batch, then written as files."""

    batches: Callable[[TestCase], list[list]]
    write: Callable[..., None]


def run_table_case(
    spark, job: ModuleType, compiled: Compiled, case: TestCase, tmp: Path, files: Files, record_error: str
) -> tuple[bool, tuple[str, ...]]:
    """Whether the case passed (and why not): the table after every given record against `expect_table`; a
    case with `expect_error` passes when the job fails on a record (its failure line starts with `record_error`)."""
    spark = spark.newSession()  # its own catalogs: a catalog's warehouse is this case's folder
    for key, value in job.SESSION_CONF.items():
        spark.conf.set(key, value)
    (tmp / "source").mkdir()
    argv = [
        "--sink-path",
        str(tmp / "table"),
        "--checkpoint",
        str(tmp / "checkpoint"),
        "--trigger",
        "available-now",
        "--source-path",
        str(tmp / "source"),
    ]
    args = job.parse_args(argv)
    table = job.sink_table(args)
    job._PREPARED.clear()
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):  # the job's counts lines, shown when the case fails
            write_before(spark, job, table, case.table_before)
            _feed(spark, job, compiled, case, tmp, args, files)
    except Exception as exc:
        why = job.failure(exc)
        if case.expect_error is not None and why.startswith(record_error):
            return True, ()
        return False, (f"  the job failed: {why}", *(f"  {line}" for line in printed.getvalue().splitlines()))
    if case.expect_error is not None:
        return False, (f"  expected a record error ({case.expect_error}), but the job wrote the table",)
    actual = table_rows(spark, table)
    mismatch = compare([(r.loc.line, {"value": r.fields}) for r in case.expect_table or ()], actual, ordered=False)
    if mismatch is None:
        return True, ()
    counts = [f"  {line}" for line in printed.getvalue().splitlines()]
    return False, (*mismatch.lines(), *counts)
