"""The sink's rows and the dead letters in one write: a Kafka sink, and dead letters to a topic through the same
producer settings."""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from .dead_letters import dead_letter_headers


def with_dead_letters(rows: DataFrame, topic: str) -> DataFrame:
    """The sink's rows, and in place of each row with a record error its dead letter (the record as read, to the
    dead-letter topic): Spark's Kafka sink writes each row to its own `topic`: one write."""
    failed = F.col("__error").isNotNull()
    raw = F.col("__raw")
    letter = {
        "key": raw.getField("key"),
        "value": raw.getField("value"),
        "topic": F.lit(topic),
        "headers": dead_letter_headers(),
    }
    kept = [name for name in rows.columns if name not in ("__error", "__raw")]
    return rows.select(
        *(
            F.when(failed, letter.get(name, F.lit(None))).otherwise(F.col(name)).alias(name)
            for name in kept
        )
    )
