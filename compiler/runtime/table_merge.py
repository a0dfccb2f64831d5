"""MERGE INTO a table sink's table (or its tombstones) from a DataFrame, the SQL text its clauses share, and the
counts line's share of a table write (the rows inserted, updated and deleted, and the changes superseded).
"""

from __future__ import annotations

import os

from pyspark.sql import DataFrame, SparkSession

from .arguments import _CLIENT
from .table_sql import quoted

# The session settings a Delta MERGE runs under (restored after it) when its source is already materialized and
# deterministic (a local checkpoint, or rows derived from one): Delta need not copy it again
_DELTA_MERGE = {"spark.databricks.delta.merge.materializeSource": "none"}


class TableMerge:
    """MERGE and its clauses (a part of `Table`)."""

    @staticmethod
    def once(rows: DataFrame) -> DataFrame:
        """The rows computed once (a local checkpoint), with the Observations on them filled: Spark Connect answers a
        checkpoint without observed metrics, so there the rows are cached and counted first (the count's answer
        carries them)."""
        if not _CLIENT[1]:
            return rows.localCheckpoint()
        cached = rows.persist()
        cached.count()
        done = cached.localCheckpoint()
        cached.unpersist()
        return done

    def merge(
        self,
        spark: SparkSession,
        source: DataFrame,
        target: str,
        condition: str,
        clauses: list[str],
        settings: dict[str, str] | None = None,
    ) -> list:
        """MERGE INTO the target from a DataFrame (a temporary view of it), with the clauses in order, under the
        session `settings` (restored after); the command's result rows (Delta: the rows it affected, updated,
        deleted and inserted). A Delta MERGE whose source is already materialized need not copy it again:
        `settings=self.materialized()`."""
        view = f"pipec_changes_{os.urandom(6).hex()}"
        source.createOrReplaceTempView(view)
        settings = settings or {}
        before = {key: spark.conf.get(key, None) for key in settings}
        try:
            for key, value in settings.items():
                spark.conf.set(key, value)
            text = f"MERGE INTO {target} AS t USING {view} AS s ON {condition} " + " ".join(clauses)
            return spark.sql(text).collect()
        finally:
            for key, value in before.items():
                if value is None:
                    spark.conf.unset(key)
                else:
                    spark.conf.set(key, value)
            spark.catalog.dropTempView(view)

    def materialized(self) -> dict[str, str]:
        return dict(_DELTA_MERGE) if self.format == "delta" else {}

    def merge_counted(
        self,
        spark: SparkSession,
        source: DataFrame,
        clauses: list[str],
        batch_id: int | None,
    ) -> dict[str, int]:
        """A Delta MERGE into the table on the key (its source already materialized), and the rows it inserted
        and updated, as the command reports them. A micro-batch's MERGE is an idempotent write
        (txnAppId/txnVersion): replayed after a crash, Delta skips it, reports no row, and nothing was written.
        """
        settings = self.materialized()
        if batch_id is not None:
            settings["spark.databricks.delta.write.txnAppId"] = self.commit_id(spark)
            settings["spark.databricks.delta.write.txnVersion"] = str(batch_id)
        done = self.merge(spark, source, self.ref, self.on_key(), clauses, settings)
        return {
            name: done[0][f"num_{name}_rows"] if done else 0 for name in ("inserted", "updated")
        }

    def on_key(self, *also: str) -> str:
        return " AND ".join(f"t.{quoted(c)} = s.{quoted(c)}" for c in [*self.key, *also])

    def assignments(self, columns: list[str]) -> str:
        return ", ".join(f"t.{quoted(c)} = s.{quoted(c)}" for c in columns)

    def insert(self, columns: list[str]) -> str:
        names = ", ".join(quoted(c) for c in columns)
        return f"INSERT ({names}) VALUES ({', '.join('s.' + quoted(c) for c in columns)})"

    @staticmethod
    def fate_counts(fates: dict[str, int]) -> dict[str, dict[str, int]]:
        return {
            "fates": {
                "superseded": fates.get("superseded", 0),
                "filtered": fates.get("filtered", 0),
            },
            "table": {name: fates.get(name, 0) for name in ("inserted", "updated", "deleted")},
        }
