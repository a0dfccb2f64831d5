"""The job's command line."""

from __future__ import annotations

import argparse
import os

import pyspark

from .job_names import PIPELINE, STREAMING, TRIGGER
from .paths import location
from .session import SPARK_LOG
from .spark_lines import spark_packages  # or .no_connectors' (by the job)

OPTIONS = {  # each overrides the YAML's setting
    "--bootstrap-servers": "Kafka bootstrap servers",
    "--checkpoint": "streaming checkpoint folder",
    "--trigger": "available-now | once | 'processing-time: 10 seconds' | real-time (Spark 4.1+)",
    "--master": "Spark master of a JVM the job starts itself (default local[*]); ignored under spark-submit, whose "
    "--master stands, and under Spark Connect (SPARK_REMOTE)",
    "--spark-packages-version": "connector release of the Spark line (env PIPEC_SPARK_PACKAGES_VERSION)",
    "--source-path": "files or table source: read from this path (Iceberg: its catalog's warehouse)",
    "--sink-path": "files or table sink: write to this path (Iceberg: its catalog's warehouse)",
}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The options, the job's mode and default trigger, its paths as the job means them (`location`)."""
    release = os.environ.get("PIPEC_SPARK_PACKAGES_VERSION")
    packages = ",".join(spark_packages(pyspark.__version__, release)) or "none"
    description = __doc__.split("\n")[0]  # argparse %-formats one holding %(prog)
    parser = argparse.ArgumentParser(
        prog=PIPELINE,
        description=description.replace("%", "%%") if "%(prog)" in description else description,
        formatter_class=argparse.RawDescriptionHelpFormatter,  # the coordinates unbroken
        epilog=f"Spark packages for this pyspark ({pyspark.__version__}):\n  {packages}\nA JVM the job starts gets "
        "them itself; give them to spark-submit as --packages; a Spark Connect server needs them.",
    )
    for flag, text in OPTIONS.items():
        parser.add_argument(flag, help=text)
    parser.add_argument("--conf", action="append", default=[], metavar="K=V", help="Spark setting")
    parser.add_argument(
        "--verbose",
        action="store_true",
        help=f"show the output of a JVM the job starts (Ivy's resolution, Spark's warnings); default: {SPARK_LOG}",
    )
    args = parser.parse_args(argv)
    args.streaming, args.trigger = STREAMING, args.trigger or TRIGGER
    args.spark_packages_version = args.spark_packages_version or release
    for name in ("checkpoint", "source_path", "sink_path"):
        setattr(args, name, location(getattr(args, name)))
    return args
