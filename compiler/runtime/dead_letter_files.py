"""Dead letters as JSON lines in a folder (deadletterqueue.path)."""

from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from .dead_letters import HEADERS, dead_letter_headers
from .job_names import FILE_LINES


def b64(column: Column) -> Column:
    """Base64 on one line (Spark's base64 breaks lines every 76 characters)."""
    return F.regexp_replace(F.base64(column), "\r\n", "")


def dead_letter_json(dead: DataFrame) -> DataFrame:
    """Each dead letter as one JSON line: the record as read (key, value and header values in base64), where it was
    (for a line of a file, also the file) and its error."""
    raw = F.col("__raw")
    where = ["topic", "partition", "offset", *(["file"] if FILE_LINES else []), "timestamp"]
    headers = F.transform(
        F.coalesce(dead_letter_headers(), F.array().cast(HEADERS)),
        lambda h: F.struct(h.getField("key").alias("key"), b64(h.getField("value")).alias("value")),
    )
    return dead.select(
        b64(raw.getField("key")).alias("key"),
        b64(raw.getField("value")).alias("value"),
        *(raw.getField(name).alias(name) for name in where),
        headers.alias("headers"),
        F.col("__error").alias("error"),
    )
