"""An upsert sink (upsert-kafka): Flink's reducing upsert writer over each micro-batch."""

from __future__ import annotations

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from .counts import Counts
from .job_names import DEAD_LETTERS


def upsert_fates(rows: DataFrame, counts: Counts | None = None) -> DataFrame:
    """Each row's fate in `__fate` over one micro-batch (or a batch run). `written`: its key's last change here (a
    `-D` as a tombstone); `superseded`: a later change of the same key (and topic) follows here; `filtered`: a `-U`,
    which an upsert sink never writes; `dead_lettered` (DEAD_LETTERS): a row with a record error, which supersedes
    nothing (its key's last good change is written). `counts` observes the fates."""
    before = F.col("__op") == F.lit("-U")
    keys, fate = ["topic", "key", before], F.when(before, F.lit("filtered"))
    if DEAD_LETTERS:
        failed = F.col("__error").isNotNull()
        keys, fate = (
            [*keys, failed],
            F.when(failed, F.lit("dead_lettered")).when(before, F.lit("filtered")),
        )
    by_key = Window.partitionBy(*keys).orderBy(F.col("__order").desc())
    fate = fate.when(F.row_number().over(by_key) > 1, F.lit("superseded")).otherwise(
        F.lit("written")
    )
    rows = rows.withColumn("__fate", fate)
    if not counts:
        return rows
    count = {
        name: F.count(F.when(F.col("__fate") == F.lit(name), 1)).alias(name)
        for name in ("superseded", "filtered")
    }
    return counts.mark(rows, "fates", *count.values())
