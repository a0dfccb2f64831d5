"""MERGE INTO a table sink's table (or its tombstones) from a DataFrame, the SQL text its clauses share, and the
counts line's share of a table write (the rows inserted, updated and deleted, and the changes superseded).
"""

from __future__ import annotations

import os

from pyspark.sql import DataFrame, SparkSession

from .table_sql import quoted


class TableMerge:
    """MERGE and its clauses (a part of `Table`)."""

    def merge(
        self,
        spark: SparkSession,
        source: DataFrame,
        target: str,
        condition: str,
        clauses: list[str],
    ) -> None:
        """MERGE INTO the target from a DataFrame (a temporary view of it), with the clauses in order."""
        view = f"pipec_changes_{os.urandom(6).hex()}"
        source.createOrReplaceTempView(view)
        try:
            spark.sql(
                f"MERGE INTO {target} AS t USING {view} AS s ON {condition} " + " ".join(clauses)
            )
        finally:
            spark.catalog.dropTempView(view)

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
