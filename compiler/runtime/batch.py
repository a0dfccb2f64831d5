"""A batch job's run."""

from __future__ import annotations

import argparse

from pyspark.sql import SparkSession

from .batch_counts import batch_lines
from .counts import Counts, say
from .job_names import read_source
from .straight_through import start


def run(spark: SparkSession, args: argparse.Namespace) -> None:
    """Read, transform and write the batch, then print its counts."""
    counts = Counts(False)
    start(read_source(spark, args), args, counts)
    say(batch_lines(counts, "batch"))
