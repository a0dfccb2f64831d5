"""The changelog-state designs bench/changelog_state.py measures, over the same raw Kafka-shaped micro-batches.

deltas      the generated job's own ChangelogState (templates/changelog/state.py.j2): versioned deltas, compacted
            into a base once COMPACT_AFTER deltas pile up or they outweigh the base (deltas-<k>: COMPACT_AFTER = k).
rewrite     the same class with COMPACT_AFTER = 0: every micro-batch writes a whole base (the design before issue
            15: each live image rewritten per micro-batch).
state-store Spark's state store with the RocksDB provider, through `applyInPandasWithState`: per key, a Python
            function walks the key's records against a GroupState holding the last image (PySpark 4.0 has no
            native stateful operator with custom logic; `transformWithStateInPandas` is Python per key too).
delta-lake  the job's event logic, the images in a Delta Lake table: the touched keys' images read from the table,
            the changes MERGEd into it (deletion vectors on; io.delta:delta-spark from Maven Central).
"""

from __future__ import annotations

from pathlib import Path

RAW_SCHEMA = (
    "key BINARY, value BINARY, topic STRING, partition INT, offset BIGINT, timestamp TIMESTAMP, "
    "timestampType INT, headers ARRAY<STRUCT<key: STRING, value: BINARY>>"
)
DELTA_PACKAGE = "io.delta:delta-spark_2.13:4.0.0"
DELTA_SESSION = {
    "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
    "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
    "spark.databricks.delta.properties.defaults.enableDeletionVectors": "true",
}
ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"


def stream(spark, source: Path):
    return spark.readStream.schema(RAW_SCHEMA).option("maxFilesPerTrigger", 1).parquet(str(source))


def job_state(spark, name: str, work: Path, job):
    """The ChangelogState of a design the bench drives itself, one micro-batch at a time (deltas, deltas-<k>,
    rewrite, delta-lake)."""
    state_class = delta_lake_state(job) if name == "delta-lake" else job.ChangelogState
    state = state_class(spark, str(work / "state"))
    if name == "rewrite":
        state.COMPACT_AFTER = 0
    elif name.startswith("deltas-"):
        state.COMPACT_AFTER = int(name.removeprefix("deltas-"))
    return state


def delta_lake_state(job):
    """A ChangelogState whose images live in one Delta Lake table, updated by MERGE (replays not handled: a bench)."""

    class DeltaLakeState(job.ChangelogState):
        def table(self) -> str:
            return f"{self.folder}/table"

        def read(self, raw, markers, batch_id):
            from pyspark.sql import functions as F

            if Path(self.table()).exists():  # pinned: the events are read after the MERGE (a local folder)
                history = self.spark.sql(f"DESCRIBE HISTORY delta.`{self.table()}` LIMIT 1")
                version = history.first()["version"]
                entries = self.spark.read.format("delta").option("versionAsOf", version).load(self.table())
                return entries.withColumn("__version", F.lit(0).cast("long"))
            return super().read(raw, markers, batch_id)

        def write(self, entries, changes, markers, batch_id) -> None:
            from pyspark.sql import functions as F

            changes = changes.drop("__version")
            if not Path(self.table()).exists():
                changes.where(F.col("value").isNotNull()).write.format("delta").save(self.table())
                return
            changes.createOrReplaceTempView("pipec_changes")
            self.spark.sql(
                f"MERGE INTO delta.`{self.table()}` AS t USING pipec_changes AS c ON t.key = c.key "
                "WHEN MATCHED AND c.value IS NULL THEN DELETE WHEN MATCHED THEN UPDATE SET * "
                "WHEN NOT MATCHED AND c.value IS NOT NULL THEN INSERT *"
            )

    return DeltaLakeState


def changelog_in_pandas(key, pdfs, state):
    """applyInPandasWithState: one key's records of a micro-batch, in offset order, against its last image."""
    import pandas as pd

    image = state.get if state.exists else None  # (value, offset)
    out = []
    for pdf in pdfs:
        for value, offset in pdf.sort_values("offset")[["value", "offset"]].itertuples(index=False):
            value = None if value is None or (isinstance(value, float) and pd.isna(value)) else bytes(value)
            if value is None:
                if image is not None:
                    out.append(("-D", image[0], image[1]))
                    image = None
            elif image is None:
                out.append(("+I", value, offset))
                image = (value, offset)
            elif value != image[0]:
                out.append(("-U", image[0], image[1]))
                out.append(("+U", value, offset))
                image = (value, offset)
    if image is None:
        if state.exists:
            state.remove()
    else:
        state.update(image)
    if out:
        yield pd.DataFrame(
            {
                "key": [key[0]] * len(out),
                "op": [o for o, _, _ in out],
                "value": [v for _, v, _ in out],
                "offset": pd.array([int(x) for _, _, x in out], dtype="int64"),
            }
        )


def run_state_store(spark, source: Path, work: Path, measure) -> None:
    """The stream of micro-batches through applyInPandasWithState; measure(batch_id, work) times each."""
    from pyspark.sql.streaming.state import GroupStateTimeout

    spark.conf.set("spark.sql.streaming.stateStore.providerClass", ROCKSDB)
    spark.conf.set("spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled", "true")
    changes = (
        stream(spark, source)
        .groupBy("key")
        .applyInPandasWithState(
            changelog_in_pandas,
            "key BINARY, op STRING, value BINARY, offset BIGINT",
            "value BINARY, offset BIGINT",
            "append",
            GroupStateTimeout.NoTimeout,
        )
    )
    query = (
        changes.writeStream.foreachBatch(lambda batch, batch_id: measure(batch_id, batch.count))
        .option("checkpointLocation", str(work / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()
