"""A decoded value, or a record error where its payload did not parse (emit/render.py IDIOMS)."""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from .records import CORRUPT


def unless_corrupt(parsed: Column, failed: Column) -> Column:
    """`parsed`, or `failed` where its payload did not parse."""
    return F.when(parsed.getField(CORRUPT).isNotNull(), failed).otherwise(parsed)
