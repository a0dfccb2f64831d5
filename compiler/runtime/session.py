"""The job's own Spark session."""

from __future__ import annotations

import argparse
import os
import sys

import pyspark
from pyspark.sql import SparkSession

from .job_names import PIPELINE, SESSION_CONF, SPARK_NEEDED
from .spark_lines import check_connectors, spark_packages  # or .no_connectors' (by the job)

# For a JVM the job starts itself: compile Spark's large generated methods too (long chains run faster)
JVM_OPTIONS = "-XX:-DontCompileHugeMethods"


def session(args: argparse.Namespace) -> SparkSession:
    """The job's own session (SESSION_CONF: UTC, ANSI), on a Spark new enough; a JVM it starts itself also gets the
    master, the connectors of its Spark and JVM_OPTIONS (spark-submit's, Spark Connect's stand)."""
    builder = SparkSession.builder.appName(PIPELINE)
    extra = dict(item.split("=", 1) for item in args.conf)
    if "PYSPARK_GATEWAY_PORT" not in os.environ and "SPARK_REMOTE" not in os.environ:
        builder = builder.master(args.master or "local[*]").config(
            "spark.ui.showConsoleProgress", "false"
        )
        packages = spark_packages(pyspark.__version__, args.spark_packages_version)
        if packages:
            builder = builder.config("spark.jars.packages", ",".join(packages))
        options = "spark.driver.extraJavaOptions"
        extra[options] = " ".join(filter(None, (JVM_OPTIONS, extra.get(options))))
    elif args.master:
        print(
            f"{PIPELINE}: --master {args.master} ignored: spark-submit or Spark Connect chose the master",
            file=sys.stderr,
        )
    for key, value in {**extra, **SESSION_CONF}.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    for key, value in SESSION_CONF.items():
        spark.conf.set(key, value)
    line = ".".join(spark.version.split(".")[:2])
    if tuple(map(int, line.split("."))) < tuple(map(int, SPARK_NEEDED.split("."))):
        raise SystemExit(
            f"{PIPELINE}: needs Spark {SPARK_NEEDED} or newer for the functions it calls; this is Spark {spark.version}"
        )
    check_connectors(spark)
    return spark
