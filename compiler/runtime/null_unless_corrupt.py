"""A decoded value that may be the JSON literal null, or a record error where its payload did not parse (emit/render.py
IDIOMS)."""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from .records import CORRUPT

JSON_NULL = r"\A[\t\n\r ]*null[\t\n\r ]*\z"  # a payload that is the JSON literal null


def null_unless_corrupt(parsed: Column, failed: Column) -> Column:
    """`parsed`, or where its payload did not parse, null for the JSON literal null and else `failed`."""
    corrupt = parsed.getField(CORRUPT)
    null_or_failed = F.when(corrupt.rlike(JSON_NULL), F.lit(None)).otherwise(failed)
    return F.when(corrupt.isNotNull(), null_or_failed).otherwise(parsed)
