"""A record error: a native Column that fails the record, saying why and where (emit/render.py IDIOMS)."""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F


def record_error(message: str) -> Column:
    """A record error: `message` (with % written %%), then the record's topic, partition and offset (named, not
    `F.col`: a third of the calls to the JVM)."""
    where = " (topic %s, partition %s, offset %s)"
    return F.raise_error(F.format_string(message + where, "topic", "partition", "offset"))
