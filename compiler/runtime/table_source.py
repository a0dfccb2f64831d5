"""A table source (Delta Lake, Iceberg): the declared columns checked against the table when the job starts, then
its rows, or with read-change-feed its changes in Delta's change-feed shape (`_change_type`, `_commit_version`,
`_commit_timestamp`; an Iceberg changelog is read into the same shape). The pipeline part's decode lays them out as
records (docs/tables.md).
"""

from __future__ import annotations

import os

from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F

from .job_names import PIPELINE
from .table_sql import quoted, retyped, retyped_text, sql_text

# A change feed's columns, as Delta's change data feed returns them (an Iceberg changelog is read into this shape)
CHANGE_COLUMNS = {
    "_change_type": "STRING",
    "_commit_version": "BIGINT",
    "_commit_timestamp": "TIMESTAMP",
}
ICEBERG_CHANGES = {
    "INSERT": "insert",
    "DELETE": "delete",
    "UPDATE_BEFORE": "update_preimage",
    "UPDATE_AFTER": "update_postimage",
}


class SourceTable:
    """A table source: where the table is, the columns the pipeline reads (name -> DDL type), and whether it
    reads the table's rows or its changes (with `key`, Iceberg pairs a key's delete and insert as an update).
    """

    def __init__(self, format, path, name, catalog, change_feed, key, options, columns):
        self.format, self.path, self.name, self.catalog = format, path, name, catalog
        self.change_feed, self.key, self.options, self.columns = change_feed, key, options, columns

    def read(self, spark: SparkSession, streaming: bool) -> DataFrame:
        """The declared columns (and a change feed's), after checking them against the table."""
        for key, value in self.catalog.items():
            spark.conf.set(key, value)
        if self.change_feed and self.format == "iceberg":
            frame = self.iceberg_changes(spark)
        else:
            reader = spark.readStream if streaming else spark.read
            reader = reader.format(self.format).options(**self.options)
            if self.change_feed:
                reader = reader.option("readChangeFeed", "true")
                if not streaming and not {"startingVersion", "startingTimestamp"} & set(
                    self.options
                ):
                    reader = reader.option("startingVersion", 0)  # a batch run reads the whole feed
            frame = reader.table(self.name) if self.name else reader.load(self.path)
        self.check(frame)
        wanted = {**self.columns, **(CHANGE_COLUMNS if self.change_feed else {})}
        return frame.select(
            *(F.col(quoted(name)).cast(kind).alias(name) for name, kind in wanted.items())
        )

    def check(self, frame: DataFrame) -> None:
        """Fail in one line when the table lacks a declared column or has it in another type."""
        have = {f.name: f.dataType.simpleString() for f in frame.schema.fields}
        missing = [c for c in self.columns if c not in have]
        other = retyped(have, self.columns, self.format)
        if missing or other:
            problems = [f"columns not in the table: {', '.join(missing)}"] if missing else []
            if other:
                problems.append(retyped_text(other, have, self.columns))
            raise SystemExit(
                f"{PIPELINE}: source table {self.name or self.path} differs from the declared columns: "
                f"{'; '.join(problems)} (the table has {', '.join(have)})"
            )

    def iceberg_changes(self, spark: SparkSession) -> DataFrame:
        """Iceberg's changelog view over the snapshots the options name, in Delta's change-feed shape: the change
        type's Delta name, the snapshot's place in the table's history as its version, its commit time.
        """
        catalog, _, table = self.name.partition(".")
        view = f"pipec_changes_{os.urandom(6).hex()}"
        arguments = [f"table => {sql_text(table)}", f"changelog_view => {sql_text(view)}"]
        if self.options:
            pairs = ", ".join(f"{sql_text(k)}, {sql_text(str(v))}" for k, v in self.options.items())
            arguments.append(f"options => map({pairs})")
        if self.key:
            arguments.append(
                f"identifier_columns => array({', '.join(sql_text(c) for c in self.key)})"
            )
        spark.sql(f"CALL {catalog}.system.create_changelog_view({', '.join(arguments)})")
        in_order = Window.orderBy("made_current_at", "snapshot_id")
        history = spark.read.table(f"{self.name}.history").select(
            F.col("snapshot_id").alias("_commit_snapshot_id"),
            F.row_number().over(in_order).cast("BIGINT").alias("_commit_version"),
        )
        snapshots = spark.read.table(f"{self.name}.snapshots").select(
            F.col("snapshot_id").alias("_commit_snapshot_id"),
            F.col("committed_at").alias("_commit_timestamp"),
        )
        names = F.create_map(*(F.lit(text) for pair in ICEBERG_CHANGES.items() for text in pair))
        changes = spark.read.table(view).withColumn("_change_type", names[F.col("_change_type")])
        return changes.join(history, "_commit_snapshot_id").join(snapshots, "_commit_snapshot_id")
