"""A batch job's run."""

from __future__ import annotations

import argparse

from pyspark.sql import SparkSession

from .counts import Counts
from .job_names import read_source
from .straight_through import start


def run(spark: SparkSession, args: argparse.Namespace) -> None:
    """Read, transform and write the batch, then print its counts."""
    counts = Counts(False)
    start(read_source(spark, args), args, counts)
    counts.report_batch()
