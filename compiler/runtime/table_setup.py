"""A table sink's table made ready before rows are written: created when missing (with its tombstones), or its
columns checked against the sink's; and the query's id its idempotent writes carry."""

from __future__ import annotations

from pyspark.sql import SparkSession

from .job_names import PIPELINE
from .table_sql import quoted, retyped, retyped_text, sql_text

_PREPARED: set[str] = set()  # tables created or checked by this process


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

    def prepare(self, spark: SparkSession) -> None:
        """Create the table (and its tombstones) when missing; check an existing one's columns: a difference fails
        the job, naming the columns, unless schema-evolution: add-columns lets it add the new ones.
        """
        for key, value in self.catalog.items():
            spark.conf.set(key, value)
        if self.ref in _PREPARED:
            return
        if not self.exists(spark, self.ref):
            self.create(spark, self.ref, self.columns, self.partition_by, self.properties)
        else:
            self.check(spark)
        if self.apply != "append" and not self.exists(spark, self.tombstones):
            kept = {c: self.columns[c] for c in [*self.key, "__SEQUENCE"]}
            self.create(spark, self.tombstones, kept, [], {})
        _PREPARED.add(self.ref)

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

    def commit_id(self) -> str:
        """The query's id across restarts, for idempotent writes: taken from its checkpoint folder."""
        import hashlib

        return "pipec-" + hashlib.sha1((self.checkpoint or "").encode()).hexdigest()[:16]
