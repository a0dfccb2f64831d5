"""Dead letters to a Kafka topic (deadletterqueue.topic.name)."""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from .dead_letters import dead_letter_headers


def dead_letter_records(dead: DataFrame) -> DataFrame:
    """Each dead letter as a Kafka record: the record's key and value as read, and its headers."""
    raw = F.col("__raw")
    return dead.select(
        raw.getField("key").alias("key"),
        raw.getField("value").alias("value"),
        dead_letter_headers().alias("headers"),
    )
