"""The one local SparkSession of a `pipec test` run (and of the test suite)."""

from __future__ import annotations

import os
import time


def local_session(app: str = "pipec-test"):
    """local[2], few shuffle partitions, no UI; Python's clock in UTC so collected timestamps read as UTC."""
    os.environ["TZ"] = "UTC"
    time.tzset()
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master("local[2]")
        .appName(app)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.ansi.enabled", "true")
        .getOrCreate()
    )
