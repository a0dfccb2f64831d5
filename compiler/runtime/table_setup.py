"""A table sink's table made ready before rows are written: created when missing (with its tombstones), or its
columns checked against the sink's; and the query's id its idempotent writes carry."""

from __future__ import annotations

import json

from pyspark.sql import DataFrame, SparkSession

from .job_names import PIPELINE
from .table_sql import quoted, retyped, retyped_text, sql_text

_PREPARED: set[str] = set()  # tables created or checked by this process
_QUERY_IDS: dict[str, str] = {}  # checkpoint folder -> its streaming query's id


class TableSetup:
    """Creating and checking the table (a part of `Table`)."""

    def exists(self, spark: SparkSession, ref: str) -> bool:
        from pyspark.errors import AnalysisException

        try:
            spark.read.table(ref).schema  # noqa: B018 (reading the schema is the check)
            return True
        except AnalysisException:
            return False

    def create(
        self,
        spark: SparkSession,
        ref: str,
        columns: dict[str, str],
        partition_by: list[str],
        properties: dict[str, str],
    ) -> None:
        ddl = ", ".join(f"{quoted(name)} {kind}" for name, kind in columns.items())
        text = f"CREATE TABLE IF NOT EXISTS {ref} ({ddl}) USING {self.format}"
        if partition_by:
            text += f" PARTITIONED BY ({', '.join(quoted(c) for c in partition_by)})"
        if properties:
            text += f" TBLPROPERTIES ({', '.join(f'{sql_text(k)} = {sql_text(v)}' for k, v in properties.items())})"
        spark.sql(text)

    def prepare(self, spark: SparkSession, rows: DataFrame | None = None) -> bool:
        """Create the table (and its tombstones) when missing; check an existing one's columns: a difference fails
        the job, naming the columns, unless schema-evolution: add-columns lets it add the new ones. True: the table
        is missing and the append of `rows` creates it (`created_by`).
        """
        for key, value in self.catalog.items():
            spark.conf.set(key, value)
        if self.ref in _PREPARED:
            return False
        if not self.exists(spark, self.ref):
            if rows is not None and self.created_by(rows):
                return True
            self.create(spark, self.ref, self.columns, self.partition_by, self.properties)
        else:
            self.check(spark)
        if self.apply != "append" and not self.exists(spark, self.tombstones):
            kept = {c: self.columns[c] for c in [*self.key, "__SEQUENCE"]}
            self.create(spark, self.tombstones, kept, [], {})
        _PREPARED.add(self.ref)
        return False

    def created_by(self, rows: DataFrame) -> bool:
        """Whether a Delta append of `rows` creates the table as CREATE TABLE would (one commit, not two): its
        columns are the table's, in order and of the same types, and every table property is Delta's own
        (`delta.*`, which the writer sets on the table it creates)."""
        have = {f.name: f.dataType.simpleString() for f in rows.schema.fields}
        return (
            self.format == "delta"
            and list(have) == list(self.columns)
            and not retyped(have, self.columns, self.format)
            and all(key.startswith("delta.") for key in self.properties)
        )

    def check(self, spark: SparkSession) -> None:
        have = {f.name: f.dataType.simpleString() for f in spark.read.table(self.ref).schema.fields}
        new = [c for c in self.columns if c not in have]
        gone = [c for c in have if c not in self.columns]
        other = retyped(have, self.columns, self.format)
        if gone or other or (new and self.evolution != "add-columns"):
            problems = []
            if new:
                problems.append(f"columns not in the table: {', '.join(new)}")
            if gone:
                problems.append(f"table columns the pipeline does not write: {', '.join(gone)}")
            if other:
                problems.append(retyped_text(other, have, self.columns))
            hint = (
                "schema-evolution: add-columns adds new columns; "
                if new and not gone and not other
                else ""
            )
            raise SystemExit(
                f"{PIPELINE}: table {self.name or self.path} differs from the sink's columns: {'; '.join(problems)} "
                f"({hint}a dropped or retyped column needs a new table)"
            )
        if new:
            added = ", ".join(f"{quoted(c)} {self.columns[c]}" for c in new)
            spark.sql(f"ALTER TABLE {self.ref} ADD COLUMNS ({added})")

    def commit_id(self, spark: SparkSession) -> str:
        """The query's id across restarts, for idempotent writes (txnAppId): its checkpoint folder, and the id its
        streaming query wrote there when the folder was new. A new checkpoint in the same folder is a new query
        whose micro-batch ids start at 0 again: Delta must not take them for replays of the old one's.
        """
        import hashlib

        folder = self.checkpoint or ""
        if folder not in _QUERY_IDS:
            _QUERY_IDS[folder] = query_id(spark, folder) if folder else ""
        return "pipec-" + hashlib.sha1(f"{folder}\n{_QUERY_IDS[folder]}".encode()).hexdigest()[:16]


def query_id(spark: SparkSession, folder: str) -> str:
    """The id in a streaming checkpoint's `metadata` file ("" before a query ran there)."""
    from pyspark.errors import AnalysisException

    try:
        line = spark.read.text(folder.rstrip("/") + "/metadata").first()
    except AnalysisException:
        return ""
    return json.loads(line[0]).get("id", "") if line else ""
