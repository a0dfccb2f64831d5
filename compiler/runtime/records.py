"""Short names for the Column expressions a JSON decode repeats: each builds the same native Column the expression it
names would (emit/render.py IDIOMS writes the call in its place)."""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

# the field a PERMISSIVE json decoder fills with a payload it could not parse
CORRUPT = "__pipec_corrupt"
JSON_NULL = r"\A[\t\n\r ]*null[\t\n\r ]*\z"  # a payload that is the JSON literal null


def parsed_json(payload: Column, ddl: str) -> Column:
    """The payload's JSON text parsed into `ddl`, whose last field CORRUPT keeps a payload that does not parse."""
    options = {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": CORRUPT}
    return F.from_json(payload.cast("STRING"), ddl, options)


def unless_corrupt(parsed: Column, failed: Column) -> Column:
    """`parsed`, or `failed` where its payload did not parse."""
    return F.when(parsed.getField(CORRUPT).isNotNull(), failed).otherwise(parsed)


def null_unless_corrupt(parsed: Column, failed: Column) -> Column:
    """`parsed`, or where its payload did not parse, null for the JSON literal null and else `failed`."""
    corrupt = parsed.getField(CORRUPT)
    null_or_failed = F.when(corrupt.rlike(JSON_NULL), F.lit(None)).otherwise(failed)
    return F.when(corrupt.isNotNull(), null_or_failed).otherwise(parsed)
