"""A table sink's upsert (apply: upsert, SCD type 1): per key the change with the highest sequence wins, within the
micro-batch and against the table; `<table>__tombstones` remembers deleted keys with their delete's sequence, so an
older change never revives one (docs/tables.md)."""

from __future__ import annotations

from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F

from .table_merge import TableMerge


class TableUpsert(TableMerge):
    """Upserting changes (a part of `Table`)."""

    def current(self, spark: SparkSession, keys: DataFrame) -> DataFrame:
        """Each given key's state: the sequence of its row (`__GONE` false) or of its tombstone (true), the newer
        of the two, a tombstone at a tie."""
        rows = spark.read.table(self.ref).select(
            *self.key, "__SEQUENCE", F.lit(False).alias("__GONE")
        )
        gone = spark.read.table(self.tombstones).select(
            *self.key, "__SEQUENCE", F.lit(True).alias("__GONE")
        )
        both = rows.unionByName(gone).join(F.broadcast(keys), self.key, "left_semi")
        newest = Window.partitionBy(*self.key).orderBy(
            F.col("__SEQUENCE").desc(), F.col("__GONE").desc()
        )
        both = both.withColumn("__n", F.row_number().over(newest)).where(F.col("__n") == 1)
        return both.select(*self.key, F.col("__SEQUENCE").alias("__STATE"), "__GONE")

    def upsert(self, rows: DataFrame) -> dict:
        """SCD type 1: per key the change with the highest sequence wins, within the batch and against the table
        (a tie: a delete, else the first to arrive); a change not newer than the key's row or tombstone changes
        nothing, so a replayed micro-batch changes nothing. Then one MERGE into the table, one into its tombstones.
        """
        spark = rows.sparkSession
        delete, before = F.col("__op") == F.lit("-D"), F.col("__op") == F.lit("-U")
        newest = Window.partitionBy(*self.key, before).orderBy(
            F.col("__SEQUENCE").desc(), delete.desc(), F.col("__ORDER")
        )
        changes = rows.withColumn("__delete", delete).withColumn(
            "__rank", F.row_number().over(newest)
        )
        keys = changes.where(~before).select(*self.key).distinct()
        changes = changes.join(self.current(spark, keys), self.key, "left")
        seq, state, gone = F.col("__SEQUENCE"), F.col("__STATE"), F.col("__GONE")
        applied = F.when(gone, seq > state).otherwise(
            seq >= state
        )  # a delete over the key's row or tombstone
        fate = (
            F.when(before, F.lit("filtered"))
            .when(F.col("__rank") > 1, F.lit("superseded"))
            .when(state.isNull(), F.when(delete, F.lit("deleted")).otherwise(F.lit("inserted")))
            .when(delete, F.when(applied, F.lit("deleted")).otherwise(F.lit("superseded")))
            .when(seq > state, F.when(gone, F.lit("inserted")).otherwise(F.lit("updated")))
            .otherwise(F.lit("superseded"))
        )
        # materialized once: the counts and both MERGEs read the same fates, and the MERGE source is deterministic
        # (Iceberg refuses a non-deterministic one: the arrival order is monotonically_increasing_id)
        changes = changes.withColumn("__fate", fate).localCheckpoint()
        fates: dict[str, int] = {}
        # a tombstone to write (a delete) or drop (a key revived)
        remember = F.col("__delete") | F.coalesce(gone, F.lit(False))
        for row in changes.groupBy("__fate", remember.alias("__remember")).count().collect():
            fates[row["__fate"]] = fates.get(row["__fate"], 0) + row["count"]
            if row["__remember"] and row["__fate"] in ("inserted", "deleted"):
                fates["remembered"] = fates.get("remembered", 0) + row["count"]
        written = changes.where(F.col("__fate").isin("inserted", "updated", "deleted"))
        if fates.get("inserted", 0) + fates.get("updated", 0) + fates.get("deleted", 0):
            stored = [*self.values, "__SEQUENCE"]
            self.merge(
                spark,
                written,
                self.ref,
                self.on_key(),
                [
                    "WHEN MATCHED AND s.__delete AND s.__SEQUENCE >= t.__SEQUENCE THEN DELETE",
                    "WHEN MATCHED AND NOT s.__delete AND s.__SEQUENCE > t.__SEQUENCE THEN UPDATE SET "
                    + self.assignments(stored),
                    "WHEN NOT MATCHED AND NOT s.__delete THEN " + self.insert(stored),
                ],
            )
        if fates.get("remembered", 0):
            self.merge(
                spark,
                written.where(remember),
                self.tombstones,
                self.on_key(),
                [
                    "WHEN MATCHED AND s.__delete THEN UPDATE SET t.__SEQUENCE = s.__SEQUENCE",
                    "WHEN MATCHED THEN DELETE",
                    "WHEN NOT MATCHED AND s.__delete THEN "
                    + self.insert([*self.key, "__SEQUENCE"]),
                ],
            )
        return self.fate_counts(fates)
