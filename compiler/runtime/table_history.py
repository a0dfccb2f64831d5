"""A table sink's history (apply: history, SCD type 2): each key's versions with `__START_AT`/`__END_AT`, in sequence
order whatever order and micro-batch changes arrive in; `<table>__tombstones` remembers each delete (docs/tables.md).
"""

from __future__ import annotations

from pyspark.sql import DataFrame, Observation, Window
from pyspark.sql import functions as F

from .batch_counts import SINK_COUNTS
from .table_merge import TableMerge


class TableHistory(TableMerge):
    """Keeping every version (a part of `Table`)."""

    def apply_rows(self, rows: DataFrame, batch_id: int | None) -> None:
        """Add the changes to the prepared table's versions; its counts."""
        self.prepare(rows.sparkSession)
        SINK_COUNTS.update(self.history(rows))

    def history(self, rows: DataFrame) -> dict:
        """SCD type 2: a key's versions are those of all its changes in sequence order, whatever order and batch
        they arrive in: the batch's changes and deletes join the key's versions and remembered deletes, a change
        identical to the one before it adds no version, each version ends where the next change or a delete
        begins. The recomputed versions are MERGEd into the table (only differences: a replay changes nothing).
        """
        spark = rows.sparkSession
        delete, before = F.col("__op") == F.lit("-D"), F.col("__op") == F.lit("-U")
        first = self.sequence_by or "timestamp"
        image = [c for c in self.values if c not in self.key and c != self.sequence_by]
        # the `-U` rows are counted as the events pass reads the batch: the upstream is read once
        counted, changed = Observation(), Observation()
        changes = rows.observe(counted, F.count(F.when(before, True)).alias("filtered"))
        changes = changes.where(~before).select(
            *self.values, "__SEQUENCE", delete.alias("__delete"), F.lit(1).alias("__new"), "__ORDER"
        )
        keys = changes.select(*self.key).distinct()
        old = spark.read.table(self.ref).join(F.broadcast(keys), self.key, "left_semi")
        deletes = spark.read.table(self.tombstones).join(F.broadcast(keys), self.key, "left_semi")
        events = changes.unionByName(
            old.select(
                *self.values, "__SEQUENCE", F.lit(False).alias("__delete"), F.lit(0).alias("__new")
            ),
            allowMissingColumns=True,
        ).unionByName(
            deletes.select(
                *self.key, "__SEQUENCE", F.lit(True).alias("__delete"), F.lit(0).alias("__new")
            ),
            allowMissingColumns=True,
        )
        # one event per key and sequence: a delete, else the one already applied, else the first to arrive
        same = Window.partitionBy(*self.key, "__SEQUENCE").orderBy(
            F.col("__delete").desc(), F.col("__new"), F.col("__ORDER")
        )
        events = self.once(events.withColumn("__dup", F.row_number().over(same) > 1))
        in_order = Window.partitionBy(*self.key).orderBy("__SEQUENCE")
        kept = events.where(~F.col("__dup")).withColumn("__image", F.to_json(F.struct(*image)))
        previous = F.lag(F.struct("__delete", "__image")).over(in_order)
        kept = kept.withColumn("__previous", previous)
        identical = (
            ~F.col("__delete")
            & F.col("__previous").isNotNull()
            & ~F.col("__previous.__delete")
            & F.col("__previous.__image").eqNullSafe(F.col("__image"))
        )
        kept = kept.withColumn("__identical", identical)
        versions = (
            kept.where(~F.col("__identical"))
            .withColumn("__NEXT", F.lead("__SEQUENCE").over(in_order))
            .where(~F.col("__delete"))
        )
        versions = versions.select(
            *self.values,
            F.col("__SEQUENCE").getField(first).alias("__START_AT"),
            F.col("__NEXT").getField(first).alias("__END_AT"),
            "__SEQUENCE",
        )
        fate = (
            F.when(
                F.col("__dup") | F.coalesce(F.col("__identical"), F.lit(False)), F.lit("superseded")
            )
            .when(F.col("__delete"), F.lit("deleted"))
            .when(F.col("__previous").isNull() | F.col("__previous.__delete"), F.lit("inserted"))
            .otherwise(F.lit("updated"))
        )
        fates_of = events.join(
            kept.select(*self.key, "__SEQUENCE", "__previous", "__identical"),
            [*self.key, "__SEQUENCE"],
            "left",
        ).where(F.col("__new") == 1)
        stored = [*self.values, "__START_AT", "__END_AT", "__SEQUENCE"]
        was = old.select(
            *self.key,
            "__SEQUENCE",
            F.col("__END_AT").alias("__WAS_END"),
            F.lit(True).alias("__WAS"),
        )
        diff = versions.withColumn("__IS", F.lit(True)).join(
            was, [*self.key, "__SEQUENCE"], "full_outer"
        )
        action = (
            F.when(F.col("__WAS").isNull(), F.lit("insert"))
            .when(F.col("__IS").isNull(), F.lit("delete"))
            .when(~F.col("__END_AT").eqNullSafe(F.col("__WAS_END")), F.lit("update"))
        )
        diff = self.once(
            diff.withColumn("__action", action)
            .where(F.col("__action").isNotNull())
            .observe(changed, F.count(F.lit(1)).alias("rows"))
        )
        new_deletes = events.where(F.col("__delete") & (F.col("__new") == 1) & ~F.col("__dup"))
        fates = {
            r["__fate"]: r["count"]
            for r in fates_of.groupBy(fate.alias("__fate")).count().collect()
        }
        fates["filtered"] = counted.get["filtered"]
        if changed.get["rows"]:
            self.merge(
                spark,
                diff,
                self.ref,
                self.on_key("__SEQUENCE"),
                [
                    "WHEN MATCHED AND s.__action = 'delete' THEN DELETE",
                    "WHEN MATCHED AND s.__action = 'update' THEN UPDATE SET t.__END_AT = s.__END_AT",
                    "WHEN NOT MATCHED AND s.__action = 'insert' THEN " + self.insert(stored),
                ],
                self.materialized(),
            )
        if fates.get("deleted", 0):
            self.merge(
                spark,
                new_deletes.select(*self.key, "__SEQUENCE"),
                self.tombstones,
                self.on_key("__SEQUENCE"),
                ["WHEN NOT MATCHED THEN " + self.insert([*self.key, "__SEQUENCE"])],
                self.materialized(),  # both sources come from materialized passes
            )
        return self.fate_counts(fates)


# The job's `Table` applies rows with this part's class: the part its apply mode picks (tables.py)
TableApply = TableHistory
