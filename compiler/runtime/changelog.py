"""An upsert-kafka source in streaming mode: each micro-batch's upserts as a changelog (+I, -U, +U, -D), against
each key's last image kept under the checkpoint."""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, SparkSession, Window
from pyspark.sql import functions as F

from .upsert_source import keyed

# The hidden column of each changelog row: for a -D, its tombstone's own envelope (null for other rows), so a table
# sink's default sequence orders the delete at the tombstone, not at the image it deletes (docs/tables.md)
TOMBSTONE = "__tombstone"
TOMBSTONE_FIELDS = ("timestamp", "partition", "offset")


class ChangelogState:
    """Upsert rows -> changelog rows (Spark's Kafka columns plus `op` and the hidden TOMBSTONE), against each key's
    last image.

    The images are raw Kafka rows kept as parquet under the checkpoint in a fixed ring of slots, by DataFrame reads
    and writes only (the same under Spark Connect): `base-0` and `base-1` take turns holding every live image after
    a micro-batch, `delta-<i>` (COMPACT_AFTER of them) the images one micro-batch changed (a null value: deleted).
    A slot is read only through its marker, one JSON row (slot, kind, batch, rows) written after its data.
    Micro-batch n reads the markers, then its live versions: the newest base before n and the deltas after it. It
    keeps the keys it touches and writes delta n into a free delta slot, or base n into the other base slot once
    the deltas number COMPACT_AFTER or hold as many rows as the base. So its cost follows the keys it touches, plus
    a scan of the stored rows. The micro-batch after a compaction empties the replaced base.

    Exactly once: n reads only versions below n and writes only into a slot none of them uses, chosen from them. A
    replay reads the same versions, takes the same slot and computes the same events. A crash mid-write leaves the
    slot's old marker or none: a version older than the live base, which no micro-batch reads, or n's own, which
    only n's replay meets, and ignores and rewrites (docs/changelogs.md). Everything is native DataFrame work: a
    window over each key in offset order finds each record's previous image.
    """

    COMPACT_AFTER = 16  # deltas at most before a base is written
    BASES = ("base-0", "base-1")
    MARKER = "slot STRING, kind STRING, batch BIGINT, rows BIGINT"

    def __init__(self, spark: SparkSession, folder: str):
        self.spark, self.folder = spark, folder.rstrip("/")
        # the markers' folder, so that reading it never fails (a no-op once it exists)
        spark.createDataFrame([], self.MARKER).write.mode("ignore").json(f"{self.folder}/markers")
        # this micro-batch's persisted frames, released by the next one
        self.cached: list[DataFrame] = []

    def markers(self) -> list[dict]:
        """Every slot's marker: what its data holds (kind base, delta or free; the micro-batch that wrote it)."""
        reader = self.spark.read.schema(self.MARKER).option("recursiveFileLookup", "true")
        return [m.asDict() for m in reader.json(f"{self.folder}/markers").collect()]

    def live(self, markers: list[dict], batch_id: int) -> tuple[dict | None, list[dict]]:
        """The versions micro-batch `batch_id` reads: the newest base before it (None: none yet) and the deltas
        after that base. Any other marker is of a version no micro-batch from `batch_id` on reads, or of
        `batch_id`'s own, from an earlier attempt."""
        before = [m for m in markers if m["batch"] < batch_id]
        bases = [m for m in before if m["kind"] == "base"]
        base = max(bases, key=lambda m: m["batch"], default=None)
        after = base["batch"] if base else -1
        deltas = [m for m in before if m["kind"] == "delta" and m["batch"] > after]
        return base, sorted(deltas, key=lambda m: m["batch"])

    def read(self, raw: DataFrame, markers: list[dict], batch_id: int) -> DataFrame:
        """The entries micro-batch `batch_id` starts from: its live versions' rows, each with the `__version`
        (micro-batch id) that wrote it."""
        base, deltas = self.live(markers, batch_id)
        slots = [m["slot"] for m in ([base] if base else []) + deltas]
        if slots:
            return self.spark.read.parquet(*(f"{self.folder}/{slot}" for slot in slots))
        empty = self.spark.createDataFrame([], raw.schema)
        return empty.withColumn("__version", F.lit(0).cast("long"))

    @staticmethod
    def newest(entries: DataFrame) -> DataFrame:
        """Each key's entry from the newest version that holds it."""
        entry = F.max_by(F.struct(*entries.columns), F.col("__version")).alias("entry")
        return entries.groupBy("key").agg(entry).select("entry.*")

    def write_slot(self, slot: str, frame: DataFrame, kind: str, batch_id: int) -> None:
        """Overwrites a slot's data, then its marker, which counts the rows written (a crash before the marker
        leaves the slot's old marker, of a version no micro-batch reads)."""
        frame.write.mode("overwrite").parquet(f"{self.folder}/{slot}")
        written = self.spark.read.schema(frame.schema).parquet(f"{self.folder}/{slot}")
        marker = written.agg(F.count(F.lit(1)).alias("rows")).select(
            F.lit(slot).alias("slot"),
            F.lit(kind).alias("kind"),
            F.lit(batch_id).cast("long").alias("batch"),
            "rows",
        )
        marker.write.mode("overwrite").json(f"{self.folder}/markers/{slot}")

    def write(
        self, entries: DataFrame, changes: DataFrame, markers: list[dict], batch_id: int
    ) -> None:
        """Writes this micro-batch's version into a slot no live version uses: its changes as a delta, or a new base
        once the deltas number COMPACT_AFTER or hold as many rows as the base. Writing a delta, it empties the other
        base slot (the base the last compaction replaced, which no replay reads any more)."""
        base, deltas = self.live(markers, batch_id)
        other_base = next(slot for slot in self.BASES if not base or slot != base["slot"])
        delta_rows = sum(m["rows"] for m in deltas)
        if base and len(deltas) < self.COMPACT_AFTER and delta_rows < base["rows"]:
            used = {m["slot"] for m in deltas}
            free = next(f"delta-{i}" for i in range(self.COMPACT_AFTER) if f"delta-{i}" not in used)
            self.write_slot(free, changes, "delta", batch_id)
            if any(m["slot"] == other_base and m["kind"] == "base" for m in markers):
                self.write_slot(other_base, changes.limit(0), "free", batch_id)
        else:  # the base's images of the keys no delta holds (a base row keeps the version that wrote it)
            after = base["batch"] if base else -1
            updates = entries.where(F.col("__version") > after).unionByName(changes)
            kept = entries.where(F.col("__version") <= after).join(updates, "key", "left_anti")
            compacted = kept.unionByName(self.newest(updates)).where(F.col("value").isNotNull())
            self.write_slot(other_base, compacted, "base", batch_id)

    def apply(self, raw: DataFrame, batch_id: int) -> DataFrame:
        """This micro-batch's changelog, in offset order per key; writes the micro-batch's state version first."""
        for frame in self.cached:
            frame.unpersist()
        columns = raw.columns
        markers = self.markers()
        entries = self.read(raw, markers, batch_id)
        batch = keyed(raw).select(*columns, F.lit(1).alias("__batch")).persist()
        batch.count()  # read once; its measured size lets Spark broadcast the touched keys to the state's scan
        touched = batch.select("key").distinct()  # only these keys' images take part
        images = self.newest(entries.join(touched, "key", "left_semi"))
        images = images.where(F.col("value").isNotNull())  # a deleted key has no image
        rows = batch.unionByName(images.select(*columns, F.lit(0).alias("__batch")))
        by_key = Window.partitionBy("key").orderBy("__batch", "partition", "offset")
        image = F.struct(*columns)
        # the live image (null: absent or deleted); a record changes the key unless an identical re-upsert
        live = F.when(F.col("value").isNotNull(), F.struct("value", "headers"))
        changed = ~live.eqNullSafe(F.lag(live).over(by_key))
        rows = rows.withColumn("__changed", changed)
        before = F.last(F.when(F.col("__changed"), image), ignorenulls=True)
        rows = rows.withColumn(
            "__before", before.over(by_key.rowsBetween(Window.unboundedPreceding, -1))
        )
        rows = rows.where(F.col("__changed")).persist()
        self.cached = [batch, rows]

        # the keys this micro-batch changed, each with its newest image (a null value: deleted)
        last_image = F.max_by(image, F.struct("partition", "offset")).alias("image")
        changes = rows.where(F.col("__batch") == 1).groupBy("key").agg(last_image)
        changes = changes.select("image.*", F.lit(batch_id).cast("long").alias("__version"))
        self.write(entries, changes, markers, batch_id)

        # a -D carries the image it deletes (Flink's rule) and, hidden, its tombstone's own envelope: its sequence
        tombstone = F.struct(*(F.col(c) for c in TOMBSTONE_FIELDS))
        no_tombstone = F.when(F.lit(False), tombstone)  # null, of the tombstone's type

        def event(op: str, row: Column, own: Column = no_tombstone) -> Column:
            return F.struct(F.lit(op).alias("op"), row.alias("image"), own.alias("own"))

        had = F.col("__before").getField("value").isNotNull()
        has = F.col("value").isNotNull()
        events = (
            F.when(had & has, F.array(event("-U", F.col("__before")), event("+U", image)))
            .when(has, F.array(event("+I", image)))
            .otherwise(F.array(event("-D", F.col("__before"), tombstone)))
        )
        emitted = rows.where(F.col("__batch") == 1).select(F.explode(events).alias("event"))
        return emitted.select(
            *(F.col("event").getField("image").getField(c).alias(c) for c in columns),
            F.col("event").getField("op").alias("op"),
            F.col("event").getField("own").alias(TOMBSTONE),
        )


CHANGELOG_STATES: dict[str, ChangelogState] = {}  # per state folder, for the life of the query


def changelog(raw: DataFrame, batch_id: int, checkpoint: str) -> DataFrame:
    """Micro-batch `batch_id`'s changelog, against the state under the checkpoint."""
    folder = checkpoint.rstrip("/") + "/changelog-state"
    if folder not in CHANGELOG_STATES:
        CHANGELOG_STATES[folder] = ChangelogState(raw.sparkSession, folder)
    return CHANGELOG_STATES[folder].apply(raw, batch_id)
