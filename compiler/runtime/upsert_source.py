"""An upsert-kafka source: records keyed by their primary key, read as a table (batch)."""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F


def keyed(raw: DataFrame) -> DataFrame:
    """Upsert rows need a key: a record without one cannot update the table (a record error, never a silent drop)."""
    message = F.format_string(
        "upsert-kafka source: a record without a key cannot update the table (topic %s, partition %s, offset %s)",
        F.col("topic"),
        F.col("partition"),
        F.col("offset"),
    )
    return raw.withColumn(
        "key", F.when(F.col("key").isNull(), F.raise_error(message)).otherwise(F.col("key"))
    )


def upsert_table(raw: DataFrame) -> DataFrame:
    """The table at the end of the topic: each key's last record by partition and offset; deleted keys are absent."""
    latest = F.max_by(F.struct(*raw.columns), F.struct("partition", "offset")).alias("latest")
    table = keyed(raw).groupBy("key").agg(latest).select("latest.*")
    return table.where(F.col("value").isNotNull())
