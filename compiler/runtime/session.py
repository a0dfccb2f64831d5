"""The job's own Spark session."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import pyspark
from pyspark.sql import SparkSession

from .job_names import PIPELINE, SESSION_CONF, SPARK_NEEDED, TABLE_SESSION
from .spark_lines import check_connectors, spark_packages  # or .no_connectors' (by the job)

# A JVM the job starts compiles Spark's large generated methods too (long chains run faster)
JVM_OPTIONS = "-XX:-DontCompileHugeMethods"
SPARK_LOG = os.environ.get("PIPEC_SPARK_LOG") or os.path.join(
    tempfile.gettempdir(), f"pipec-{PIPELINE}-spark.log"
)


def warn(text: str, end: str = "\n") -> None:
    print(text, end=end, file=sys.stderr, flush=True)


def session(args: argparse.Namespace) -> SparkSession:
    """The job's session (SESSION_CONF) on a Spark new enough; a JVM it starts itself, quietly."""
    conf = dict(item.split("=", 1) for item in args.conf)
    if "SPARK_REMOTE" not in os.environ:  # no Python call site kept per Column method built
        conf = {"spark.python.sql.dataFrameDebugging.enabled": "false", **conf}
    embedded = "PYSPARK_GATEWAY_PORT" not in os.environ and "SPARK_REMOTE" not in os.environ
    packages = spark_packages(pyspark.__version__, args.spark_packages_version) if embedded else []
    builder = SparkSession.builder.appName(PIPELINE)
    if embedded:
        builder = builder.master(args.master or "local[*]")
        java = " ".join(filter(None, (JVM_OPTIONS, conf.get("spark.driver.extraJavaOptions"))))
        jars = {"spark.jars.packages": ",".join(packages)} if packages else {}
        conf = {"spark.ui.showConsoleProgress": "false", **TABLE_SESSION, **jars, **conf}
        conf["spark.driver.extraJavaOptions"] = java
    elif args.master:
        warn(f"{PIPELINE}: --master {args.master} ignored under spark-submit and Spark Connect")
    builder = builder.config(map={**conf, **SESSION_CONF})
    quiet = embedded and not args.verbose and not SparkSession.getActiveSession()  # a JVM starts
    spark = start_quietly(builder, packages) if quiet else builder.getOrCreate()
    for key, value in SESSION_CONF.items():
        spark.conf.set(key, value)
    if tuple(map(int, spark.version.split(".")[:2])) < tuple(map(int, SPARK_NEEDED.split("."))):
        raise SystemExit(
            f"{PIPELINE}: needs Spark {SPARK_NEEDED} or newer for its functions, not {spark.version}"
        )
    check_connectors(spark)
    return spark


def start_quietly(builder, packages: list[str]) -> SparkSession:
    """Start the JVM saying one line ("resolving spark-avro 4.2.0 ... done in 1.2 s"); its output to SPARK_LOG."""
    names = ", ".join(f"{c.split(':')[1].rsplit('_', 1)[0]} {c.split(':')[2]}" for c in packages)
    warn(f"resolving {names} ..." if names else f"starting Spark {pyspark.__version__} ...", end="")
    began, saved, spark = time.monotonic(), os.dup(2), None
    try:
        with open(SPARK_LOG, "wb") as log:
            os.dup2(log.fileno(), 2)  # the JVM inherits it
            spark = builder.getOrCreate()
    finally:
        os.dup2(saved, 2)  # Python's stderr back, once
        os.close(saved)
        if spark is None:  # failed: the last line of Spark's output that says why
            with open(SPARK_LOG, encoding="utf-8", errors="replace") as log:
                why = [line.strip() for line in log if line.startswith(("Exception", "Error"))]
            warn(f" failed{': ' + why[-1] if why else ''} (Spark's output: {SPARK_LOG})")
    warn(f" done in {time.monotonic() - began:.1f} s")
    return spark
