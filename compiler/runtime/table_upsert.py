"""A table sink's upsert (apply: upsert, SCD type 1): per key the change with the highest sequence wins, within the
micro-batch and against the table; `<table>__tombstones` remembers deleted keys with their delete's sequence, so an
older change never revives one (docs/tables.md). A key has a row or a tombstone, never both."""

from __future__ import annotations

from pyspark.sql import DataFrame, Observation, SparkSession, Window
from pyspark.sql import functions as F

from .batch_counts import SINK_COUNTS
from .table_merge import TableMerge

# tombstones tables this process has seen data files in (or written to)
_TOMBSTONED: set[str] = set()


class TableUpsert(TableMerge):
    """Upserting changes (a part of `Table`)."""

    def apply_rows(self, rows: DataFrame, batch_id: int | None) -> None:
        """Upsert the changes into the prepared table; its counts."""
        self.prepare(rows.sparkSession)
        SINK_COUNTS.update(self.upsert(rows, batch_id))

    def upsert(self, rows: DataFrame, batch_id: int | None) -> dict:
        """SCD type 1: per key the change with the highest sequence wins, within the batch and against the table
        (a tie: a delete, else the first to arrive); a change not newer than the key's row or tombstone changes
        nothing, so a replayed micro-batch changes nothing. Then one MERGE into the table, one into its tombstones
        when a key is deleted or revived. Delta counts from its MERGE's own result; Iceberg classifies first.
        """
        if self.format != "delta":
            return self.upsert_classified(rows)
        spark = rows.sparkSession
        deleting, before = F.col("__op") == F.lit("-D"), F.col("__op") == F.lit("-U")
        newest = Window.partitionBy(*self.key, before).orderBy(
            F.col("__SEQUENCE").desc(), deleting.desc(), F.col("__ORDER")
        )
        gone_at, delete = F.col("__GONE_AT"), F.col("__delete")
        # a candidate: its key's newest change, newer than the key's tombstone (the MERGE compares it with the row)
        candidate = (
            ~before & (F.col("__rank") == 1) & (gone_at.isNull() | (F.col("__SEQUENCE") > gone_at))
        )
        counted = Observation()
        # materialized once (the upstream read once, the MERGE source deterministic), counted as it is; few
        # DataFrame steps, as each costs the driver an analysis
        added = {"__delete": deleting, "__rank": F.row_number().over(newest)}
        batch = self.once(
            self.with_tombstones(rows, added).observe(
                counted,
                F.count(F.lit(1)).alias("rows"),
                F.count(F.when(before, True)).alias("filtered"),
                F.count(F.when(candidate & ~delete, True)).alias("changes"),
                F.count(F.when(candidate & delete, True)).alias("deletes"),
                F.count(F.when(candidate & ~delete & gone_at.isNotNull(), True)).alias("revived"),
            )
        )
        n = counted.get
        stored = [*self.values, "__SEQUENCE"]
        # the MERGE's source: the stored columns, and what the tombstones' MERGE needs when it runs
        kept = [*stored, "__delete", "__GONE_AT"] if n["deletes"] or n["revived"] else stored
        source = batch.where(candidate & ~delete).select(*kept)
        deleted = 0
        if n["deletes"]:
            applied, deleted = self.applied_deletes(spark, batch.where(candidate & delete))
            source = source.unionByName(applied.select(*kept))
        table = {"inserted": 0, "updated": 0}
        if n["changes"] or deleted:
            change = "NOT s.__delete AND " if deleted else ""  # without deletes, no clause for them
            clauses = [
                f"WHEN MATCHED AND {change}s.__SEQUENCE > t.__SEQUENCE THEN UPDATE SET "
                + self.assignments(stored),
                f"WHEN NOT MATCHED {'AND NOT s.__delete ' if deleted else ''}THEN "
                + self.insert(stored),
            ]
            if deleted:
                clauses.insert(
                    0, "WHEN MATCHED AND s.__delete AND s.__SEQUENCE >= t.__SEQUENCE THEN DELETE"
                )
            table = self.merge_counted(spark, source, clauses, batch_id)
        if deleted or n["revived"]:  # a delete's tombstone, a revived key's dropped
            self.remember(spark, source.where(F.col("__delete") | gone_at.isNotNull()))
        applied = table["inserted"] + table["updated"] + deleted
        return self.fate_counts(
            {
                "inserted": table["inserted"],
                "updated": table["updated"],
                "deleted": deleted,
                "filtered": n["filtered"],
                "superseded": n["rows"] - n["filtered"] - applied,
            }
        )

    def with_tombstones(self, rows: DataFrame, added: dict) -> DataFrame:
        """The rows with the `added` columns and their key's tombstone's sequence (`__GONE_AT`, null without one):
        a join with the tombstones; null without reading them while their table has no data file (its Delta
        snapshot's file count, no job once the snapshot is loaded; a table seen with tombstones is not asked again).
        """
        spark = rows.sparkSession
        if self.tombstones not in _TOMBSTONED:
            if not spark.sql(f"DESCRIBE DETAIL {self.tombstones}").collect()[0]["numFiles"]:
                return rows.withColumns(
                    {**added, "__GONE_AT": F.lit(None).cast(self.columns["__SEQUENCE"])}
                )
            _TOMBSTONED.add(self.tombstones)
        gone = spark.read.table(self.tombstones).select(
            *self.key, F.col("__SEQUENCE").alias("__GONE_AT")
        )
        return rows.withColumns(added).join(gone, self.key, "left")

    def applied_deletes(self, spark: SparkSession, deletes: DataFrame) -> tuple[DataFrame, int]:
        """The deletes that apply (no row for the key, or one not newer), materialized, and how many: a probe of the
        table's key and sequence columns for the deleted keys only."""
        rows_at = (
            spark.read.table(self.ref)
            .select(*self.key, F.col("__SEQUENCE").alias("__ROW_AT"))
            .join(F.broadcast(deletes.select(*self.key)), self.key, "left_semi")
        )
        row_at = F.col("__ROW_AT")
        counted = Observation()
        applied = self.once(
            deletes.join(rows_at, self.key, "left")
            .where(row_at.isNull() | (F.col("__SEQUENCE") >= row_at))
            .drop("__ROW_AT")
            .observe(counted, F.count(F.lit(1)).alias("rows"))
        )
        return applied, counted.get["rows"]

    def remember(self, spark: SparkSession, changes: DataFrame) -> None:
        """Into the tombstones: a delete's sequence (a new tombstone, or a newer one), a revived key's tombstone
        dropped."""
        _TOMBSTONED.add(self.tombstones)
        self.merge(
            spark,
            changes.select(*self.key, "__SEQUENCE", "__delete"),
            self.tombstones,
            self.on_key(),
            [
                "WHEN MATCHED AND s.__delete THEN UPDATE SET t.__SEQUENCE = s.__SEQUENCE",
                "WHEN MATCHED THEN DELETE",
                "WHEN NOT MATCHED AND s.__delete THEN " + self.insert([*self.key, "__SEQUENCE"]),
            ],
            self.materialized(),  # the changes come from the materialized pass
        )

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

    def upsert_classified(self, rows: DataFrame) -> dict:
        """The upsert where the MERGE reports no exact counts (Iceberg): each change classified against its key's
        state first (a read of the table's and the tombstones' key and sequence), then the MERGEs.
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
        changes = self.once(changes.withColumn("__fate", fate))
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
            self.remember(spark, written.where(remember))
        return self.fate_counts(fates)


# The job's `Table` applies rows with this part's class: the part its apply mode picks (tables.py)
TableApply = TableUpsert
