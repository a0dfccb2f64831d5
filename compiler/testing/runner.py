"""`pipec test`: run each pipeline's `tests:` through its generated job's own code on a local Spark.

Given records become the source's raw rows (for a files source: files in the source's format, read
by the job's `read_source`); the job's `transform` produces the sink's rows, which are decoded back
into records and compared with `expect` (compare.py). One SparkSession serves the whole run.
"""

from __future__ import annotations

import base64
import datetime as dt
import importlib.util
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any

from ..changelog import OP
from ..connectors import SINKS, SOURCES
from ..connectors.base import ENVELOPE_COLUMNS
from ..model import TestCase
from ..record_errors import CORRUPT
from ..resolve.builder import Compiled
from ..spark_versions import KAFKA, PACKAGES_VERSION_ENV, line_key, line_of
from ..types.sql import TIMESTAMP_LTZ_3, StructType
from .compare import compare, show
from .dead_letters import check_counts, check_dead_letters, split_rows, with_letter_headers
from .given_rows import GivenProblem, batch_rows, given_frames, raw_schema
from .kafka_decode import kafka_sink_records, read_back
from .session import local_session, stop_local_session, table_settings
from .tables import Files, run_table_case

PARQUET_PUSHDOWN = "spark.sql.parquet.filterPushdown"


@dataclass(frozen=True, slots=True)
class Outcome:
    passed: bool
    lines: tuple[str, ...] = ()


def load_job(path: Path) -> ModuleType:
    """Import a generated job file as a module (each under its own name)."""
    name = f"pipec_job_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def compile_job(folder: Path, yaml_text: str) -> ModuleType:
    """Compile one pipeline's YAML (written to `folder`/pipeline.yaml; errors raise) and load its job from `folder`."""
    from ..project.driver import build_all, generate_all

    path = folder / "pipeline.yaml"
    path.write_text(yaml_text, encoding="utf-8")
    result = build_all([str(path)])
    result.diags.check()
    ((name, source),) = generate_all(result).items()
    (folder / name).write_text(source, encoding="utf-8")
    return load_job(folder / name)


