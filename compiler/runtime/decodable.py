"""An upsert-kafka source under tolerance: all: only records that decode reach the table or the changelog state."""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from .job_names import decode_errors
from .upsert_source import upsert_table


def decodable(raw: DataFrame) -> tuple[DataFrame, DataFrame]:
    """(the records whose key and value decode, the others), both as read. A record that goes to the dead letters
    never becomes its key's image (the key keeps the one it had)."""
    checked = decode_errors(raw)
    decoded = F.col("__error").isNull()
    return checked.where(decoded).drop("__error"), checked.where(~decoded).drop("__error")


def decodable_upsert_table(raw: DataFrame) -> DataFrame:
    """`upsert_table` of the records that decode; the others follow it, as read, for the dead letters."""
    raw, undecodable = decodable(raw)
    return upsert_table(raw).unionByName(undecodable)
