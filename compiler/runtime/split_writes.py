"""The sink's rows and the dead letters in two writes (a dead-letter queue the sink's write cannot carry)."""

from __future__ import annotations

import argparse

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from .job_names import write_dead_letters, write_good


def split(rows: DataFrame) -> tuple[DataFrame, DataFrame]:
    """(the sink's rows, the dead letters): a row with a record error goes to the dead-letter queue instead."""
    failed = F.col("__error").isNotNull()
    return rows.where(~failed).drop("__error", "__raw"), rows.where(failed)


def write_batch(rows: DataFrame, args: argparse.Namespace) -> None:
    """One batch (or micro-batch), read once: the sink's rows to write_good, the dead letters to write_dead_letters."""
    rows = rows.persist()
    try:
        good, dead = split(rows)
        write_good(good, args)
        write_dead_letters(dead, args)
    finally:
        rows.unpersist()
