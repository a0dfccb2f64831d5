"""The sink's rows and the dead letters in two writes (a dead-letter queue the sink's write cannot carry)."""

from __future__ import annotations

import argparse

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from .job_names import write_dead_letters, write_good


def write_batch(rows: DataFrame, args: argparse.Namespace) -> None:
    """One batch (or micro-batch), read once: good rows to the sink (write_good), a row with a record error to the
    dead-letter queue (write_dead_letters) instead."""
    rows = rows.persist()
    try:
        failed = F.col("__error").isNotNull()
        write_good(rows.where(~failed).drop("__error", "__raw"), args)
        write_dead_letters(rows.where(failed), args)
    finally:
        rows.unpersist()
