"""`pipec test` for table sinks (delta, iceberg): a case runs the job's own path, `start` (its streaming query or batch
run, its foreachBatch and MERGE), into a real table in a temporary folder, starting from `table_before`; then the
table is read back and compared with `expect_table` as a multiset of rows. A named Delta table lives in the case's
own database folder and is dropped after the case. Under errors.tolerance: all the dead letters the job sends are
collected (never written to the queue) and compared with `expect_dead_letters`."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from ..changelog import OP
from ..connectors import SOURCES
from ..model import TestCase, TestRecord
from ..resolve.builder import Compiled
from .compare import compare
from .dead_letters import check_counts, check_dead_letters, split_rows, with_letter_headers
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
            job.say(job.batch_lines(counts, "batch"))
            return
        for i, values in enumerate(batches):
            write_given_files(spark, job, compiled, values, folder, i)
            job.start(job.read_source(spark, args), args, counts).awaitTermination()
        return
    if not args.streaming:
        job.start(batch_rows(spark, source, case), args, counts)
        job.say(job.batch_lines(counts, "batch"))
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


@contextlib.contextmanager
def own_catalog_table(spark, table, tmp: Path):
    """A named table of the session catalog (Delta's; shared by every case of a run, where an Iceberg catalog's
    warehouse is the case's folder) for one case: gone before and after it, in a database the case creates in its
    folder when the name has one that does not exist yet."""
    if not table.name or table.catalog:
        yield
        return
    parts = table.name.split(".")
    database = ".".join(parts[-2:-1])  # db of db.t or spark_catalog.db.t; none for t
    created = bool(database) and not spark.catalog.databaseExists(database)
    if created:
        spark.sql(f"CREATE DATABASE {database} LOCATION '{(tmp / 'warehouse').as_uri()}'")
    dropped = (table.name, table.name + "__tombstones")
    try:
        for name in dropped:
            spark.sql(f"DROP TABLE IF EXISTS {name}")
        yield
    finally:
        for name in dropped:
            spark.sql(f"DROP TABLE IF EXISTS {name}")
        if created:
            spark.sql(f"DROP DATABASE IF EXISTS {database} CASCADE")


@contextlib.contextmanager
def recorded_changes(job: ModuleType, table, written: list):
    """The rows an upsert or history job hands its table, each micro-batch's (or the batch run's), into `written`
    (`__op` as `op`, without pipec's other `__` columns), then applied as the job applies them."""
    if table.apply == "append":
        yield
        return
    write = job.Table.write

    def recording(self, rows, batch_id):
        shown = [c for c in rows.columns if not c.startswith("__")]
        written.extend(rows.select(*shown, rows["__op"].alias("op")).collect())
        return write(self, rows, batch_id)

    job.Table.write = recording
    try:
        yield
    finally:
        job.Table.write = write


def appended(before: list, after: list) -> list:
    """The rows an append added: the table's rows after the case less those before it (a multiset)."""
    left = list(before)
    out = []
    for row in after:
        if row in left:
            left.remove(row)
        else:
            out.append(row)
    return out


@contextlib.contextmanager
def collected_dead_letters(job: ModuleType, letters: list):
    """The job's dead letters (errors.tolerance: all) into `letters`, as its queue would get them, instead of the
    queue (a topic or folder a record test never writes)."""
    write = getattr(job, "write_dead_letters", None)
    if write is None:
        yield
        return
    job.write_dead_letters = lambda dead, args: letters.extend(with_letter_headers(job, dead).collect())
    try:
        yield
    finally:
        job.write_dead_letters = write


def run_table_case(
    spark,
    job: ModuleType,
    compiled: Compiled,
    case: TestCase,
    tmp: Path,
    files: Files,
    record_error: str,
    sink_records: Callable[[Compiled, list], tuple[list[dict], Any]],
) -> tuple[bool, tuple[str, ...]]:
    """Whether the case passed (and why not): the table after every given record against `expect_table`, the rows
    the job handed the table against `expect` (`sink_records` reads them as records), and the dead letters against
    `expect_dead_letters`; a case with `expect_error` passes when the job fails on a record (its failure line starts
    with `record_error`), or under errors.tolerance: all sends one to the dead letters."""
    spark = spark.newSession()  # its own catalogs: a catalog's warehouse is this case's folder
    for key, value in job.SESSION_CONF.items():
        spark.conf.set(key, value)
    (tmp / "source").mkdir()
    given = {
        "--sink-path": tmp / "table",
        "--checkpoint": tmp / "checkpoint",
        "--trigger": "available-now",
        "--source-path": tmp / "source",
    }
    # the job has the options its code reads (OPTIONS): a kafka source's job has no --source-path
    args = job.parse_args([part for flag, value in given.items() if flag in job.OPTIONS for part in (flag, str(value))])
    table = job.sink_table(args)
    job._PREPARED.clear()
    printed = io.StringIO()
    letters: list = []
    written: list = []
    before: list = []
    with own_catalog_table(spark, table, tmp):
        try:
            # the job's counts lines, shown when the case fails
            with contextlib.redirect_stdout(printed), collected_dead_letters(job, letters):
                write_before(spark, job, table, case.table_before)
                if case.expect is not None and table.apply == "append":
                    before = spark.read.table(table.ref).collect()
                with recorded_changes(job, table, written):
                    _feed(spark, job, compiled, case, tmp, args, files)
        except Exception as exc:
            why = job.failure(exc)
            if case.expect_error is not None and why.startswith(record_error):
                return True, ()
            return False, (f"  the job failed: {why}", *(f"  {line}" for line in printed.getvalue().splitlines()))
        _, dead = split_rows(letters)
        if case.expect_error is not None:
            if dead:
                return True, ()
            return False, (f"  expected a record error ({case.expect_error}), but the job wrote the table",)
        actual = table_rows(spark, table)
        if case.expect is not None and table.apply == "append":
            written = appended(before, spark.read.table(table.ref).collect())
    counts = printed.getvalue().splitlines()
    lines = check_dead_letters(compiled, case, dead)
    if case.expect_dead_letters is not None:
        lines += check_counts([line for line in counts if "dead_lettered=" in line], None, len(dead))
    if case.expect is not None:
        records = sink_records(compiled, written)[0]
        for rec in records:  # the change an upsert or history row applies: a record field, as a changelog's op
            if isinstance(rec["value"], dict) and OP in rec["value"]:
                rec[OP] = rec["value"].pop(OP)
        mismatch = compare([(r.loc.line, r.fields) for r in case.expect], records, ordered=False)
        lines += mismatch.lines() if mismatch else []
    if case.expect_table is not None or case.expect is None:  # no expectation at all: the table stays empty
        mismatch = compare([(r.loc.line, {"value": r.fields}) for r in case.expect_table or ()], actual, ordered=False)
        lines += mismatch.lines() if mismatch else []
    if not lines:
        return True, ()
    return False, (*lines, *(f"  {line}" for line in counts))
