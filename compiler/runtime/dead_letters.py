"""Dead letters (errors.tolerance: all): a record with a record error goes, untouched, to the dead-letter queue."""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from .job_names import (
    DEAD_LETTER_CONTEXT,
    FILE_LINES,
    LOG_DEAD_LETTERS,
    LOG_RECORDS,
    PIPELINE,
)

HEADERS = "ARRAY<STRUCT<key: STRING, value: BINARY>>"


def dead_letter_metrics() -> list[Column]:
    """What the counts observe at the sink: the dead letters, and (log.enable) the message of the one of the lowest
    offset, gathered with the counts (one aggregate: each more costs some 15 ms a micro-batch)."""
    raw, error = F.col("__raw"), F.col("__error")
    if not LOG_DEAD_LETTERS:
        return [F.count(error).alias("dead")]
    text = error.getField("message")
    # with the records: the key and value, base64 on one line (Spark's base64 breaks lines every 76 characters)
    if LOG_RECORDS:
        key, value = (F.regexp_replace(F.base64(raw[c]), "\r\n", "") for c in ("key", "value"))
        text = F.format_string("%s key(base64)=%s value(base64)=%s", text, key, value)
    first = F.min_by(text, F.when(error.isNotNull(), raw.getField("offset")))
    return [F.count(error).alias("dead"), first.alias("first")]


def dead_letter_headers() -> Column:
    """The record's own headers, then (DEAD_LETTER_CONTEXT) Kafka Connect's __connect.errors.* context headers, and
    for a line of a file its file and number."""
    raw = F.col("__raw")
    if not DEAD_LETTER_CONTEXT:
        return raw.getField("headers")
    context = {
        "__connect.errors.topic": raw.getField("topic"),
        "__connect.errors.partition": raw.getField("partition").cast("STRING"),
        "__connect.errors.offset": raw.getField("offset").cast("STRING"),
        "__connect.errors.stage": F.col("__error").getField("stage"),
        "__connect.errors.class.name": F.col("__error").getField("class"),
        "__connect.errors.exception.message": F.col("__error").getField("message"),
        "__connect.errors.connector.name": F.lit(PIPELINE),
    }
    if FILE_LINES:
        context["__pipec.errors.file.path"] = raw.getField("file")
        context["__pipec.errors.file.line"] = raw.getField("offset").cast("STRING")
    added = [
        F.struct(F.lit(k).alias("key"), v.cast("BINARY").alias("value")) for k, v in context.items()
    ]
    return F.concat(F.coalesce(raw.getField("headers"), F.array().cast(HEADERS)), F.array(*added))
