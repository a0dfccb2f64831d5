"""The one local SparkSession of a `pipec test` run (and of the test suite)."""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import tempfile
import time

# The working folder of the JVM this process started: Spark 4.0.0 creates `artifacts/` in its JVM's working directory
# (SPARK-52396; 4.0.5 and 4.1 on use java.io.tmpdir), and any Spark resolves other relative paths there (a warehouse,
# derby.log), so the JVM gets a temporary folder of its own.
_jvm_folder: str | None = None


@contextlib.contextmanager
def _working_directory(folder: str | None):
    """Run the block in `folder` (a JVM started inside inherits it); None: where we are."""
    if folder is None:
        yield
        return
    here = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(here)


def table_settings(spark_version: str) -> tuple[list[str], dict[str, str]]:
    """The table formats' runtimes this Spark line has (Delta, Iceberg), and the session settings they need
    together: both SQL extensions, Delta's catalog as the session catalog, few partitions for Delta's log."""
    from ..connectors.table_formats import FORMATS, runtimes, session_settings
    from ..spark_versions import line_of

    formats = tuple(f for f in FORMATS if runtimes(f).get(line_of(spark_version)))
    packages = [runtimes(f)[line_of(spark_version)] for f in formats]
    conf = session_settings(formats)
    if formats:
        conf["spark.databricks.delta.snapshotPartitions"] = "2"
    return packages, conf


def local_session(
    app: str = "pipec-test", packages: list[str] | tuple[str, ...] = (), conf: dict[str, str] | None = None, start=None
):
    """local[2], few shuffle partitions, no UI; Python's clock in UTC so collected timestamps read as UTC.
    `packages` are Maven coordinates Spark fetches (and caches) at start, e.g. spark-avro; `conf` more settings. `start(builder, packages)`
    starts the session (a job's start_quietly: one line, the JVM's own output in a log), else getOrCreate."""
    global _jvm_folder
    os.environ["TZ"] = "UTC"
    time.tzset()
    # PySpark logs every failed query's full context as JSON; a record test that expects an error prints its own line
    logging.getLogger("DataFrameQueryContextLogger").setLevel(logging.CRITICAL)
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    from ..emit.job import JVM_OPTIONS
    from .frames import FOLDING_RULE

    builder = SparkSession.builder
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    if packages:
        builder = builder.config("spark.jars.packages", ",".join(sorted(set(packages))))
    starts_jvm = SparkContext._gateway is None
    if starts_jvm:
        _jvm_folder = tempfile.mkdtemp(prefix="pipec-spark-")
    with _working_directory(_jvm_folder if starts_jvm else None):
        builder = (
            builder.master("local[2]")
            .appName(app)
            .config("spark.driver.extraJavaOptions", JVM_OPTIONS)
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.ansi.enabled", "true")
            .config("spark.sql.optimizer.excludedRules", FOLDING_RULE)
        )
        session = start(builder, sorted(set(packages))) if start else builder.getOrCreate()
    session.sparkContext.setLogLevel("FATAL")  # failed tasks of expect_error cases would print JVM stack traces
    return session


def stop_local_session(session, timeout_s: float = 60.0) -> None:
    """Stop the session and the JVM this process started (it exits when its stdin closes), then remove the JVM's
    working folder. A later `local_session` starts a new JVM."""
    global _jvm_folder
    from pyspark import SparkContext

    session.stop()
    gateway = SparkContext._gateway
    if gateway is not None and _jvm_folder is not None:
        gateway.shutdown()
        gateway.proc.stdin.close()
        gateway.proc.wait(timeout=timeout_s)
        SparkContext._gateway = SparkContext._jvm = None
        shutil.rmtree(_jvm_folder, ignore_errors=True)
        _jvm_folder = None