def _json_default(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode()
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    raise TypeError(f"cannot write {type(value).__name__} into a test file")


def write_given_files(spark, job: ModuleType, compiled: Compiled, values: list[Any], folder: Path, batch: int) -> None:
    """Write given values as files of the source's format straight into `folder` (named by batch)."""
    source = compiled.pipeline.source
    if source.config.format == "text":
        lines = [v["value"] if isinstance(v, dict) else str(v) for v in values]
        (folder / f"batch-{batch}.txt").write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        return
    staging = folder.parent / f"staging-{batch}"
    staging.mkdir()
    json_file = (folder if source.config.format == "json" else staging) / f"batch-{batch}.json"
    with open(json_file, "w", encoding="utf-8") as fh:
        for value in values:
            fh.write(json.dumps(value, default=_json_default, ensure_ascii=False) + "\n")
    if source.config.format != "json":  # Spark converts the JSON lines into the source's format
        converted = staging / "out"
        df = spark.read.schema(job.SOURCE_SCHEMA).json(str(json_file)).drop(CORRUPT)  # the reader's own column
        df.coalesce(1).write.format(source.config.format).options(**dict(source.config.options)).save(str(converted))
        for i, part in enumerate(sorted(converted.glob("part-*"))):
            shutil.move(str(part), folder / f"batch-{batch}-{i}{part.suffix}")
    shutil.rmtree(staging)


def _plain(value: Any) -> Any:
    """Spark Rows -> dicts, recursively."""
    if hasattr(value, "asDict"):
        return {k: _plain(v) for k, v in value.asDict(recursive=False).items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def sink_records(compiled: Compiled, rows: list, spark=None, wire: bool = False) -> tuple[list[dict], set[str]]:
    """The sink's rows decoded as records (with `wire`, a Kafka record's key and value as the bytes written), and the
    record fields this sink writes."""
    sink = compiled.pipeline.sink
    if SINKS[sink.connector].writes_kafka:
        return kafka_sink_records(compiled, rows, spark, wire)
    primitive = not isinstance(compiled.final.value, StructType)
    records = []
    for row in rows:
        data = _plain(row)
        rec: dict[str, Any] = {}
        if sink.config.envelope:
            for name in ENVELOPE_COLUMNS + ((OP,) if compiled.final.changelog else ()):
                rec[name] = data.pop(name)
            rec["headers"] = [(h["key"], h["value"]) for h in rec["headers"] or []]
        # a files sink writes a tombstone as a row of nulls: read such a row back as a null value (a row with no
        # value columns is an empty struct)
        value = data["value"] if primitive else (None if data and all(v is None for v in data.values()) else data)
        rec["value"] = read_back(value, compiled.final.value)
        if "key" in rec:
            rec["key"] = read_back(rec["key"], compiled.final.key)
        if "timestamp" in rec:
            rec["timestamp"] = read_back(rec["timestamp"], TIMESTAMP_LTZ_3)
        records.append(rec)
    return records, set(SINKS[sink.connector].test_layout(sink, compiled.final).fields)


def _ok(lines: list[tuple[str, bool]]) -> list[str]:
    """The count lines of a job's `batch_lines` or `progress_lines`, and the lines saying why a batch has none (not
    log.enable's dead-letter line)."""
    return [line for line, counted in lines if counted or "counts unavailable" in line]


def _streamed_counts(job: ModuleType, query) -> list[str]:
    """The count line of each micro-batch of a finished query, from its progress (as the job reads them)."""
    return [
        line
        for p in query.recentProgress
        if p.observedMetrics
        for line in _ok(job.progress_lines(p.batchId, p.observedMetrics, p.numInputRows))
    ]


def _micro_batches(job: ModuleType, raw, tmp: Path, collected: list, lines: list[str]):
    """The stream writer of a job with its own foreachBatch step (per-key state, numbered lines): each micro-batch
    through `micro_batch`, with its counts."""
    checkpoint = str(tmp / "checkpoint")

    def one(df, batch_id: int) -> None:
        counts = job.Counts(False)
        collected.extend(with_letter_headers(job, job.micro_batch(df, batch_id, checkpoint, counts)).collect())
        lines.extend(_ok(job.batch_lines(counts, f"micro-batch {batch_id}")))

    return raw.writeStream.foreachBatch(one)


def _stream(job: ModuleType, raw, tmp: Path, collected: list, lines: list[str]) -> None:
    """Run the given micro-batch through the job's code (transform on the stream, or its micro_batch step)."""
    if hasattr(job, "micro_batch"):
        writer = _micro_batches(job, raw, tmp, collected, lines)
        counted = False
    else:
        rows = with_letter_headers(job, job.transform(raw, job.Counts(True)))
        writer = rows.writeStream.foreachBatch(lambda df, _id: collected.extend(df.collect()))
        counted = True
    query = writer.option("checkpointLocation", str(tmp / "checkpoint")).trigger(availableNow=True).start()
    query.awaitTermination()
    if counted:
        lines.extend(_streamed_counts(job, query))


def _batch(job: ModuleType, raw) -> tuple[list, list[str]]:
    counts = job.Counts(False)
    rows = with_letter_headers(job, job.transform(raw, counts)).collect()
    return rows, _ok(job.batch_lines(counts, "batch"))


def _batches(case: TestCase) -> list[list]:
    groups: dict[int, list] = {}
    for rec in case.given:
        groups.setdefault(int(rec.fields.get("batch", 0)), []).append(rec.fields.get("value"))
    return [groups[k] for k in sorted(groups)]


def _run_files(spark, job: ModuleType, compiled: Compiled, case: TestCase, tmp: Path) -> tuple[list, list[str]]:
    """The rows the sink would write, micro-batch by micro-batch in streaming mode, and the job's count lines."""
    src = tmp / "source"
    src.mkdir()
    args = job.parse_args(["--source-path", str(src)])
    if not args.streaming:
        write_given_files(spark, job, compiled, [v for b in _batches(case) for v in b], src, 0)
        return _batch(job, job.read_source(spark, args))
    collected: list = []
    lines: list[str] = []
    for i, values in enumerate(_batches(case)):
        write_given_files(spark, job, compiled, values, src, i)
        _stream(job, job.read_source(spark, args), tmp, collected, lines)
    return collected, lines


def _run_rows(spark, job: ModuleType, compiled: Compiled, case: TestCase, tmp: Path) -> tuple[list, list[str]]:
    """Given records as the raw rows the source yields (Kafka's, a table's); micro-batches are parquet files read
    as a stream."""
    if not compiled.pipeline.streaming:
        return _batch(job, batch_rows(spark, compiled.pipeline.source, case))
    collected: list = []
    lines: list[str] = []
    folder = tmp / "rows"
    # the stand-in's numInputRows (a job's `in` where its decode yields one row per record) counts every given
    # record: no filter of the chain reaches the parquet reader's row groups
    pushdown = spark.conf.get(PARQUET_PUSHDOWN)
    spark.conf.set(PARQUET_PUSHDOWN, "false")
    try:
        for _, part in given_frames(spark, compiled.pipeline.source, case):
            part.coalesce(1).write.mode("append").parquet(str(folder))
            _stream(
                job,
                spark.readStream.schema(raw_schema(compiled.pipeline.source)).parquet(str(folder)),
                tmp,
                collected,
                lines,
            )
    finally:
        spark.conf.set(PARQUET_PUSHDOWN, pushdown)
    return collected, lines


RECORD_ERROR = "record error: "  # how a job's `failure` line starts when a record failed it


def run_case(spark, job: ModuleType, compiled: Compiled, case: TestCase) -> Outcome:
    for key, value in job.SESSION_CONF.items():
        spark.conf.set(key, value)
    if SINKS[compiled.pipeline.sink.connector].writes_table:
        with tempfile.TemporaryDirectory(prefix="pipec-test-") as tmp:
            files = Files(_batches, write_given_files)
            return Outcome(*run_table_case(spark, job, compiled, case, Path(tmp), files, RECORD_ERROR, sink_records))
    with tempfile.TemporaryDirectory(prefix="pipec-test-") as tmp:
        try:
            run = _run_files if SOURCES[compiled.pipeline.source.connector].reads_files else _run_rows
            rows, counts = run(spark, job, compiled, case, Path(tmp))
        except GivenProblem as problem:
            return Outcome(False, (f"  {problem}",))
        except Exception as exc:  # a record error surfaces as a failed Spark job; the job's own line says why
            why = job.failure(exc)
            if case.expect_error is not None and why.startswith(RECORD_ERROR):
                return Outcome(True)
            return Outcome(False, (f"  the job failed: {why}",))
    rows, dead = split_rows(rows)  # errors.tolerance: all: records with a record error are dead letters
    if case.expect_error is not None:
        if dead:
            return Outcome(True)
        return Outcome(
            False, (f"  expected a record error ({case.expect_error}), but {len(rows)} record(s) were written",)
        )
    lines = check_dead_letters(compiled, case, dead)
    if case.expect_dead_letters is not None:
        lines += check_counts(counts, len(rows), len(dead))
    actual, fields = sink_records(compiled, rows, spark, case.wire)
    mismatch = compare([(r.loc.line, r.fields) for r in case.expect], actual, ordered="topic" in fields)
    lines += mismatch.lines() if mismatch else []
    return Outcome(not lines, tuple(lines))


def quiet_start(job: ModuleType):
    """A job's start_quietly, its log named for the test run: `pipec test` starts Spark in one line too."""
    job.SPARK_LOG = os.environ.get("PIPEC_SPARK_LOG") or os.path.join(tempfile.gettempdir(), "pipec-test-spark.log")
    return job.start_quietly


def run_tests(
    compiled_list: list[Compiled], files: dict[str, str], spark=None, out=sys.stdout, verbose: bool = False
) -> bool:
    """Run every case; print one PASS/FAIL line each (with a diff on failure). True when all pass. The Spark this
    starts says one line on stderr (`verbose`: its own output)."""
    cases = [(c, t) for c in compiled_list for t in c.pipeline.tests]
    if not cases:
        print("no tests: found in the pipelines", file=out)
        return True
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="pipec-jobs-") as tmp:
        jobs = {}
        for name, text in files.items():
            (Path(tmp) / name).write_text(text, encoding="utf-8")
            jobs[name] = load_job(Path(tmp) / name)
        # record tests need no broker: only the format packages (spark-avro), not the Kafka connector; each job
        # picks their coordinates for the installed pyspark, as it does when it runs
        import pyspark

        release = os.environ.get(PACKAGES_VERSION_ENV)
        packages = {
            p for job in jobs.values() for p in job.spark_packages(pyspark.__version__, release) if KAFKA not in p
        }
        tables = any(hasattr(job, "sink_table") for job in jobs.values())
        table_packages, conf = table_settings(pyspark.__version__) if tables else ([], {})
        start = None if verbose else quiet_start(next(iter(jobs.values())))
        session = spark or local_session(packages=sorted(packages | set(table_packages)), conf=conf, start=start)
        try:
            for compiled, case in cases:
                job = jobs[f"{compiled.pipeline.name}.py"]
                runtimes = getattr(job, "TABLE_RUNTIMES", None)  # a job carries only the settings its runtime reads
                if runtimes and not runtimes.get(line_of(session.version)):
                    lines = ", ".join(line for line, runtime in runtimes.items() if runtime)
                    outcome = Outcome(
                        False,
                        (
                            f"  the table format publishes no runtime for Spark {session.version}; "
                            f"Spark lines with one: {lines}",
                        ),
                    )
                elif line_key(line_of(session.version)) < line_key(job.SPARK_NEEDED):
                    outcome = Outcome(
                        False, (f"  the job needs Spark {job.SPARK_NEEDED} or newer; this is Spark {session.version}",)
                    )
                else:
                    outcome = run_case(session, job, compiled, case)
                label = f"{compiled.pipeline.file}:{case.loc.line} {case.name}"
                print(f"{'PASS' if outcome.passed else 'FAIL'} {label}", file=out)
                for line in outcome.lines:
                    print(line, file=out)
                passed += outcome.passed
                failed += not outcome.passed
        finally:
            if spark is None:  # the session this run started: stop its JVM, leave nothing behind
                stop_local_session(session)
    print(f"{passed} passed, {failed} failed", file=out)
    return failed == 0


__all__ = ["Outcome", "load_job", "run_case", "run_tests", "show"]
