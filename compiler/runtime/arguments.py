"""The job's command line, and its paths as it means them (also under Spark Connect)."""

from __future__ import annotations

import argparse
import os
import re

import pyspark

from .job_names import OPTIONS, PIPELINE, STREAMING
from .session import SPARK_LOG
from .spark_lines import spark_packages  # or .no_connectors' (by the job)

# The client's directory and whether it uses Spark Connect (micro-batch functions carry them to the server)
_CLIENT = (os.getcwd(), "SPARK_REMOTE" in os.environ)


def location(path: str | None) -> str | None:
    """Under Spark Connect, a relative local path made absolute against the client's working directory."""
    if path and _CLIENT[1] and not re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", path):
        return os.path.normpath(os.path.join(_CLIENT[0], path))
    return path


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """OPTIONS, --master, --conf and --verbose, and the job's mode; its paths as it means them (`location`)."""
    release = os.environ.get("PIPEC_SPARK_PACKAGES_VERSION")
    packages = ",".join(spark_packages(pyspark.__version__, release)) or "none"
    parser = argparse.ArgumentParser(
        prog=PIPELINE,
        # argparse %-formats a description that holds %(prog)
        description=d.replace("%", "%%") if "%(prog)" in (d := __doc__.split("\n")[0]) else d,
        formatter_class=argparse.RawDescriptionHelpFormatter,  # the coordinates unbroken
        epilog=f"Spark packages for this pyspark ({pyspark.__version__}):\n  {packages}\nA JVM the job starts gets "
        "them itself; give them to spark-submit as --packages; a Spark Connect server needs them.",
    )
    for flag, text in OPTIONS.items():
        parser.add_argument(flag, help=text)
    parser.add_argument(
        "--master",
        help="Spark master of a JVM the job starts itself (default local[*]); ignored under spark-submit, whose "
        "--master stands, and under Spark Connect (SPARK_REMOTE)",
    )
    parser.add_argument("--conf", action="append", default=[], metavar="K=V", help="Spark setting")
    parser.add_argument(
        "--verbose",
        action="store_true",
        help=f"show the output of a JVM the job starts (Ivy's resolution, Spark's warnings); default: {SPARK_LOG}",
    )
    parser.set_defaults(streaming=STREAMING, spark_packages_version=release)
    args = parser.parse_args(argv)
    for name in ("checkpoint", "source_path", "sink_path"):
        setattr(args, name, location(getattr(args, name, None)))
    return args
