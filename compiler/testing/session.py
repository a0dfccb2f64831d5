"""The one local SparkSession of a `pipec test` run (and of the test suite)."""

from __future__ import annotations

import logging
import os
import time


def local_session(app: str = "pipec-test", packages: list[str] | tuple[str, ...] = ()):
    """local[2], few shuffle partitions, no UI; Python's clock in UTC so collected timestamps read as UTC.
    `packages` are Maven coordinates Spark fetches (and caches) at start, e.g. spark-avro."""
    os.environ["TZ"] = "UTC"
    time.tzset()
    # PySpark logs every failed query's full context as JSON; a record test that expects an error prints its own line
    logging.getLogger("DataFrameQueryContextLogger").setLevel(logging.CRITICAL)
    from pyspark.sql import SparkSession

    from ..emit import JVM_OPTIONS

    builder = SparkSession.builder
    if packages:
        builder = builder.config("spark.jars.packages", ",".join(sorted(set(packages))))
    session = (
        builder.master("local[2]")
        .appName(app)
        .config("spark.driver.extraJavaOptions", JVM_OPTIONS)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.ansi.enabled", "true")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("FATAL")  # failed tasks of expect_error cases would print JVM stack traces
    return session
