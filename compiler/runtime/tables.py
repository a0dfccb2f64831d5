"""A table sink (Delta Lake, Iceberg): the table created or checked, and rows applied as append, upsert (SCD type 1)
or history (SCD type 2) through MERGE, exactly once.

Driver-side orchestration only: every row is read, compared and written by native DataFrame and SQL operations.
Bookkeeping columns: `__SEQUENCE` (the sequence of the change a row or version holds: the sequence-by column, or the
record's timestamp, partition and offset), history's `__START_AT`/`__END_AT`; the table's companion
`<table>__tombstones` remembers deleted keys with their delete's sequence, so an older change never revives one
(docs/tables.md).
"""

from __future__ import annotations

import os

from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F

from .counts import SINK_COUNTS
from .job_names import PIPELINE
from .table_sql import quoted, same_type, sql_text

_PREPARED: set[str] = set()  # tables created or checked by this process


class Table:
    """A table sink: where the table is, how rows apply (append, upsert or history), and its columns (name -> DDL
    type, pipec's `__` bookkeeping columns last)."""

    def __init__(
        self,
        format,
        path,
        name,
        apply,
        key,
        sequence_by,
        partition_by,
        properties,
        evolution,
        options,
        catalog,
        columns,
        checkpoint,
    ):
        self.format, self.path, self.name, self.apply = format, path, name, apply
        self.key, self.sequence_by, self.partition_by = key, sequence_by, partition_by
        self.properties, self.evolution, self.options = properties, evolution, options
        self.catalog, self.columns, self.checkpoint = catalog, columns, checkpoint
        self.ref = name or f"{format}.{quoted(path)}"
        self.tombstones = (
            (name + "__tombstones")
            if name
            else f"{format}.{quoted(path.rstrip('/') + '__tombstones')}"
        )
        self.values = [c for c in columns if not c.startswith("__")]

    # ------------------------------------------------------------ creating and checking

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
        retyped = [
            c
            for c in self.columns
            if c in have and not same_type(have[c], self.columns[c], self.format)
        ]
        if gone or retyped or (new and self.evolution != "add-columns"):
            problems = []
            if new:
                problems.append(f"columns not in the table: {', '.join(new)}")
            if gone:
                problems.append(f"table columns the pipeline does not write: {', '.join(gone)}")
            if retyped:
                problems.append(
                    "columns of another type: "
                    + ", ".join(
                        f"{c} (table {have[c]}, pipeline {self.columns[c].lower()})"
                        for c in retyped
                    )
                )
            hint = (
                "schema-evolution: add-columns adds new columns; "
                if new and not gone and not retyped
                else ""
            )
            raise SystemExit(
                f"{PIPELINE}: table {self.name or self.path} differs from the sink's columns: {'; '.join(problems)} "
                f"({hint}a dropped or retyped column needs a new table)"
            )
        if new:
            added = ", ".join(f"{quoted(c)} {self.columns[c]}" for c in new)
            spark.sql(f"ALTER TABLE {self.ref} ADD COLUMNS ({added})")

    # ------------------------------------------------------------ writing

    def write(self, rows: DataFrame, batch_id: int | None):
        """One batch (or micro-batch) of rows into the table; None (no streaming query)."""
        spark = rows.sparkSession
        self.prepare(spark)
        if self.apply == "append":
            self.append(rows, batch_id)
            SINK_COUNTS["table"] = {}  # every row inserted
        else:
            SINK_COUNTS.update((self.upsert if self.apply == "upsert" else self.history)(rows))
        return None

    def commit_id(self) -> str:
        """The query's id across restarts, for idempotent writes: taken from its checkpoint folder."""
        import hashlib

        return "pipec-" + hashlib.sha1((self.checkpoint or "").encode()).hexdigest()[:16]

    def append(self, rows: DataFrame, batch_id: int | None) -> None:
        """Append; a micro-batch replayed after a crash writes nothing (Delta: idempotent writes with txnAppId and
        txnVersion; Iceberg: the snapshot that carries the batch's id is found)."""
        writer = rows.write.format(self.format).mode("append").options(**self.options)
        if batch_id is not None:
            app = self.commit_id()
            if self.format == "delta":
                writer = writer.option("txnAppId", app).option("txnVersion", batch_id)
            else:
                spark = rows.sparkSession
                marker = f"{app}:{batch_id}"
                snapshots = spark.read.table(f"{self.ref}.snapshots")
                if (
                    snapshots.where(F.col("summary").getItem("pipec.batch") == F.lit(marker))
                    .limit(1)
                    .count()
                ):
                    return
                writer = writer.option("snapshot-property.pipec.batch", marker)
        if self.name:
            writer.saveAsTable(self.name)
        else:
            writer.save(self.path)

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

    @staticmethod
    def fate_counts(fates: dict[str, int]) -> dict[str, dict[str, int]]:
        return {
            "fates": {
                "superseded": fates.get("superseded", 0),
                "filtered": fates.get("filtered", 0),
            },
            "table": {name: fates.get(name, 0) for name in ("inserted", "updated", "deleted")},
        }

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
        filtered = rows.where(before).count()
        changes = rows.where(~before).select(
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
        events = events.withColumn("__dup", F.row_number().over(same) > 1).localCheckpoint()
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
        diff = (
            diff.withColumn("__action", action)
            .where(F.col("__action").isNotNull())
            .localCheckpoint()
        )
        new_deletes = events.where(F.col("__delete") & (F.col("__new") == 1) & ~F.col("__dup"))
        fates = {
            r["__fate"]: r["count"]
            for r in fates_of.groupBy(fate.alias("__fate")).count().collect()
        }
        fates["filtered"] = filtered
        if diff.limit(1).count():
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
            )
        if fates.get("deleted", 0):
            self.merge(
                spark,
                new_deletes.select(*self.key, "__SEQUENCE"),
                self.tombstones,
                self.on_key("__SEQUENCE"),
                ["WHEN NOT MATCHED THEN " + self.insert([*self.key, "__SEQUENCE"])],
            )
        return self.fate_counts(fates)
