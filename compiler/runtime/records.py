"""Short names for the Column expressions a JSON decode repeats: each builds the same native Column the expression it
names would (emit/render.py IDIOMS writes the call in its place)."""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

# the field a PERMISSIVE json decoder fills with a payload it could not parse
CORRUPT = "__pipec_corrupt"


def parsed_json(payload: Column, ddl: str) -> Column:
    """The payload's JSON text parsed into `ddl`, whose last field CORRUPT keeps a payload that does not parse."""
    options = {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": CORRUPT}
    return F.from_json(payload.cast("STRING"), ddl, options)
