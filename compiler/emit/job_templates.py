"""The job templates (templates/*.j2) as Python, one function per template: written by
`python -m pipec.emit.template_translator --write` (compiler/emit/template_translator.py) from the templates whose digest is
TEMPLATES_SHA256. Do not edit; compiler/emit/job.py renders with jinja2 instead while this module is stale."""

TEMPLATES_SHA256 = "927f674b63fb93b289606f593021f2a154cb0f82f13d1fd455fcaa33efd5ce9a"


def _attribute(value, name):
    """jinja2's `value.name`: the attribute, else the item."""
    try:
        return getattr(value, name)
    except AttributeError:
        pass
    try:
        return value[name]
    except (TypeError, LookupError, AttributeError):
        raise LookupError(f"template: {value!r} has no attribute or item {name!r}") from None


def _include(name, context, out, finalize):
    try:
        template = TEMPLATES[name]
    except KeyError:
        raise LookupError(f"template: no template {name!r}") from None
    template(context, out, finalize)


def render(name, context, finalize):
    """The text of template `name` (its path under templates/), rendered with `context`; `finalize` is applied
    to each substituted value, as jinja2's Environment(finalize=...)."""
    out = []
    TEMPLATES[name](context, out, finalize)
    return "".join(out)


def _changelog_keys_py(context, out, finalize):
    out.append(
        "def keyed(raw: DataFrame) -> DataFrame:\n"
        '    """Upsert rows need a key: a record without one cannot update the table (a record error, never a silent drop)."""\n'
        "    message = F.format_string(\n"
        '        "upsert-kafka source: a record without a key cannot update the table (topic %s, partition %s, offset %s)",\n'
        '        F.col("topic"),\n'
        '        F.col("partition"),\n'
        '        F.col("offset"),\n'
        "    )\n"
        "    return raw.withColumn(\n"
        '        "key", F.when(F.col("key").isNull(), F.raise_error(message)).otherwise(F.col("key"))\n'
        "    )\n"
    )


def _changelog_state_py(context, out, finalize):
    _include("changelog/keys.py.j2", context, out, finalize)
    out.append(
        "\n"
        "\n"
        "class ChangelogState:\n"
        '    """Upsert rows -> changelog rows (Spark\'s Kafka columns plus `op`), against each key\'s last image.\n'
        "\n"
        "    The images are raw Kafka rows kept as parquet under the checkpoint in a fixed ring of slots, by DataFrame reads\n"
        "    and writes only (the same under Spark Connect): `base-0` and `base-1` take turns holding every live image after\n"
        "    a micro-batch, `delta-<i>` (COMPACT_AFTER of them) the images one micro-batch changed (a null value: deleted).\n"
        "    A slot is read only through its marker, one JSON row (slot, kind, batch, rows) written after its data.\n"
        "    Micro-batch n reads the markers, then its live versions: the newest base before n and the deltas after it. It\n"
        "    keeps the keys it touches and writes delta n into a free delta slot, or base n into the other base slot once\n"
        "    the deltas number COMPACT_AFTER or hold as many rows as the base. So its cost follows the keys it touches, plus\n"
        "    a scan of the stored rows. The micro-batch after a compaction empties the replaced base.\n"
        "\n"
        "    Exactly once: n reads only versions below n and writes only into a slot none of them uses, chosen from them. A\n"
        "    replay reads the same versions, takes the same slot and computes the same events. A crash mid-write leaves the\n"
        "    slot's old marker or none: a version older than the live base, which no micro-batch reads, or n's own, which\n"
        "    only n's replay meets, and ignores and rewrites (docs/changelogs.md). Everything is native DataFrame work: a\n"
        "    window over each key in offset order finds each record's previous image.\n"
        '    """\n'
        "\n"
        "    COMPACT_AFTER = 16  # deltas at most before a base is written\n"
        '    BASES = ("base-0", "base-1")\n'
        '    MARKER = "slot STRING, kind STRING, batch BIGINT, rows BIGINT"\n'
        "\n"
        "    def __init__(self, spark: SparkSession, folder: str):\n"
        '        self.spark, self.folder = spark, folder.rstrip("/")\n'
        "        # the markers' folder, so that reading it never fails (a no-op once it exists)\n"
        '        spark.createDataFrame([], self.MARKER).write.mode("ignore").json(f"{self.folder}/markers")\n'
        "        # this micro-batch's persisted frames, released by the next one\n"
        "        self.cached: list[DataFrame] = []\n"
        "\n"
        "    def markers(self) -> list[dict]:\n"
        '        """Every slot\'s marker: what its data holds (kind base, delta or free; the micro-batch that wrote it)."""\n'
        '        reader = self.spark.read.schema(self.MARKER).option("recursiveFileLookup", "true")\n'
        '        return [m.asDict() for m in reader.json(f"{self.folder}/markers").collect()]\n'
        "\n"
        "    def live(self, markers: list[dict], batch_id: int) -> tuple[dict | None, list[dict]]:\n"
        '        """The versions micro-batch `batch_id` reads: the newest base before it (None: none yet) and the deltas\n'
        "        after that base. Any other marker is of a version no micro-batch from `batch_id` on reads, or of\n"
        '        `batch_id`\'s own, from an earlier attempt."""\n'
        '        before = [m for m in markers if m["batch"] < batch_id]\n'
        '        bases = [m for m in before if m["kind"] == "base"]\n'
        '        base = max(bases, key=lambda m: m["batch"], default=None)\n'
        '        after = base["batch"] if base else -1\n'
        '        deltas = [m for m in before if m["kind"] == "delta" and m["batch"] > after]\n'
        '        return base, sorted(deltas, key=lambda m: m["batch"])\n'
        "\n"
        "    def read(self, raw: DataFrame, markers: list[dict], batch_id: int) -> DataFrame:\n"
        '        """The entries micro-batch `batch_id` starts from: its live versions\' rows, each with the `__version`\n'
        '        (micro-batch id) that wrote it."""\n'
        "        base, deltas = self.live(markers, batch_id)\n"
        '        slots = [m["slot"] for m in ([base] if base else []) + deltas]\n'
        "        if slots:\n"
        '            return self.spark.read.parquet(*(f"{self.folder}/{slot}" for slot in slots))\n'
        "        empty = self.spark.createDataFrame([], raw.schema)\n"
        '        return empty.withColumn("__version", F.lit(0).cast("long"))\n'
        "\n"
        "    @staticmethod\n"
        "    def newest(entries: DataFrame) -> DataFrame:\n"
        '        """Each key\'s entry from the newest version that holds it."""\n'
        '        entry = F.max_by(F.struct(*entries.columns), F.col("__version")).alias("entry")\n'
        '        return entries.groupBy("key").agg(entry).select("entry.*")\n'
        "\n"
        "    def write_slot(self, slot: str, frame: DataFrame, kind: str, batch_id: int) -> None:\n"
        '        """Overwrites a slot\'s data, then its marker, which counts the rows written (a crash before the marker\n'
        '        leaves the slot\'s old marker, of a version no micro-batch reads)."""\n'
        '        frame.write.mode("overwrite").parquet(f"{self.folder}/{slot}")\n'
        '        written = self.spark.read.schema(frame.schema).parquet(f"{self.folder}/{slot}")\n'
        '        marker = written.agg(F.count(F.lit(1)).alias("rows")).select(\n'
        '            F.lit(slot).alias("slot"),\n'
        '            F.lit(kind).alias("kind"),\n'
        '            F.lit(batch_id).cast("long").alias("batch"),\n'
        '            "rows",\n'
        "        )\n"
        '        marker.write.mode("overwrite").json(f"{self.folder}/markers/{slot}")\n'
        "\n"
        "    def write(\n"
        "        self, entries: DataFrame, changes: DataFrame, markers: list[dict], batch_id: int\n"
        "    ) -> None:\n"
        '        """Writes this micro-batch\'s version into a slot no live version uses: its changes as a delta, or a new base\n'
        "        once the deltas number COMPACT_AFTER or hold as many rows as the base. Writing a delta, it empties the other\n"
        '        base slot (the base the last compaction replaced, which no replay reads any more)."""\n'
        "        base, deltas = self.live(markers, batch_id)\n"
        '        other_base = next(slot for slot in self.BASES if not base or slot != base["slot"])\n'
        '        delta_rows = sum(m["rows"] for m in deltas)\n'
        '        if base and len(deltas) < self.COMPACT_AFTER and delta_rows < base["rows"]:\n'
        '            used = {m["slot"] for m in deltas}\n'
        '            free = next(f"delta-{i}" for i in range(self.COMPACT_AFTER) if f"delta-{i}" not in used)\n'
        '            self.write_slot(free, changes, "delta", batch_id)\n'
        '            if any(m["slot"] == other_base and m["kind"] == "base" for m in markers):\n'
        '                self.write_slot(other_base, changes.limit(0), "free", batch_id)\n'
        "        else:  # the base's images of the keys no delta holds (a base row keeps the version that wrote it)\n"
        '            after = base["batch"] if base else -1\n'
        '            updates = entries.where(F.col("__version") > after).unionByName(changes)\n'
        '            kept = entries.where(F.col("__version") <= after).join(updates, "key", "left_anti")\n'
        '            compacted = kept.unionByName(self.newest(updates)).where(F.col("value").isNotNull())\n'
        '            self.write_slot(other_base, compacted, "base", batch_id)\n'
        "\n"
        "    def apply(self, raw: DataFrame, batch_id: int) -> DataFrame:\n"
        '        """This micro-batch\'s changelog, in offset order per key; writes the micro-batch\'s state version first."""\n'
        "        for frame in self.cached:\n"
        "            frame.unpersist()\n"
        "        columns = raw.columns\n"
        "        markers = self.markers()\n"
        "        entries = self.read(raw, markers, batch_id)\n"
        '        batch = keyed(raw).select(*columns, F.lit(1).alias("__batch")).persist()\n'
        "        batch.count()  # read once; its measured size lets Spark broadcast the touched keys to the state's scan\n"
        '        touched = batch.select("key").distinct()  # only these keys\' images take part\n'
        '        images = self.newest(entries.join(touched, "key", "left_semi"))\n'
        '        images = images.where(F.col("value").isNotNull())  # a deleted key has no image\n'
        '        rows = batch.unionByName(images.select(*columns, F.lit(0).alias("__batch")))\n'
        '        by_key = Window.partitionBy("key").orderBy("__batch", "partition", "offset")\n'
        "        image = F.struct(*columns)\n"
        "        # the live image (null: absent or deleted); a record changes the key unless an identical re-upsert\n"
        '        live = F.when(F.col("value").isNotNull(), F.struct("value", "headers"))\n'
        "        changed = ~live.eqNullSafe(F.lag(live).over(by_key))\n"
        '        rows = rows.withColumn("__changed", changed)\n'
        '        before = F.last(F.when(F.col("__changed"), image), ignorenulls=True)\n'
        "        rows = rows.withColumn(\n"
        '            "__before", before.over(by_key.rowsBetween(Window.unboundedPreceding, -1))\n'
        "        )\n"
        '        rows = rows.where(F.col("__changed")).persist()\n'
        "        self.cached = [batch, rows]\n"
        "\n"
        "        # the keys this micro-batch changed, each with its newest image (a null value: deleted)\n"
        '        last_image = F.max_by(image, F.struct("partition", "offset")).alias("image")\n'
        '        changes = rows.where(F.col("__batch") == 1).groupBy("key").agg(last_image)\n'
        '        changes = changes.select("image.*", F.lit(batch_id).cast("long").alias("__version"))\n'
        "        self.write(entries, changes, markers, batch_id)\n"
        "\n"
        '        def event(op: str, row) -> "F.Column":\n'
        '            return F.struct(F.lit(op).alias("op"), row.alias("image"))\n'
        "\n"
        '        had = F.col("__before").getField("value").isNotNull()\n'
        '        has = F.col("value").isNotNull()\n'
        "        events = (\n"
        '            F.when(had & has, F.array(event("-U", F.col("__before")), event("+U", image)))\n'
        '            .when(has, F.array(event("+I", image)))\n'
        '            .otherwise(F.array(event("-D", F.col("__before"))))\n'
        "        )\n"
        '        emitted = rows.where(F.col("__batch") == 1).select(F.explode(events).alias("event"))\n'
        "        return emitted.select(\n"
        '            *(F.col("event").getField("image").getField(c).alias(c) for c in columns),\n'
        '            F.col("event").getField("op").alias("op"),\n'
        "        )\n"
    )


def _changelog_table_py(context, out, finalize):
    _include("changelog/keys.py.j2", context, out, finalize)
    out.append("\n" "\n" "def upsert_table(raw: DataFrame) -> DataFrame:\n")
    if context["dead_letters"]:
        out.append(
            '    """The table at the end of the topic: each key\'s last record by partition and offset; deleted keys are absent.\n'
            "    tolerance: all: only records that decode make the table; the others follow it, as read, for the dead letters.\n"
            '    """\n'
        )
    else:
        out.append(
            '    """The table at the end of the topic: each key\'s last record by partition and offset; deleted keys are absent."""\n'
        )
    if context["dead_letters"]:
        out.append("    raw, undecodable = decodable(raw)\n")
    out.append(
        '    latest = F.max_by(F.struct(*raw.columns), F.struct("partition", "offset")).alias("latest")\n'
        '    table = keyed(raw).groupBy("key").agg(latest).select("latest.*")\n'
    )
    if context["dead_letters"]:
        out.append('    return table.where(F.col("value").isNotNull()).unionByName(undecodable)\n')
    else:
        out.append('    return table.where(F.col("value").isNotNull())\n')


def _dead_letters_py(context, out, finalize):
    out.append('HEADERS = "ARRAY<STRUCT<key: STRING, value: BINARY>>"\n')
    if not _attribute(context["dlq"], "one_write"):
        out.append(
            "\n"
            "\n"
            "def split(rows: DataFrame) -> tuple[DataFrame, DataFrame]:\n"
            '    """(the sink\'s rows, the dead letters): a row with a record error goes to the dead-letter queue instead."""\n'
            '    failed = F.col("__error").isNotNull()\n'
            '    return rows.where(~failed).drop("__error", "__raw"), rows.where(failed)\n'
        )
    if not _attribute(context["dlq"], "topic"):
        out.append(
            "\n"
            "\n"
            "def b64(column: Column) -> Column:\n"
            '    """Base64 on one line (Spark\'s base64 breaks lines every 76 characters)."""\n'
            '    return F.regexp_replace(F.base64(column), "\\r\\n", "")\n'
        )
    out.append("\n" "\n" "def dead_letter_headers() -> Column:\n" '    """The record\'s own headers')
    if _attribute(context["dlq"], "context_headers"):
        out.append(", then Kafka Connect's __connect.errors.* context headers")
        if _attribute(context["dlq"], "file_lines"):
            out.append(" and the line's file and number")
    out.append('."""\n' '    raw = F.col("__raw")\n')
    if _attribute(context["dlq"], "context_headers"):
        out.append(
            "    context = {\n"
            '        "__connect.errors.topic": raw.getField("topic"),\n'
            '        "__connect.errors.partition": raw.getField("partition").cast("STRING"),\n'
            '        "__connect.errors.offset": raw.getField("offset").cast("STRING"),\n'
            '        "__connect.errors.stage": F.col("__error").getField("stage"),\n'
            '        "__connect.errors.class.name": F.col("__error").getField("class"),\n'
            '        "__connect.errors.exception.message": F.col("__error").getField("message"),\n'
            '        "__connect.errors.connector.name": F.lit(PIPELINE),\n'
        )
        if _attribute(context["dlq"], "file_lines"):
            out.append(
                '        "__pipec.errors.file.path": raw.getField("file"),\n'
                '        "__pipec.errors.file.line": raw.getField("offset").cast("STRING"),\n'
            )
        out.append(
            "    }\n"
            "    added = [\n"
            '        F.struct(F.lit(k).alias("key"), v.cast("BINARY").alias("value")) for k, v in context.items()\n'
            "    ]\n"
            '    return F.concat(F.coalesce(raw.getField("headers"), F.array().cast(HEADERS)), F.array(*added))\n'
        )
    else:
        out.append('    return raw.getField("headers")\n')
    if _attribute(context["dlq"], "one_write"):
        out.append(
            "\n"
            "\n"
            "def with_dead_letters(rows: DataFrame) -> DataFrame:\n"
            '    """The sink\'s rows, and in place of each row with a record error its dead letter (the record as read, to the\n'
            '    dead-letter topic): Spark\'s Kafka sink writes each row to its own `topic`."""\n'
            '    failed = F.col("__error").isNotNull()\n'
            '    raw = F.col("__raw")\n'
            "    topic = "
        )
        out.append(str(finalize(_attribute(context["dlq"], "topic"))))
        out.append(
            "\n"
            "    letter = {\n"
            '        "key": raw.getField("key"),\n'
            '        "value": raw.getField("value"),\n'
            '        "topic": F.lit(topic),\n'
            '        "headers": dead_letter_headers(),\n'
            "    }\n"
            '    kept = [name for name in rows.columns if name not in ("__error", "__raw")]\n'
            "    return rows.select(\n"
            "        *(\n"
            "            F.when(failed, letter.get(name, F.lit(None))).otherwise(F.col(name)).alias(name)\n"
            "            for name in kept\n"
            "        )\n"
            "    )\n"
            "\n"
            "\n"
            "def write_sink(rows: DataFrame, args: argparse.Namespace):\n"
            '    """The sink\'s rows and the dead letters in one write, each to its topic: one pass over each batch."""\n'
            "    return write_kafka(with_dead_letters(rows), args)\n"
        )
    else:
        out.append("\n" "\n" "def write_dead_letters(dead: DataFrame, args: argparse.Namespace) -> None:\n" '    """')
        out.append(str(finalize(_attribute(context["dlq"], "summary"))))
        out.append('"""\n' '    raw = F.col("__raw")\n')
        if _attribute(context["dlq"], "topic"):
            out.append(
                "    letters = dead.select(\n"
                '        raw.getField("key").alias("key"),\n'
                '        raw.getField("value").alias("value"),\n'
                '        dead_letter_headers().alias("headers"),\n'
                "    )\n"
                '    letters.write.format("kafka").options(**'
            )
            out.append(str(finalize(_attribute(context["dlq"], "options"))))
            out.append(').option("topic", ')
            out.append(str(finalize(_attribute(context["dlq"], "topic"))))
            out.append(').mode("append").save()\n')
        else:
            out.append(
                "    letters = dead.select(\n"
                '        b64(raw.getField("key")).alias("key"),\n'
                '        b64(raw.getField("value")).alias("value"),\n'
                '        raw.getField("topic").alias("topic"),\n'
                '        raw.getField("partition").alias("partition"),\n'
                '        raw.getField("offset").alias("offset"),\n'
            )
            if _attribute(context["dlq"], "file_lines"):
                out.append('        raw.getField("file").alias("file"),\n')
            out.append(
                '        raw.getField("timestamp").alias("timestamp"),\n'
                "        F.transform(\n"
                "            F.coalesce(dead_letter_headers(), F.array().cast(HEADERS)),\n"
                "            lambda h: F.struct(\n"
                '                h.getField("key").alias("key"), b64(h.getField("value")).alias("value")\n'
                "            ),\n"
                '        ).alias("headers"),\n'
                '        F.col("__error").alias("error"),\n'
                "    )\n"
                '    letters.write.mode("append").option("ignoreNullFields", "false").json('
            )
            out.append(str(finalize(_attribute(context["dlq"], "path"))))
            out.append(")\n")
        out.append(
            "\n"
            "\n"
            "def write_batch(rows: DataFrame, args: argparse.Namespace) -> None:\n"
            '    """One batch (or micro-batch), read once: good rows to the sink, dead letters to the dead-letter queue."""\n'
            "    rows = rows.persist()\n"
            "    try:\n"
            "        good, dead = split(rows)\n"
            "        write_good(good, args)\n"
            "        write_dead_letters(dead, args)\n"
            "    finally:\n"
            "        rows.unpersist()\n"
            "\n"
            "\n"
            "def write_sink(rows: DataFrame, args: argparse.Namespace):\n"
            '    """The sink (write_good) and the dead-letter queue, from one read of each batch."""\n'
        )
        if context["streaming_job"]:
            out.append(
                "    writer = rows.writeStream.foreachBatch(lambda batch, _batch_id: write_batch(batch, args))\n"
                '    writer = writer.option("checkpointLocation", args.checkpoint or '
            )
            out.append(str(finalize(_attribute(context["sink"], "checkpoint"))))
            out.append(")\n" "    return start_trigger(writer, args.trigger).start()\n")
        else:
            out.append("    write_batch(rows, args)\n" "    return None\n")


def _job_py(context, out, finalize):
    out.append('"""')
    out.append(str(finalize(context["title"])))
    out.append("\n" "\n" "Generated by pipec ")
    out.append(str(finalize(context["version"])))
    out.append(" from ")
    out.append(str(finalize(context["file"])))
    out.append("\n" "(sha256 ")
    out.append(str(finalize(context["sha256"])))
    out.append(
        "). Do not edit: change the YAML and run `pipec compile`.\n"
        "\n"
        "Record path: read_source -> transform (decode, chain, encode) -> write_sink. The pipeline's settings and code\n"
        "come first; the pipec runtime after them is the same in every job of this pipec version.\n"
        "Spark packages: "
    )
    out.append(str(finalize(context["packages_text"])))
    out.append(
        "\n"
        "The job sets spark.sql.session.timeZone=UTC and spark.sql.ansi.enabled=true on its own session.\n"
        "Run: python "
    )
    out.append(str(finalize(context["job_path"])))
    out.append(" [--help]   or   spark-submit ")
    out.append(str(finalize(context["packages_flag"])))
    out.append(str(finalize(context["job_path"])))
    out.append(
        "\n" "or, with SPARK_REMOTE=sc://HOST:PORT set (Spark Connect, the server holding the packages), python "
    )
    out.append(str(finalize(context["job_path"])))
    out.append(".\n" "With spark-submit, also pass --driver-java-options=")
    out.append(str(finalize(context["jvm_options_text"])))
    out.append(
        " (and the same in\n"
        "spark.executor.extraJavaOptions on a cluster), as the job does for a JVM it starts: long chains run faster.\n"
        '"""\n'
        "\n"
        "from __future__ import annotations\n"
        "\n"
        "import argparse\n"
        "import os\n"
        "import re\n"
        "import sys\n"
        "import tempfile\n"
        "import threading\n"
        "import time\n"
        "\n"
        "import pyspark\n"
    )
    if context["uses_window"]:
        out.append("from pyspark.sql import Column, DataFrame, Observation, SparkSession, Window\n")
    else:
        out.append("from pyspark.sql import Column, DataFrame, Observation, SparkSession\n")
    out.append("from pyspark.sql import functions as F\n" "from pyspark.sql.streaming import StreamingQueryListener\n")
    if context["uses_avro"]:
        out.append("from pyspark.sql.avro import functions as A\n")
    out.append("\n" "PIPELINE = ")
    out.append(str(finalize(context["name_literal"])))
    out.append("\n" "STREAMING = ")
    out.append(str(finalize(context["streaming"])))
    out.append("\n" "TRIGGER = ")
    out.append(str(finalize(context["trigger"])))
    out.append("  # --trigger's default\n" "DEAD_LETTERS = ")
    out.append(str(finalize(("True" if context["dead_letters"] else "False"))))
    out.append("  # errors.tolerance: all: bad records go to the dead-letter queue\n" "LOG_DEAD_LETTERS = ")
    out.append(str(finalize(("True" if (context["dead_letters"] and _attribute(context["dlq"], "log")) else "False"))))
    out.append("  # errors.log.enable: each batch's first dead letter and how many more\n" "LOG_RECORDS = ")
    out.append(
        str(finalize(("True" if (context["dead_letters"] and _attribute(context["dlq"], "log_messages")) else "False")))
    )
    out.append("  # errors.log.include.messages: with its key and value\n" "SPARK_CONNECTORS = ")
    out.append(str(finalize(context["connectors_literal"])))
    out.append(
        "  # spark_packages() picks their Scala suffix and release\n"
        "# table formats read or written: their Spark runtimes per Spark line (None: one publishes none), their session settings\n"
        "TABLE_RUNTIMES = "
    )
    out.append(str(finalize(context["table_runtimes"])))
    out.append("\n" "TABLE_SESSION = ")
    out.append(str(finalize(context["table_session"])))
    out.append("\n" "SPARK_NEEDED = ")
    out.append(str(finalize(context["spark_needed"])))
    out.append("  # the oldest Spark line with every function the job calls")
    out.append(str(finalize(context["spark_needed_by"])))
    out.append("\n" "SESSION_CONF = ")
    out.append(str(finalize(context["session_conf"])))
    out.append(
        "\n"
        "# avro-confluent payloads read or written through a Schema Registry: payload -> url, subject, client options\n"
        "SCHEMA_REGISTRY = "
    )
    out.append(str(finalize(context["schema_registry"])))
    out.append("\n" "\n" "\n")
    _include(context["source_template"], context, out, finalize)
    out.append(
        "\n"
        "\n"
        "def decode(raw: DataFrame) -> DataFrame:\n"
        '    """Source rows -> the record model: key, value, topic, partition, offset, timestamp, timestampType, headers."""\n'
        "    records = raw\n"
    )
    for l_1_line in context["decode"]:
        out.append("    ")
        out.append(str(finalize(l_1_line)))
        out.append("\n")
    out.append("    return records\n" "\n" "\n")
    if context["state_check"]:
        out.append(
            "def decode_errors(raw: DataFrame) -> DataFrame:\n"
            '    """tolerance: all: each record as read, with the record error (`__error`) its decoding raises, if any."""\n'
            "    records = raw\n"
        )
        for l_2_line in context["state_check"]:
            out.append("    ")
            out.append(str(finalize(l_2_line)))
            out.append("\n")
        out.append(
            '    return records.select(*(F.col("__raw").getField(c).alias(c) for c in raw.columns), "__error")\n'
            "\n"
            "\n"
        )
    out.append("def chain(records: DataFrame) -> DataFrame:\n" '    """The transform chain, in the YAML\'s order."""\n')
    for l_3_block in context["chain"]:
        for l_4_line in l_3_block:
            out.append("    ")
            out.append(str(finalize(l_4_line)))
            out.append("\n")
    out.append(
        "    return records\n"
        "\n"
        "\n"
        "def encode(records: DataFrame, counts: Counts | None = None) -> DataFrame:\n"
        '    """The record model -> the rows the sink writes."""\n'
    )
    for l_5_line in context["encode"]:
        out.append("    ")
        out.append(str(finalize(l_5_line)))
        out.append("\n")
    out.append("    return records\n" "\n" "\n")
    if context["dead_letters"] and _attribute(context["dlq"], "one_write"):
        l_6_is_streaming = context["is_streaming"] and (not context["per_batch"])
        l_7_sink_function = "write_kafka"
        _include(
            context["sink_template"],
            {**context, "is_streaming": l_6_is_streaming, "sink_function": l_7_sink_function},
            out,
            finalize,
        )
        out.append("\n" "\n")
        _include("dead_letters.py.j2", context, out, finalize)
    elif context["dead_letters"]:
        l_8_is_streaming = False
        l_9_sink_function = "write_good"
        _include(
            context["sink_template"],
            {**context, "is_streaming": l_8_is_streaming, "sink_function": l_9_sink_function},
            out,
            finalize,
        )
        out.append("\n" "\n")
        l_10_streaming_job = context["is_streaming"] and (not context["per_batch"])
        _include("dead_letters.py.j2", {**context, "streaming_job": l_10_streaming_job}, out, finalize)
    elif context["per_batch"]:
        l_11_is_streaming = False
        l_12_sink_function = "write_sink"
        _include(
            context["sink_template"],
            {**context, "is_streaming": l_11_is_streaming, "sink_function": l_12_sink_function},
            out,
            finalize,
        )
    else:
        l_13_sink_function = "write_sink"
        _include(context["sink_template"], {**context, "sink_function": l_13_sink_function}, out, finalize)
    if context["per_batch"]:
        out.append("\n" "\n")
        _include("per_batch.py.j2", context, out, finalize)
    out.append(
        "\n"
        "\n"
        "def start(raw: DataFrame, args: argparse.Namespace, counts: Counts):\n"
        '    """The source rows through the record path into the sink: a streaming query, or None after a batch run."""\n'
    )
    if context["per_batch"]:
        out.append("    return write_micro_batches(raw, args)  # the record path runs per micro-batch (above)\n")
    else:
        out.append("    return write_sink(transform(raw, counts), args)\n")
    out.append("\n" "\n")
    if context["table_formats"]:
        _include("tables/common.py.j2", context, out, finalize)
        out.append("\n" "\n")
    _include("runtime.py.j2", context, out, finalize)


def _per_batch_py(context, out, finalize):
    if context["changelog_state"]:
        out.append(
            "CHANGELOG_STATES: dict[str, ChangelogState] = {}  # per state folder, for the life of the query\n"
            "\n"
            "\n"
        )
    out.append(
        "def micro_batch(\n"
        "    raw: DataFrame, batch_id: int, checkpoint: str, counts: Counts | None = None\n"
        ") -> DataFrame:\n"
        '    """One micro-batch\'s sink rows: '
    )
    if context["changelog_state"]:
        out.append("its changelog against the state under the checkpoint, then ")
    out.append('the record path."""\n')
    if context["changelog_state"]:
        out.append(
            '    folder = checkpoint.rstrip("/") + "/changelog-state"\n'
            "    if folder not in CHANGELOG_STATES:\n"
            "        CHANGELOG_STATES[folder] = ChangelogState(raw.sparkSession, folder)\n"
        )
        if context["dead_letters"]:
            out.append(
                "    raw, undecodable = decodable(raw)  # a record that does not decode never reaches the state\n"
                "    raw = CHANGELOG_STATES[folder].apply(raw, batch_id)\n"
                "    # on to the dead letters, without an op\n"
                "    raw = raw.unionByName(undecodable, allowMissingColumns=True)\n"
            )
        else:
            out.append("    raw = CHANGELOG_STATES[folder].apply(raw, batch_id)\n")
    out.append(
        "    return transform(raw, counts)\n"
        "\n"
        "\n"
        "def write_micro_batches(raw: DataFrame, args: argparse.Namespace):\n"
        '    """Streaming through foreachBatch: '
    )
    if context["changelog_state"] or (not context["dead_letters"]):
        out.append("the per-key work")
    else:
        out.append("numbering the lines of each file")
    out.append(
        ' needs each micro-batch whole; the sink\'s batch writer writes it."""\n' "    checkpoint = args.checkpoint or "
    )
    out.append(str(finalize(_attribute(context["sink"], "checkpoint"))))
    out.append("\n" "\n" "    def one(batch: DataFrame, batch_id: int) -> None:\n" "        counts = Counts(False)\n")
    if context["table"]:
        out.append("        args.batch_id = batch_id  # the table's idempotent write (appends) names the micro-batch\n")
    out.append(
        "        write_sink(micro_batch(batch, batch_id, checkpoint, counts), args)\n"
        "        counts.report_micro_batch(batch, batch_id)\n"
        "\n"
        '    writer = raw.writeStream.foreachBatch(one).option("checkpointLocation", checkpoint)\n'
        "    return start_trigger(writer, args.trigger).start()\n"
    )


def _runtime_py(context, out, finalize):
    out.append("# pipec runtime ")
    out.append(str(finalize(context["version"])))
    out.append(
        ": the same in every job of this pipec version; a reviewer may skip it.\n"
        "# It runs the pipeline above: arguments, Spark session, counts, failures, main.\n"
        "\n"
        "# Spark line -> (Scala suffix, connector release that resolves from Maven Central; None: the Spark's own version)\n"
        "SPARK_LINES = "
    )
    out.append(str(finalize(context["spark_lines"])))
    out.append("\n" "JVM_OPTIONS = ")
    out.append(str(finalize(context["jvm_options"])))
    out.append(
        "  # for a JVM the job starts itself: compile Spark's large generated methods too\n"
        "# where a JVM the job starts writes its own output (start_quietly)\n"
        'SPARK_LOG = os.environ.get("PIPEC_SPARK_LOG") or os.path.join(\n'
        '    tempfile.gettempdir(), f"pipec-{PIPELINE}-spark.log"\n'
        ")\n"
        "\n"
        "# Counts the sink reports of its own write (a table's MERGE: its fates and the rows inserted, updated, deleted)\n"
        "SINK_COUNTS: dict[str, dict[str, int]] = {}\n"
        "\n"
        '_ENV_REF = re.compile(r"\\$\\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\\}")\n'
        "\n"
        "\n"
        "def env(template: str) -> str:\n"
        '    """Resolve ${env:NAME} and ${env:NAME:-default} at run time; $${ stands for a literal ${."""\n'
        "\n"
        "    def value(match: re.Match) -> str:\n"
        "        name, default = match.group(1), match.group(2)\n"
        "        if name in os.environ:\n"
        "            return os.environ[name]\n"
        "        if default is not None:\n"
        "            return default\n"
        '        raise SystemExit(f"{PIPELINE}: environment variable {name} is not set")\n'
        "\n"
        '    return "${".join(_ENV_REF.sub(value, part) for part in template.split("$${"))\n'
        "\n"
        "\n"
        "class Counts:\n"
        '    """Rows in, written, filtered, superseded and dead-lettered, via Spark\'s observed metrics: one line per\n'
        '    micro-batch, or per batch run. in = written + filtered + superseded + dead_lettered, exactly."""\n'
        "\n"
        "    # after decoding; reaching the sink (written, superseded or dead-lettered)\n"
        '    POINTS = ("in", "out")\n'
        "    # an upsert sink's fates (Flink's reducing writer): rows superseded by a later change of their key in the\n"
        "    # micro-batch, and `-U` rows it never writes (counted as filtered); none for other sinks\n"
        '    OPTIONAL = ("fates",)\n'
        "\n"
        "    def __init__(self, streaming: bool):\n"
        "        self.streaming = streaming\n"
        "        self.observations: dict[str, Observation] = {}\n"
        "\n"
        "    @staticmethod\n"
        "    def metrics(point: str) -> list[Column]:\n"
        '        if point == "fates":\n'
        '            fate = F.col("__fate")\n'
        "            return [\n"
        '                F.count(F.when(fate == F.lit("superseded"), 1)).alias("superseded"),\n'
        '                F.count(F.when(fate == F.lit("filtered"), 1)).alias("filtered"),\n'
        "            ]\n"
        '        metrics = [F.count(F.lit(1)).alias("rows")]\n'
        '        if point == "out" and DEAD_LETTERS:\n'
        '            metrics.append(F.count(F.col("__error")).alias("dead"))\n'
        "            if LOG_DEAD_LETTERS:\n"
        '                metrics.append(Counts.first_dead_letter().alias("first"))\n'
        "        return metrics\n"
        "\n"
        "    @staticmethod\n"
        "    def first_dead_letter() -> Column:\n"
        '        """log.enable: the message of the batch\'s dead letter of the lowest offset, gathered with\n'
        '        the counts (one aggregate: each more costs some 15 ms a micro-batch, docs/errors.md)."""\n'
        '        raw, error = F.col("__raw"), F.col("__error")\n'
        '        text = error.getField("message")\n'
        "        if LOG_RECORDS:\n"
        "            # the record's key and value, base64 on one line (Spark's base64 breaks lines every 76 characters)\n"
        '            key, value = (F.regexp_replace(F.base64(raw[c]), "\\r\\n", "") for c in ("key", "value"))\n'
        '            text = F.format_string("%s key(base64)=%s value(base64)=%s", text, key, value)\n'
        '        return F.min_by(text, F.when(error.isNotNull(), raw.getField("offset")))\n'
        "\n"
        "    def mark(self, records: DataFrame, point: str) -> DataFrame:\n"
        "        if self.streaming:\n"
        '            return records.observe(f"pipec_{point}", *self.metrics(point))\n'
        '        self.observations[point] = Observation(f"pipec_{point}")\n'
        "        return records.observe(self.observations[point], *self.metrics(point))\n"
        "\n"
        "    @staticmethod\n"
        "    def line(label: str, metrics: dict[str, dict]) -> str:\n"
        '        rows_in, out = metrics["in"]["rows"], metrics["out"]["rows"]\n'
        '        dead = metrics["out"].get("dead", 0)\n'
        '        superseded = metrics.get("fates", {}).get("superseded", 0)\n'
        '        sink_filtered = metrics.get("fates", {}).get("filtered", 0)\n'
        "        written = out - dead - superseded - sink_filtered\n"
        "        line = (\n"
        '            f"[{PIPELINE}] {label}: in={rows_in} written={written} filtered={rows_in - out + sink_filtered} "\n'
        '            f"superseded={superseded} dead_lettered={dead}"\n'
        "        )\n"
        "        # a table sink: the rows written, as the table took them (an append inserts them)\n"
        '        if "table" in metrics:\n'
        '            table = {"inserted": written, "updated": 0, "deleted": 0, **metrics["table"]}\n'
        "            line += f\" inserted={table['inserted']} updated={table['updated']} deleted={table['deleted']}\"\n"
        "        return line\n"
        "\n"
        "    @staticmethod\n"
        "    def by_name(metric) -> dict:\n"
        '        """An observed metric\'s values by name, whatever its shape: a Row (Spark), a dict (an Observation\n'
        '        under Spark Connect) or a Row of `values` and `schema` (a streaming progress, Connect)."""\n'
        '        values = metric.asDict() if hasattr(metric, "asDict") else dict(metric)\n'
        '        if set(values) == {"values", "schema"} and isinstance(values["schema"], dict):\n'
        '            return {f["name"]: v for f, v in zip(values["schema"]["fields"], values["values"])}\n'
        "        return values\n"
        "\n"
        "    def batch_lines(self, label: str) -> list[tuple[str, bool]]:\n"
        '        """[(the counts line, True)] and log.enable\'s dead letter (False), or [(why there are no counts, False)]."""\n'
        "        try:\n"
        "            metrics = {point: self.by_name(o.get) for point, o in self.observations.items()}\n"
        "            metrics.update(SINK_COUNTS)  # the sink's own counts of this write, if it reports any\n"
        "            SINK_COUNTS.clear()\n"
        "            return [(self.line(label, metrics), True), *self.dead_letter_lines(metrics)]\n"
        "        except Exception as exc:\n"
        "            return [(unavailable(label, exc), False)]\n"
        "\n"
        "    @staticmethod\n"
        "    def dead_letter_lines(metrics: dict[str, dict]) -> list[tuple[str, bool]]:\n"
        '        """log.enable: the batch\'s first dead letter and how many more (the queue has them all), for stderr."""\n'
        '        first, more = metrics["out"].get("first"), metrics["out"].get("dead", 0) - 1\n'
        "        if first is None:\n"
        "            return []\n"
        '        also = f" (and {more} more in this batch)" if more > 0 else ""\n'
        '        return [(f"[{PIPELINE}] dead letter: {first}{also}", False)]\n'
        "\n"
        '    def report_batch(self, label: str = "batch") -> None:\n'
        '        """Print the counts; counts Spark did not deliver are said on stderr and never fail a committed write."""\n'
        "        say(self.batch_lines(label))\n"
        "\n"
        "    def report_micro_batch(self, batch: DataFrame, batch_id: int) -> None:\n"
        '        """A micro-batch function\'s counts, after its write: printed, or under Spark Connect handed to the client,\n'
        '        which prints them when the batch\'s progress arrives (print_handed)."""\n'
        '        lines = self.batch_lines(f"micro-batch {batch_id}")\n'
        "        if _CLIENT[1]:\n"
        "            hand_over(batch.sparkSession, batch_id, lines)\n"
        "        else:\n"
        "            say(lines)\n"
        "\n"
        "\n"
        "def unavailable(label: str, exc: BaseException) -> str:\n"
        '    return f"[{PIPELINE}] {label}: counts unavailable ({type(exc).__name__}: {failure(exc)})"\n'
        "\n"
        "\n"
        "def say(lines: list[tuple[str, bool]]) -> None:\n"
        '    """Counts lines on stdout (True); why there are no counts, and logged dead letters, on stderr (False)."""\n'
        "    for line, counted in lines:\n"
        "        print(line, file=sys.stdout if counted else sys.stderr, flush=True)\n"
        "\n"
        "\n"
        "# Spark Connect runs a micro-batch function in a Python worker of its server, whose output goes to the server's log,\n"
        "# on the client's session or (from Spark 4.3) a clone of it. The function leaves its lines in a global temporary view,\n"
        "# which every session of the server sees, named after the run (_RUN, taken once on the client: the function carries\n"
        "# it) and the batch; the client prints the lines when that batch's progress arrives, then drops the view.\n"
        "_RUN = os.urandom(8).hex()\n"
        'GLOBAL_TEMP = "spark.sql.globalTempDatabase"\n'
        "\n"
        "\n"
        "def handed_view(batch_id: int) -> str:\n"
        '    return f"pipec_counts_{_RUN}_{batch_id}"\n'
        "\n"
        "\n"
        "def hand_over(session: SparkSession, batch_id: int, lines: list[tuple[str, bool]]) -> None:\n"
        '    """Leave the lines for the client; failing to is said in the server\'s log, and never fails the batch."""\n'
        "    try:\n"
        "        # a local relation: the client reads the rows back in this order\n"
        '        rows = [("out" if counted else "err", line) for line, counted in lines]\n'
        '        handed = session.createDataFrame(rows, "stream STRING, line STRING")\n'
        "        handed.createOrReplaceGlobalTempView(handed_view(batch_id))\n"
        "    except Exception as exc:\n"
        '        say([(unavailable(f"micro-batch {batch_id}", exc), False)])\n'
        "\n"
        "\n"
        "def print_handed(session: SparkSession, batch_id: int) -> bool:\n"
        '    """Print the lines micro-batch `batch_id`\'s function handed over, and drop them; False when there are none. A\n'
        '    view the client cannot read is said on stderr: counts never fail a committed write."""\n'
        "    view = handed_view(batch_id)\n"
        "    try:\n"
        "        qualified = f\"{session.conf.get(GLOBAL_TEMP, 'global_temp')}.{view}\"\n"
        "        if not session.catalog.tableExists(qualified):\n"
        "            return False\n"
        "        rows = session.table(qualified).collect()\n"
        "        session.catalog.dropGlobalTempView(view)\n"
        "    except Exception as exc:\n"
        '        say([(unavailable(f"micro-batch {batch_id}", exc), False)])\n'
        "        return True\n"
        '    say([(row.line, row.stream == "out") for row in rows])\n'
        "    return True\n"
        "\n"
        "\n"
        "def progress_lines(batch: int, metrics: dict) -> list[tuple[str, bool]]:\n"
        "    \"\"\"A micro-batch's counts line (and log.enable's dead letter) from its progress's observed metrics, or why\n"
        '    there are no counts."""\n'
        '    label = f"micro-batch {batch}"\n'
        "    try:\n"
        "        rows = {\n"
        '            p: Counts.by_name(metrics[f"pipec_{p}"])\n'
        "            for p in Counts.POINTS + Counts.OPTIONAL\n"
        '            if f"pipec_{p}" in metrics\n'
        "        }\n"
        "        return [(Counts.line(label, rows), True), *Counts.dead_letter_lines(rows)]\n"
        "    except Exception as exc:\n"
        "        return [(unavailable(label, exc), False)]\n"
        "\n"
        "\n"
        "def report_progress(progress, after: int = -1, session: SparkSession | None = None) -> int:\n"
        '    """Print the counts line of a micro-batch\'s progress newer than batch `after`: from the job\'s observed metrics\n'
        "    it carries, or, under Spark Connect (given the client's session), the line its micro-batch function handed\n"
        '    over. Returns the newest batch reported."""\n'
        "    if isinstance(progress, dict):  # Spark Connect 3.5: the progress as parsed JSON\n"
        '        batch, metrics = progress["batchId"], progress.get("observedMetrics") or {}\n'
        "    else:\n"
        "        batch, metrics = progress.batchId, progress.observedMetrics\n"
        "    if batch <= after:\n"
        "        return after\n"
        '    if all(f"pipec_{p}" in metrics for p in Counts.POINTS):\n'
        "        say(progress_lines(batch, metrics))\n"
        "        return batch\n"
        "    handed = session is not None and _CLIENT[1] and print_handed(session, batch)\n"
        "    return batch if handed else after\n"
        "\n"
        "\n"
        "class CountLines(StreamingQueryListener):\n"
        '    """Prints each micro-batch\'s counts as Spark reports its progress, which it does once the batch is committed\n'
        "    (its commits/N file written): a killed run has printed the line of every batch it committed, but for one\n"
        '    committed in the last milliseconds before the kill (Spark posts the events asynchronously)."""\n'
        "\n"
        "    def __init__(self, session: SparkSession) -> None:\n"
        "        self.session = session  # to remove it once the query ends\n"
        "        self.terminated = threading.Event()\n"
        "\n"
        "    @staticmethod\n"
        "    def runs_here() -> bool:\n"
        '        """Spark Connect before 4.0 runs a listener on its server, where the lines would be lost."""\n'
        '        return "SPARK_REMOTE" not in os.environ or int(pyspark.__version__.split(".")[0]) >= 4\n'
        "\n"
        "    def onQueryStarted(self, event) -> None:\n"
        "        pass\n"
        "\n"
        "    def onQueryProgress(self, event) -> None:\n"
        "        report_progress(event.progress, session=self.session)\n"
        "\n"
        "    def onQueryIdle(self, event) -> None:\n"
        "        pass\n"
        "\n"
        "    def onQueryTerminated(self, event) -> None:\n"
        "        self.terminated.set()\n"
        "\n"
        "\n"
        "def await_query(query, session: SparkSession, lines: CountLines | None) -> None:\n"
        '    """Wait for a streaming query and its last counts line (then remove the listener); without the listener,\n'
        '    print the lines from the query\'s progress every few seconds."""\n'
        "    reported = -1\n"
        "\n"
        "    def poll() -> None:\n"
        "        nonlocal reported\n"
        "        for progress in query.recentProgress:\n"
        "            reported = report_progress(progress, reported, session)\n"
        "\n"
        "    try:\n"
        "        while not query.awaitTermination(5):\n"
        "            if lines is None:\n"
        "                poll()\n"
        "    finally:\n"
        "        if lines is None:\n"
        "            poll()\n"
        "        else:\n"
        "            lines.terminated.wait(10)\n"
        "            lines.session.streams.removeListener(lines)\n"
        "\n"
        "\n"
        "def start_trigger(writer, trigger: str | None):\n"
        '    """available-now | once | processing-time: <interval> | real-time[: <checkpoint interval>]; None runs\n'
        '    micro-batches back to back."""\n'
        "    if trigger is None:\n"
        "        return writer\n"
        '    kind, _, interval = (part.strip() for part in trigger.partition(":"))\n'
        '    if kind == "available-now" and not interval:\n'
        "        return writer.trigger(availableNow=True)\n"
        '    if kind == "once" and not interval:\n'
        "        return writer.trigger(once=True)\n"
        '    if kind == "processing-time" and interval:\n'
        "        return writer.trigger(processingTime=interval)\n"
        '    if kind == "real-time":\n'
        "        # Spark 4.1+: long-running tasks write each record as it arrives, in update mode (stateless: the same\n"
        "        # rows as append); the interval is how often it checkpoints, not a latency (Spark's default: 5 minutes)\n"
        '        return writer.outputMode("update").trigger(realTime=interval or "5 minutes")\n'
        '    raise SystemExit(f"{PIPELINE}: unknown trigger {trigger!r}")\n'
        "\n"
        "\n"
        "def transform(raw: DataFrame, counts: Counts | None = None) -> DataFrame:\n"
        '    """The whole record path, from the source\'s raw rows to the sink\'s rows."""\n'
        "    records = decode(raw)\n"
        "    if counts:\n"
        '        records = counts.mark(records, "in")\n'
        "    records = chain(records)\n"
        "    if counts:\n"
        '        records = counts.mark(records, "out")\n'
        "    return encode(records, counts)\n"
        "\n"
        "\n"
        "def spark_packages(spark_version: str, release: str | None = None) -> list[str]:\n"
        '    """The connectors\' Maven coordinates for a Spark version: its line\'s Scala suffix and connector release\n'
        '    (SPARK_LINES; a line newer than the table: the Spark\'s own version), or `release` when given."""\n'
        '    line = ".".join(spark_version.split(".")[:2])\n'
        '    scala, known = SPARK_LINES.get(line, ("2.13", None))\n'
        '    table = TABLE_RUNTIMES[line].split(",") if TABLE_RUNTIMES.get(line) else []  # table formats\n'
        "    return [\n"
        '        f"org.apache.spark:{artifact}_{scala}:{release or known or spark_version}"\n'
        "        for artifact in SPARK_CONNECTORS\n"
        "    ] + table\n"
        "\n"
        "\n"
        "def check_spark(spark: SparkSession) -> None:\n"
        '    """Fail in one line when the Spark is older than the job needs, or a connector on spark.jars.packages is of\n'
        '    another Spark line (a 4.0 Kafka connector on Spark 4.1 fails mid-stream)."""\n'
        "    version = spark.version\n"
        '    line = ".".join(version.split(".")[:2])\n'
        '    if tuple(map(int, line.split("."))) < tuple(map(int, SPARK_NEEDED.split("."))):\n'
        "        raise SystemExit(\n"
        '            f"{PIPELINE}: needs Spark {SPARK_NEEDED} or newer for the functions it calls; this is Spark {version}"\n'
        "        )\n"
        "    if TABLE_RUNTIMES and not TABLE_RUNTIMES.get(line):\n"
        '        lines = ", ".join(name for name, coordinate in TABLE_RUNTIMES.items() if coordinate)\n'
        "        raise SystemExit(\n"
        '            f"{PIPELINE}: the table format publishes no Spark runtime for Spark {version}; Spark lines with one: {lines}"\n'
        "        )\n"
        "    wanted = spark_packages(version)\n"
        '    for coordinate in filter(None, spark.conf.get("spark.jars.packages", "").split(",")):\n'
        '        _, artifact, release = (coordinate.strip().split(":") + ["", ""])[:3]\n'
        '        if artifact.rsplit("_", 1)[0] in SPARK_CONNECTORS and not release.startswith(line + "."):\n'
        "            raise SystemExit(\n"
        '                f"{PIPELINE}: connector {coordinate.strip()} does not match Spark {version}: pass "\n'
        '                f"--spark-packages-version {line}.N (or set PIPEC_SPARK_PACKAGES_VERSION), or to spark-submit "\n'
        "                f\"--packages {','.join(wanted)}\"\n"
        "            )\n"
        "\n"
        "\n"
        "# Where the job was started, and whether through Spark Connect: taken once, on the client. A micro-batch function\n"
        "# Spark Connect runs in its server's Python worker carries these values with it, so paths resolve as the client meant.\n"
        '_CLIENT = (os.getcwd(), "SPARK_REMOTE" in os.environ)\n'
        "\n"
        "\n"
        "def location(path: str | None) -> str | None:\n"
        '    """A path as the job means it. Under Spark Connect (SPARK_REMOTE) the server has another working directory:\n'
        "    a relative local path is made absolute against the client's. Otherwise as given (on a cluster a relative path\n"
        '    is relative to the default file system\'s working directory)."""\n'
        "    cwd, remote = _CLIENT\n"
        '    if path and remote and not re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", path):\n'
        "        return os.path.normpath(os.path.join(cwd, path))\n"
        "    return path\n"
        "\n"
        "\n"
        "def parse_args(argv: list[str] | None) -> argparse.Namespace:\n"
        '    release = os.environ.get("PIPEC_SPARK_PACKAGES_VERSION")\n'
        '    packages = ",".join(spark_packages(pyspark.__version__, release))\n'
        '    description = __doc__.split("\\n")[0]\n'
        "    parser = argparse.ArgumentParser(\n"
        "        prog=PIPELINE,\n"
        "        # argparse %-formats a description only when it holds %(prog): then every % is escaped, else none\n"
        '        description=description.replace("%", "%%") if "%(prog)" in description else description,\n'
        "        formatter_class=argparse.RawDescriptionHelpFormatter,  # the coordinates unbroken\n"
        "        epilog=f\"Spark packages for this pyspark ({pyspark.__version__}):\\n  {packages or 'none'}\\nA JVM the job \"\n"
        '        "starts gets them itself; give them to spark-submit as --packages; a Spark Connect server needs them.",\n'
        "    )\n"
        "    parser.add_argument(\n"
        '        "--bootstrap-servers",\n'
        '        help="Kafka bootstrap servers (overrides the YAML\'s bootstrap.servers)",\n'
        "    )\n"
        '    parser.add_argument("--checkpoint", help="streaming checkpoint folder (overrides the YAML\'s)")\n'
        "    parser.add_argument(\n"
        '        "--trigger",\n'
        "        help=\"available-now | once | 'processing-time: 10 seconds' | real-time (Spark 4.1+)\",\n"
        "    )\n"
        "    parser.add_argument(\n"
        '        "--master",\n'
        '        help="Spark master of a JVM the job starts itself (default local[*]); ignored under spark-submit, whose "\n'
        '        "--master stands, and under Spark Connect (SPARK_REMOTE)",\n'
        "    )\n"
        "    parser.add_argument(\n"
        '        "--spark-packages-version",\n'
        "        default=release,\n"
        '        metavar="VERSION",\n'
        '        help="connector release for a JVM the job starts, of the same Spark line (default: the table\'s for the "\n'
        '        "line, else the Spark\'s own version; env PIPEC_SPARK_PACKAGES_VERSION), e.g. for a mirror that lacks it",\n'
        "    )\n"
        "    parser.add_argument(\n"
        '        "--conf", action="append", default=[], metavar="K=V", help="extra Spark configuration"\n'
        "    )\n"
        "    parser.add_argument(\n"
        '        "--source-path", help="read from this path instead of the YAML\'s (files source)"\n'
        "    )\n"
        '    parser.add_argument("--sink-path", help="write to this path instead of the YAML\'s (files sink)")\n'
        "    parser.add_argument(\n"
        '        "--verbose",\n'
        '        action="store_true",\n'
        "        help=f\"show the output of a JVM the job starts (Ivy's resolution, Spark's warnings); default: {SPARK_LOG}\",\n"
        "    )\n"
        "    args = parser.parse_args(argv)\n"
        "    args.streaming = STREAMING\n"
        '    for name in ("checkpoint", "source_path", "sink_path"):\n'
        "        setattr(args, name, location(getattr(args, name)))\n"
        "    args.trigger = args.trigger or TRIGGER\n"
        "    return args\n"
        "\n"
        "\n"
        "def session(args: argparse.Namespace) -> SparkSession:\n"
        '    """The job\'s own session: its configuration, UTC and ANSI; a JVM it starts itself also gets the master, the\n'
        "    connectors of its Spark and JVM_OPTIONS, and starts quietly. Under spark-submit (its JVM exists: its --master\n"
        "    and --packages stand) and Spark Connect (SPARK_REMOTE: the server has them) only SQL configuration is\n"
        '    set."""\n'
        "    builder = SparkSession.builder.appName(PIPELINE)\n"
        '    extra = dict(item.split("=", 1) for item in args.conf)\n'
        '    embedded = "PYSPARK_GATEWAY_PORT" not in os.environ and "SPARK_REMOTE" not in os.environ\n'
        "    packages = spark_packages(pyspark.__version__, args.spark_packages_version) if embedded else []\n"
        "    if embedded:\n"
        '        builder = builder.master(args.master or "local[*]").config(\n'
        '            "spark.ui.showConsoleProgress", "false"\n'
        "        )\n"
        "        if packages:\n"
        '            builder = builder.config("spark.jars.packages", ",".join(packages))\n'
        "        for key, value in TABLE_SESSION.items():  # the table format's SQL extensions and catalog\n"
        "            builder = builder.config(key, value)\n"
        '        options = "spark.driver.extraJavaOptions"\n'
        '        extra[options] = " ".join(filter(None, (JVM_OPTIONS, extra.get(options))))\n'
        "    elif args.master:\n"
        "        print(\n"
        '            f"{PIPELINE}: --master {args.master} ignored: spark-submit or Spark Connect chose the master",\n'
        "            file=sys.stderr,\n"
        "        )\n"
        "    for key, value in {**extra, **SESSION_CONF}.items():\n"
        "        builder = builder.config(key, value)\n"
        "    if embedded and not args.verbose and SparkSession.getActiveSession() is None:  # a JVM starts\n"
        "        spark = start_quietly(builder, packages)\n"
        "    else:\n"
        "        spark = builder.getOrCreate()\n"
        "    for key, value in SESSION_CONF.items():\n"
        "        spark.conf.set(key, value)\n"
        "    check_spark(spark)\n"
        "    return spark\n"
        "\n"
        "\n"
        "def start_quietly(builder, packages: list[str]) -> SparkSession:\n"
        '    """Start the JVM in one line on stderr ("resolving spark-sql-kafka-0-10 4.2.0 ... done in 1.2 s"): the JVM\'s own\n'
        "    output (Ivy's resolution report, its proxy and repository warnings, log4j's start-up warnings and later lines)\n"
        '    goes to SPARK_LOG (env PIPEC_SPARK_LOG; --verbose: the terminal)."""\n'
        "    names = \", \".join(f\"{c.split(':')[1].rsplit('_', 1)[0]} {c.split(':')[2]}\" for c in packages)\n"
        '    what = f"resolving {names}" if names else f"starting Spark {pyspark.__version__}"\n'
        '    print(f"{what} ...", end="", file=sys.stderr, flush=True)\n'
        "    began, saved = time.monotonic(), os.dup(2)\n"
        "    try:\n"
        '        with open(SPARK_LOG, "wb") as log:\n'
        "            os.dup2(log.fileno(), 2)  # the JVM inherits it; Python's stderr comes back below\n"
        "            try:\n"
        "                spark = builder.getOrCreate()\n"
        "            finally:\n"
        "                os.dup2(saved, 2)\n"
        "    except Exception:\n"
        '        with open(SPARK_LOG, encoding="utf-8", errors="replace") as log:\n'
        '            why = [line.strip() for line in log if line.startswith(("Exception", "Error"))]\n'
        '        said = f": {why[-1]}" if why else ""\n'
        '        print(f" failed{said} (Spark\'s output: {SPARK_LOG})", file=sys.stderr, flush=True)\n'
        "        raise\n"
        "    finally:\n"
        "        os.close(saved)\n"
        '    print(f" done in {time.monotonic() - began:.1f} s", file=sys.stderr, flush=True)\n'
        "    return spark\n"
        "\n"
        "\n"
        "# A record error is Spark's USER_RAISED_EXCEPTION, whose SQLSTATE is always P0001. A query whose Python micro-batch\n"
        "# function failed carries it only as text: the traceback Py4J passed on, inside Spark's STREAM_FAILED message.\n"
        '_RECORD_ERROR = re.compile(r"\\[USER_RAISED_EXCEPTION\\] (.*?) SQLSTATE: P0001", re.S)\n'
        '_TRACEBACK = "Traceback (most recent call last):"\n'
        "# Py4J's own line, which the Java exception's line follows; a line naming a qualified exception class\n"
        '_PY4J_CALL = "An error occurred while calling "\n'
        '_RAISED = re.compile(r"^:? ?(?:[A-Za-z_]\\w*\\.)+(\\w*(?:Exception|Error)): (.*)$")\n'
        "\n"
        "\n"
        "def failure(exc: BaseException) -> str:\n"
        '    """One line for a failed query: the record error (step, field, reason, topic, partition, offset), else\n'
        '    the first line that says why, without Spark\'s wrappers, tracebacks or stack traces."""\n'
        "    text = str(exc)\n"
        "    record = _RECORD_ERROR.search(text)\n"
        "    if record:\n"
        '        return "record error: " + record.group(1).replace("\\r", "\\\\r").replace("\\n", "\\\\n")\n'
        '    if getattr(exc, "getCondition", lambda: None)() == "STREAM_FAILED":\n'
        '        text = (exc.getMessageParameters() or {}).get("message", text)  # its cause, without the ids\n'
        "    if _TRACEBACK in text:\n"
        "        # raised in a micro-batch function: drop the frames, keep the exception's lines\n"
        '        text = "\\n".join(\n'
        "            line for line in text.rsplit(_TRACEBACK, 1)[1].splitlines() if line[:1].strip()\n"
        "        )\n"
        "    for line in (line.strip() for line in text.splitlines()):\n"
        "        raised = _RAISED.match(line)\n"
        '        name, message = raised.groups() if raised else ("", line)\n'
        "        if message and not message.startswith(_PY4J_CALL):\n"
        '            return message if not name or message.startswith("[") else f"{name}: {message}"\n'
        "    return type(exc).__name__\n"
        "\n"
        "\n"
        "# Schema Registry (SCHEMA_REGISTRY above; Confluent's REST API over HTTP from the driver, standard library only).\n"
        "# An avro-confluent source decodes each record with the writer schema its id names: the job fetches every version\n"
        "# of the subject when it starts, and an id it has not met stops the query (or batch run), is fetched, and the\n"
        "# query runs again from its checkpoint. A sink registers its schema under the subject and frames records with\n"
        "# the id the registry returns. The registry's answers shape native expressions; no record leaves the JVM.\n"
        "# payload -> schema id -> writer schema (None: not in the registry); sink payload -> the id of its schema\n"
        "WRITER_SCHEMAS: dict[str, dict[int, str | None]] = {}\n"
        "WRITTEN_IDS: dict[str, int] = {}\n"
        '_UNFETCHED = re.compile(r"pipec: schema id (\\d+) of the (source\\.(?:key|value)) is not fetched yet")\n'
        "\n"
        "\n"
        "def registry_call(payload: str, path: str, body: dict | None = None):\n"
        '    """The registry\'s JSON answer to GET `path` (POST `body`), or None when it answers 404 (no such subject,\n'
        '    version or id); any other failure ends the job with a line that names the registry."""\n'
        "    import base64\n"
        "    import json\n"
        "    import ssl\n"
        "    import urllib.error\n"
        "    import urllib.request\n"
        "\n"
        "    config = {key: env(value) for key, value in SCHEMA_REGISTRY[payload].items()}\n"
        '    url = config["url"].rstrip("/") + path\n'
        '    headers = {"Accept": "application/vnd.schemaregistry.v1+json, application/json"}\n'
        '    if "basic-auth.user-info" in config:\n'
        '        user_info = base64.b64encode(config["basic-auth.user-info"].encode()).decode()\n'
        '        headers["Authorization"] = f"Basic {user_info}"\n'
        '    if "bearer-auth.token" in config:\n'
        '        headers["Authorization"] = f"Bearer {config[\'bearer-auth.token\']}"\n'
        "    data = None\n"
        "    if body is not None:\n"
        "        data = json.dumps(body).encode()\n"
        '        headers["Content-Type"] = "application/vnd.schemaregistry.v1+json"\n'
        "    request = urllib.request.Request(url, data=data, headers=headers)\n"
        '    tls = ssl.create_default_context(cafile=config.get("ssl.ca-location"))\n'
        "    try:\n"
        '        context = tls if url.startswith("https:") else None\n'
        "        with urllib.request.urlopen(request, timeout=30, context=context) as answer:\n"
        "            return json.load(answer)\n"
        "    except urllib.error.HTTPError as error:\n"
        "        if error.code == 404:\n"
        "            return None\n"
        '        detail = error.read().decode(errors="replace")[:500]\n'
        '        raise SystemExit(f"{PIPELINE}: Schema Registry {url}: HTTP {error.code} {detail}") from None\n'
        "    except (OSError, ValueError) as error:\n"
        '        raise SystemExit(f"{PIPELINE}: Schema Registry {url}: {error}") from None\n'
        "\n"
        "\n"
        "def subject_path(payload: str) -> str:\n"
        "    import urllib.parse\n"
        "\n"
        '    return "/subjects/" + urllib.parse.quote(env(SCHEMA_REGISTRY[payload]["subject"]), safe="")\n'
        "\n"
        "\n"
        "def fetch_writer_schemas(payload: str, ids: list[int] | None = None) -> None:\n"
        '    """Every version of the payload\'s subject (ids None), or the schemas of these ids; a non-Avro schema counts\n'
        '    as unknown."""\n'
        "    known = WRITER_SCHEMAS.setdefault(payload, {})\n"
        "    if ids is None:\n"
        '        for version in registry_call(payload, subject_path(payload) + "/versions") or []:\n'
        '            answer = registry_call(payload, f"{subject_path(payload)}/versions/{version}")\n'
        '            if answer and answer.get("schemaType", "AVRO") == "AVRO":\n'
        '                known[answer["id"]] = answer["schema"]\n'
        "        return\n"
        "    for schema_id in ids:\n"
        '        answer = registry_call(payload, f"/schemas/ids/{schema_id}")\n'
        '        avro = answer is not None and answer.get("schemaType", "AVRO") == "AVRO"\n'
        '        known[schema_id] = answer["schema"] if avro else None\n'
        '        unknown = "" if avro else ": not in the registry"\n'
        '        print(f"[{PIPELINE}] fetched schema id {schema_id} of {payload}{unknown}", file=sys.stderr)\n'
        "\n"
        "\n"
        "def confluent_header(schema_id: int) -> Column:\n"
        '    return F.unhex(F.lit(f"00{schema_id:08X}"))\n'
        "\n"
        "\n"
        "def from_registry(payload: Column, name: str, options: dict) -> Column:\n"
        '    """Confluent-framed Avro decoded with the writer schema its id names and resolved to options\' reader schema:\n'
        "    one from_avro per writer schema, chosen by the 5-byte header. An id not fetched yet fails the query with an\n"
        '    error that main() answers by fetching it."""\n'
        "    from pyspark.sql.avro.functions import from_avro\n"
        "\n"
        "    if name not in WRITER_SCHEMAS:\n"
        "        fetch_writer_schemas(name)\n"
        "    header, body = F.substring(payload, 1, 5), F.substring(payload, 6, 2147483647)\n"
        "    schema_id = F.conv(F.hex(F.substring(payload, 2, 4)), 16, 10)\n"
        "    unfetched = F.raise_error(\n"
        '        F.format_string(f"pipec: schema id %s of the {name} is not fetched yet", schema_id)\n'
        "    )\n"
        "    decoded = None\n"
        "    for known, schema in sorted(WRITER_SCHEMAS[name].items()):\n"
        "        if schema is not None:\n"
        "            test, branch = header == confluent_header(known), from_avro(body, schema, options)\n"
        "            decoded = F.when(test, branch) if decoded is None else decoded.when(test, branch)\n"
        "    return unfetched if decoded is None else decoded.otherwise(unfetched)\n"
        "\n"
        "\n"
        "def schema_rejected(payload: Column, name: str) -> Column:\n"
        '    """Whether a record\'s schema id is one the registry does not know (a record error)."""\n'
        "    if name not in WRITER_SCHEMAS:\n"
        "        fetch_writer_schemas(name)\n"
        "    rejected = [confluent_header(i) for i, s in sorted(WRITER_SCHEMAS[name].items()) if s is None]\n"
        "    return F.substring(payload, 1, 5).isin(rejected) if rejected else F.lit(False)\n"
        "\n"
        "\n"
        "def to_registry(record: Column, name: str, schema: str) -> Column:\n"
        '    """Avro of `schema`, framed with the id the registry gives the schema under the payload\'s subject (registered\n'
        '    there unless it is already)."""\n'
        "    from pyspark.sql.avro.functions import to_avro\n"
        "\n"
        "    if name not in WRITTEN_IDS:\n"
        '        answer = registry_call(name, subject_path(name) + "/versions", {"schema": schema})\n'
        "        if answer is None:\n"
        '            raise SystemExit(f"{PIPELINE}: Schema Registry: no subject path for {name}")\n'
        '        WRITTEN_IDS[name] = answer["id"]\n'
        "    return F.concat(confluent_header(WRITTEN_IDS[name]), to_avro(record, schema))\n"
        "\n"
        "\n"
        "def fetched_after(exc: BaseException) -> bool:\n"
        '    """Whether the failure names schema ids the job had not fetched, now fetched: run again."""\n'
        "    unfetched = {(int(i), payload) for i, payload in _UNFETCHED.findall(str(exc))}\n"
        "    new = [(i, name) for i, name in sorted(unfetched) if i not in WRITER_SCHEMAS.get(name, {})]\n"
        "    for schema_id, payload in new:\n"
        "        fetch_writer_schemas(payload, [schema_id])\n"
        "    return bool(new)\n"
        "\n"
        "\n"
        "def fetch_carried_ids(raw: DataFrame) -> None:\n"
        '    """A batch run\'s registry sources: the subject\'s versions, and any other schema id the records carry (one\n'
        '    scan of their headers), fetched before the run: it never stops half-written on an unmet id."""\n'
        '    for name in (name for name in SCHEMA_REGISTRY if name.startswith("source.")):\n'
        "        if name not in WRITER_SCHEMAS:\n"
        "            fetch_writer_schemas(name)\n"
        '        payload = F.col(name.split(".")[1])\n'
        '        framed = F.substring(payload, 1, 1) == F.unhex(F.lit("00"))\n'
        '        headers = raw.where(framed).select(F.substring(payload, 1, 5).alias("h")).distinct()\n'
        '        carried = {int.from_bytes(bytes(row.h)[1:], "big") for row in headers.collect()}\n'
        "        if carried - set(WRITER_SCHEMAS[name]):\n"
        "            fetch_writer_schemas(name, sorted(carried - set(WRITER_SCHEMAS[name])))\n"
        "\n"
        "\n"
        "def run(spark: SparkSession, args: argparse.Namespace, counts: Counts) -> None:\n"
        '    """Read, transform and write: the batch, or the query until it ends."""\n'
        "    raw = read_source(spark, args)\n"
        "    if not args.streaming:\n"
        "        fetch_carried_ids(raw)\n"
        "    lines = CountLines(spark) if args.streaming and CountLines.runs_here() else None\n"
        "    if lines:\n"
        "        spark.streams.addListener(lines)\n"
        "    query = start(raw, args, counts)\n"
        "    if query is not None:\n"
        "        await_query(query, spark, lines)\n"
        "    else:\n"
        "        counts.report_batch()\n"
        "\n"
        "\n"
        "def main(argv: list[str] | None = None) -> int:\n"
        "    args = parse_args(argv)\n"
        "    counts = Counts(args.streaming)\n"
        "    try:\n"
        "        spark = session(args)\n"
        "        while True:\n"
        "            try:\n"
        "                run(spark, args, counts)\n"
        "                break\n"
        "            except Exception as exc:\n"
        "                if not fetched_after(exc):  # else a schema id the job had not met: run again\n"
        "                    raise\n"
        "    except Exception as exc:  # the session, the source or the query failed: one line, exit non-zero\n"
        '        print(f"{PIPELINE}: failed: {failure(exc)}", file=sys.stderr)\n'
        "        return 1\n"
        "    return 0\n"
        "\n"
        "\n"
        'if __name__ == "__main__":\n'
        "    sys.exit(main())\n"
    )


def _sinks_console_py(context, out, finalize):
    out.append("def ")
    out.append(str(finalize(context["sink_function"])))
    out.append("(rows: DataFrame, args: argparse.Namespace):\n" '    """')
    out.append(str(finalize(_attribute(context["sink"], "summary"))))
    out.append('"""\n' '    options = {"truncate": "false", **')
    out.append(str(finalize(_attribute(context["sink"], "options"))))
    out.append("}\n")
    if context["is_streaming"]:
        out.append(
            '    writer = rows.writeStream.format("console").options(**options)\n'
            "    checkpoint = args.checkpoint or "
        )
        out.append(str(finalize(_attribute(context["sink"], "checkpoint"))))
        out.append(
            "\n"
            "    if checkpoint:\n"
            '        writer = writer.option("checkpointLocation", checkpoint)\n'
            "    return start_trigger(writer, args.trigger).start()\n"
        )
    else:
        out.append(
            "    collected = rows.collect()  # every row, so the counts cover them all\n"
            "    shown = rows.sparkSession.createDataFrame(collected, rows.schema)\n"
            '    shown.show(int(options.get("numRows", 1000)), truncate=options["truncate"] == "true")\n'
            "    return None\n"
        )


def _sinks_delta_py(context, out, finalize):
    _include("tables/sink.py.j2", context, out, finalize)


def _sinks_files_py(context, out, finalize):
    out.append("def ")
    out.append(str(finalize(context["sink_function"])))
    out.append("(rows: DataFrame, args: argparse.Namespace):\n" '    """')
    out.append(str(finalize(_attribute(context["sink"], "summary"))))
    out.append('"""\n' "    path = args.sink_path or ")
    out.append(str(finalize(_attribute(context["sink"], "path"))))
    out.append("\n")
    if context["is_streaming"]:
        out.append("    writer = rows.writeStream.format(")
        out.append(str(finalize(_attribute(context["sink"], "format"))))
        out.append(")")
        if _attribute(context["sink"], "options") != "{}":
            out.append(".options(**")
            out.append(str(finalize(_attribute(context["sink"], "options"))))
            out.append(")")
        if _attribute(context["sink"], "partition_by") != "[]":
            out.append(".partitionBy(*")
            out.append(str(finalize(_attribute(context["sink"], "partition_by"))))
            out.append(")")
        out.append('.option("path", path).option("checkpointLocation", args.checkpoint or ')
        out.append(str(finalize(_attribute(context["sink"], "checkpoint"))))
        out.append(")\n" "    return start_trigger(writer, args.trigger).start()\n")
    else:
        out.append('    writer = rows.write.mode("append").format(')
        out.append(str(finalize(_attribute(context["sink"], "format"))))
        out.append(")\n")
        if _attribute(context["sink"], "options") != "{}":
            out.append("    writer = writer.options(**")
            out.append(str(finalize(_attribute(context["sink"], "options"))))
            out.append(")\n")
        if _attribute(context["sink"], "partition_by") != "[]":
            out.append("    writer = writer.partitionBy(*")
            out.append(str(finalize(_attribute(context["sink"], "partition_by"))))
            out.append(")\n")
        out.append("    writer.save(path)\n" "    return None\n")


def _sinks_iceberg_py(context, out, finalize):
    _include("tables/sink.py.j2", context, out, finalize)


def _sinks_kafka_py(context, out, finalize):
    out.append("def ")
    out.append(str(finalize(context["sink_function"])))
    out.append("(rows: DataFrame, args: argparse.Namespace):\n" '    """')
    out.append(str(finalize(_attribute(context["sink"], "summary"))))
    out.append('"""\n' "    options = ")
    out.append(str(finalize(_attribute(context["sink"], "options"))))
    out.append("\n")
    if context["is_streaming"]:
        out.append(
            '    writer = rows.writeStream.format("kafka").options(**options).option("checkpointLocation", args.checkpoint or '
        )
        out.append(str(finalize(_attribute(context["sink"], "checkpoint"))))
        out.append(")\n" "    return start_trigger(writer, args.trigger).start()\n")
    else:
        out.append('    rows.write.format("kafka").options(**options).mode("append").save()\n' "    return None\n")


def _sinks_upsert_kafka_py(context, out, finalize):
    out.append(
        "def upsert_fates(rows: DataFrame, counts: Counts | None = None) -> DataFrame:\n"
        '    """Flink\'s reducing upsert writer over one micro-batch (or a batch run): each row\'s fate in `__fate`.\n'
        "\n"
        "    `written`: its key's last change here (a `-D` as a tombstone); `superseded`: a later change of the same key\n"
        "    (and topic) follows here; `filtered`: a `-U`, which an upsert sink never writes. `counts` observes the fates.\n"
    )
    if context["dead_letters"]:
        out.append(
            "    `dead_lettered`: a row with a record error, which supersedes nothing (its key's last good change is written).\n"
        )
    out.append('    """\n' '    before = F.col("__op") == F.lit("-U")\n')
    if context["dead_letters"]:
        out.append(
            '    failed = F.col("__error").isNotNull()\n'
            '    by_key = Window.partitionBy("topic", "key", before, failed).orderBy(F.col("__order").desc())\n'
            "    fate = (\n"
            '        F.when(failed, F.lit("dead_lettered"))\n'
            '        .when(before, F.lit("filtered"))\n'
        )
    else:
        out.append(
            '    by_key = Window.partitionBy("topic", "key", before).orderBy(F.col("__order").desc())\n'
            "    fate = (\n"
            '        F.when(before, F.lit("filtered"))\n'
        )
    out.append(
        '        .when(F.row_number().over(by_key) > 1, F.lit("superseded"))\n'
        '        .otherwise(F.lit("written"))\n'
        "    )\n"
        '    rows = rows.withColumn("__fate", fate)\n'
        '    return counts.mark(rows, "fates") if counts else rows\n'
        "\n"
        "\n"
    )
    _include("sinks/kafka.py.j2", context, out, finalize)


def _sources_delta_py(context, out, finalize):
    _include("tables/source_read.py.j2", context, out, finalize)


def _sources_files_py(context, out, finalize):
    out.append("SOURCE_SCHEMA = ")
    out.append(str(finalize(_attribute(context["source"], "schema"))))
    out.append(
        "\n" "\n" "\n" "def read_source(spark: SparkSession, args: argparse.Namespace) -> DataFrame:\n" '    """'
    )
    out.append(str(finalize(_attribute(context["source"], "summary"))))
    out.append('"""\n' "    reader = spark.readStream if args.streaming else spark.read\n" "    return reader.format(")
    out.append(str(finalize(_attribute(context["source"], "format"))))
    out.append(").schema(SOURCE_SCHEMA)")
    if _attribute(context["source"], "options") != "{}":
        out.append(".options(**")
        out.append(str(finalize(_attribute(context["source"], "options"))))
        out.append(")")
    out.append(".load(args.source_path or ")
    out.append(str(finalize(_attribute(context["source"], "path"))))
    out.append(').select("*", "_metadata")\n')
    if context["dead_letters"]:
        out.append(
            "\n"
            "\n"
            "def numbered_lines(lines: DataFrame) -> DataFrame:\n"
            '    """Each line with its number in its file (`__line`, from 1), from the one read: the file\'s lines in read order,\n'
            "    its blocks by their start and each block's lines by `monotonically_increasing_id` (a task reads a block from its\n"
            "    start to its end). "
        )
        if _attribute(_attribute(context["source"], "lines"), "skip_blank"):
            out.append("Spark's reader skips ")
            if _attribute(_attribute(context["source"], "lines"), "comment"):
                out.append("comment lines, ")
            out.append("blank lines")
            if _attribute(_attribute(context["source"], "lines"), "header"):
                out.append(" and the header (the first line left)")
            out.append(": so does this.")
        else:
            out.append("Every line is a record, as in Spark's text reader.")
        out.append(
            "\n"
            '    """\n'
            '    file = F.col("_metadata").getField("file_path")\n'
            "    read_order = Window.partitionBy(file).orderBy(\n"
            '        F.col("_metadata").getField("file_block_start"), F.col("__read")\n'
            "    )\n"
            '    lines = lines.withColumn("__read", F.monotonically_increasing_id())\n'
            '    lines = lines.withColumn("__line", F.row_number().over(read_order).cast("BIGINT"))\n'
            '    lines = lines.drop("__read")\n'
        )
        if _attribute(_attribute(context["source"], "lines"), "comment"):
            out.append('    lines = lines.where(~F.col("value").startswith(')
            out.append(str(finalize(_attribute(_attribute(context["source"], "lines"), "comment"))))
            out.append("))\n")
        if _attribute(_attribute(context["source"], "lines"), "skip_blank"):
            out.append('    lines = lines.where(~F.col("value").rlike("^[\\\\x00-\\\\x20]*$"))\n')
        if _attribute(_attribute(context["source"], "lines"), "header"):
            out.append(
                '    lines = lines.withColumn("__header", F.min("__line").over(Window.partitionBy(file)))\n'
                '    lines = lines.where(F.col("__line") > F.col("__header")).drop("__header")\n'
            )
        out.append("    return lines\n")


def _sources_iceberg_py(context, out, finalize):
    _include("tables/source_read.py.j2", context, out, finalize)


def _sources_kafka_py(context, out, finalize):
    if _attribute(context["source"], "specific_offsets"):
        out.append(
            "def specific_offsets(topic: str, spec: str) -> str:\n"
            '    """\'partition:0,offset:42;partition:1,offset:300\' -> Spark\'s startingOffsets JSON (-2 earliest, -1 latest)."""\n'
            "    import json\n"
            "\n"
            "    offsets = {}\n"
            '    for item in spec.split(";"):\n'
            '        fields = dict(part.split(":", 1) for part in item.split(","))\n'
            '        offsets[str(int(fields["partition"]))] = int(fields["offset"])\n'
            "    return json.dumps({topic: offsets})\n"
            "\n"
            "\n"
        )
    out.append("def read_source(spark: SparkSession, args: argparse.Namespace) -> DataFrame:\n" '    """')
    out.append(str(finalize(_attribute(context["source"], "summary"))))
    out.append(
        '"""\n'
        "    reader = spark.readStream if args.streaming else spark.read\n"
        '    return reader.format("kafka").options(**'
    )
    out.append(str(finalize(_attribute(context["source"], "options"))))
    out.append(").load()\n")


def _sources_upsert_kafka_py(context, out, finalize):
    _include("sources/kafka.py.j2", context, out, finalize)
    out.append("\n" "\n")
    if context["dead_letters"]:
        out.append(
            "def decodable(raw: DataFrame) -> tuple[DataFrame, DataFrame]:\n"
            '    """(the records whose key and value decode, the others), both as read. Only the first reach the '
        )
        out.append(str(finalize(("changelog state" if context["is_streaming"] else "table"))))
        out.append(
            ": a\n"
            "    record that goes to the dead letters never becomes its key's image (the key keeps the one it had).\n"
            '    """\n'
            "    checked = decode_errors(raw)\n"
            '    decoded = F.col("__error").isNull()\n'
            '    return checked.where(decoded).drop("__error"), checked.where(~decoded).drop("__error")\n'
            "\n"
            "\n"
        )
    if context["is_streaming"]:
        _include("changelog/state.py.j2", context, out, finalize)
    else:
        _include("changelog/table.py.j2", context, out, finalize)


def _tables_common_py(context, out, finalize):
    out.append("# pipec table helpers ")
    out.append(str(finalize(context["version"])))
    out.append(
        ": the same in every job reading or writing a table.\n"
        "def quoted(name: str) -> str:\n"
        '    return "`" + name.replace("`", "``") + "`"\n'
        "\n"
        "\n"
        "def sql_text(value: str) -> str:\n"
        '    return "\'" + value.replace("\\\\", "\\\\\\\\").replace("\'", "\\\\\'") + "\'"\n'
        "\n"
        "\n"
        "def same_type(left: str, right: str, fmt: str) -> bool:\n"
        '    """Whether two Spark types (DDL or simpleString) are the same, as the format stores them."""\n'
        "\n"
        "    def norm(text: str) -> str:\n"
        '        text = re.sub(r"[\\s`]", "", text.lower())\n'
        '        return re.sub(r"\\b(tinyint|smallint)\\b", "int", text) if fmt == "iceberg" else text\n'
        "\n"
        "    return norm(left) == norm(right)\n"
    )


def _tables_runtime_py(context, out, finalize):
    out.append("\n" "\n" "# pipec table runtime ")
    out.append(str(finalize(context["version"])))
    out.append(
        ": the same in every job with a table sink (pipec's docs/tables.md).\n"
        "# Driver-side orchestration only: every row is read, compared and written by native DataFrame and SQL operations.\n"
        "# Bookkeeping columns: `__SEQUENCE` (the sequence of the change a row or version holds: the sequence-by column,\n"
        "# or the record's timestamp, partition and offset), history's `__START_AT`/`__END_AT`; the table's companion\n"
        "# `<table>__tombstones` remembers deleted keys with their delete's sequence, so an older change never revives one.\n"
        "\n"
        "_PREPARED: set[str] = set()  # tables created or checked by this process\n"
        "\n"
        "\n"
        "class Table:\n"
        '    """A table sink: where the table is, how rows apply (append, upsert or history), and its columns (name -> DDL\n'
        '    type, pipec\'s `__` bookkeeping columns last)."""\n'
        "\n"
        "    def __init__(\n"
        "        self,\n"
        "        format,\n"
        "        path,\n"
        "        name,\n"
        "        apply,\n"
        "        key,\n"
        "        sequence_by,\n"
        "        partition_by,\n"
        "        properties,\n"
        "        evolution,\n"
        "        options,\n"
        "        catalog,\n"
        "        columns,\n"
        "        checkpoint,\n"
        "    ):\n"
        "        self.format, self.path, self.name, self.apply = format, path, name, apply\n"
        "        self.key, self.sequence_by, self.partition_by = key, sequence_by, partition_by\n"
        "        self.properties, self.evolution, self.options = properties, evolution, options\n"
        "        self.catalog, self.columns, self.checkpoint = catalog, columns, checkpoint\n"
        '        self.ref = name or f"{format}.{quoted(path)}"\n'
        "        self.tombstones = (\n"
        '            (name + "__tombstones")\n'
        "            if name\n"
        "            else f\"{format}.{quoted(path.rstrip('/') + '__tombstones')}\"\n"
        "        )\n"
        '        self.values = [c for c in columns if not c.startswith("__")]\n'
        "\n"
        "    # ------------------------------------------------------------ creating and checking\n"
        "\n"
        "    def exists(self, spark: SparkSession, ref: str) -> bool:\n"
        "        from pyspark.errors import AnalysisException\n"
        "\n"
        "        try:\n"
        "            spark.read.table(ref).schema\n"
        "            return True\n"
        "        except AnalysisException:\n"
        "            return False\n"
        "\n"
        "    def create(\n"
        "        self,\n"
        "        spark: SparkSession,\n"
        "        ref: str,\n"
        "        columns: dict[str, str],\n"
        "        partition_by: list[str],\n"
        "        properties: dict[str, str],\n"
        "    ) -> None:\n"
        '        ddl = ", ".join(f"{quoted(name)} {kind}" for name, kind in columns.items())\n'
        '        text = f"CREATE TABLE IF NOT EXISTS {ref} ({ddl}) USING {self.format}"\n'
        "        if partition_by:\n"
        "            text += f\" PARTITIONED BY ({', '.join(quoted(c) for c in partition_by)})\"\n"
        "        if properties:\n"
        "            text += f\" TBLPROPERTIES ({', '.join(f'{sql_text(k)} = {sql_text(v)}' for k, v in properties.items())})\"\n"
        "        spark.sql(text)\n"
        "\n"
        "    def prepare(self, spark: SparkSession) -> None:\n"
        '        """Create the table (and its tombstones) when missing; check an existing one\'s columns: a difference fails\n'
        "        the job, naming the columns, unless schema-evolution: add-columns lets it add the new ones.\n"
        '        """\n'
        "        for key, value in self.catalog.items():\n"
        "            spark.conf.set(key, value)\n"
        "        if self.ref in _PREPARED:\n"
        "            return\n"
        "        if not self.exists(spark, self.ref):\n"
        "            self.create(spark, self.ref, self.columns, self.partition_by, self.properties)\n"
        "        else:\n"
        "            self.check(spark)\n"
        '        if self.apply != "append" and not self.exists(spark, self.tombstones):\n'
        '            kept = {c: self.columns[c] for c in [*self.key, "__SEQUENCE"]}\n'
        "            self.create(spark, self.tombstones, kept, [], {})\n"
        "        _PREPARED.add(self.ref)\n"
        "\n"
        "    def check(self, spark: SparkSession) -> None:\n"
        "        have = {f.name: f.dataType.simpleString() for f in spark.read.table(self.ref).schema.fields}\n"
        "        new = [c for c in self.columns if c not in have]\n"
        "        gone = [c for c in have if c not in self.columns]\n"
        "        retyped = [\n"
        "            c\n"
        "            for c in self.columns\n"
        "            if c in have and not same_type(have[c], self.columns[c], self.format)\n"
        "        ]\n"
        '        if gone or retyped or new and self.evolution != "add-columns":\n'
        "            problems = []\n"
        "            if new:\n"
        "                problems.append(f\"columns not in the table: {', '.join(new)}\")\n"
        "            if gone:\n"
        "                problems.append(f\"table columns the pipeline does not write: {', '.join(gone)}\")\n"
        "            if retyped:\n"
        "                problems.append(\n"
        '                    "columns of another type: "\n'
        '                    + ", ".join(\n'
        '                        f"{c} (table {have[c]}, pipeline {self.columns[c].lower()})"\n'
        "                        for c in retyped\n"
        "                    )\n"
        "                )\n"
        "            hint = (\n"
        '                "schema-evolution: add-columns adds new columns; "\n'
        "                if new and not gone and not retyped\n"
        '                else ""\n'
        "            )\n"
        "            raise SystemExit(\n"
        "                f\"{PIPELINE}: table {self.name or self.path} differs from the sink's columns: {'; '.join(problems)} \"\n"
        '                f"({hint}a dropped or retyped column needs a new table)"\n'
        "            )\n"
        "        if new:\n"
        '            added = ", ".join(f"{quoted(c)} {self.columns[c]}" for c in new)\n'
        '            spark.sql(f"ALTER TABLE {self.ref} ADD COLUMNS ({added})")\n'
        "\n"
        "    # ------------------------------------------------------------ writing\n"
        "\n"
        "    def write(self, rows: DataFrame, batch_id: int | None):\n"
        '        """One batch (or micro-batch) of rows into the table; None (no streaming query)."""\n'
        "        spark = rows.sparkSession\n"
        "        self.prepare(spark)\n"
        '        if self.apply == "append":\n'
        "            self.append(rows, batch_id)\n"
        '            SINK_COUNTS["table"] = {}  # every row inserted\n'
        "        else:\n"
        '            SINK_COUNTS.update((self.upsert if self.apply == "upsert" else self.history)(rows))\n'
        "        return None\n"
        "\n"
        "    def commit_id(self) -> str:\n"
        '        """The query\'s id across restarts, for idempotent writes: taken from its checkpoint folder."""\n'
        "        import hashlib\n"
        "\n"
        '        return "pipec-" + hashlib.sha1((self.checkpoint or "").encode()).hexdigest()[:16]\n'
        "\n"
        "    def append(self, rows: DataFrame, batch_id: int | None) -> None:\n"
        '        """Append; a micro-batch replayed after a crash writes nothing (Delta: idempotent writes with txnAppId and\n'
        '        txnVersion; Iceberg: the snapshot that carries the batch\'s id is found)."""\n'
        '        writer = rows.write.format(self.format).mode("append").options(**self.options)\n'
        "        if batch_id is not None:\n"
        "            app = self.commit_id()\n"
        '            if self.format == "delta":\n'
        '                writer = writer.option("txnAppId", app).option("txnVersion", batch_id)\n'
        "            else:\n"
        "                spark = rows.sparkSession\n"
        '                marker = f"{app}:{batch_id}"\n'
        '                snapshots = spark.read.table(f"{self.ref}.snapshots")\n'
        "                if (\n"
        '                    snapshots.where(F.col("summary").getItem("pipec.batch") == F.lit(marker))\n'
        "                    .limit(1)\n"
        "                    .count()\n"
        "                ):\n"
        "                    return\n"
        '                writer = writer.option("snapshot-property.pipec.batch", marker)\n'
        "        if self.name:\n"
        "            writer.saveAsTable(self.name)\n"
        "        else:\n"
        "            writer.save(self.path)\n"
        "\n"
        "    def merge(\n"
        "        self,\n"
        "        spark: SparkSession,\n"
        "        source: DataFrame,\n"
        "        target: str,\n"
        "        condition: str,\n"
        "        clauses: list[str],\n"
        "    ) -> None:\n"
        '        """MERGE INTO the target from a DataFrame (a temporary view of it), with the clauses in order."""\n'
        '        view = f"pipec_changes_{os.urandom(6).hex()}"\n'
        "        source.createOrReplaceTempView(view)\n"
        "        try:\n"
        "            spark.sql(\n"
        '                f"MERGE INTO {target} AS t USING {view} AS s ON {condition} " + " ".join(clauses)\n'
        "            )\n"
        "        finally:\n"
        "            spark.catalog.dropTempView(view)\n"
        "\n"
        "    def on_key(self, *also: str) -> str:\n"
        '        return " AND ".join(f"t.{quoted(c)} = s.{quoted(c)}" for c in [*self.key, *also])\n'
        "\n"
        "    def assignments(self, columns: list[str]) -> str:\n"
        '        return ", ".join(f"t.{quoted(c)} = s.{quoted(c)}" for c in columns)\n'
        "\n"
        "    def insert(self, columns: list[str]) -> str:\n"
        '        names = ", ".join(quoted(c) for c in columns)\n'
        "        return f\"INSERT ({names}) VALUES ({', '.join('s.' + quoted(c) for c in columns)})\"\n"
        "\n"
        "    def current(self, spark: SparkSession, keys: DataFrame) -> DataFrame:\n"
        '        """Each given key\'s state: the sequence of its row (`__GONE` false) or of its tombstone (true), the newer\n'
        '        of the two, a tombstone at a tie."""\n'
        "        rows = spark.read.table(self.ref).select(\n"
        '            *self.key, "__SEQUENCE", F.lit(False).alias("__GONE")\n'
        "        )\n"
        "        gone = spark.read.table(self.tombstones).select(\n"
        '            *self.key, "__SEQUENCE", F.lit(True).alias("__GONE")\n'
        "        )\n"
        '        both = rows.unionByName(gone).join(F.broadcast(keys), self.key, "left_semi")\n'
        "        newest = Window.partitionBy(*self.key).orderBy(\n"
        '            F.col("__SEQUENCE").desc(), F.col("__GONE").desc()\n'
        "        )\n"
        '        both = both.withColumn("__n", F.row_number().over(newest)).where(F.col("__n") == 1)\n'
        '        return both.select(*self.key, F.col("__SEQUENCE").alias("__STATE"), "__GONE")\n'
        "\n"
        "    def upsert(self, rows: DataFrame) -> dict:\n"
        '        """SCD type 1: per key the change with the highest sequence wins, within the batch and against the table\n'
        "        (a tie: a delete, else the first to arrive); a change not newer than the key's row or tombstone changes\n"
        "        nothing, so a replayed micro-batch changes nothing. Then one MERGE into the table, one into its tombstones.\n"
        '        """\n'
        "        spark = rows.sparkSession\n"
        '        delete, before = F.col("__op") == F.lit("-D"), F.col("__op") == F.lit("-U")\n'
        "        newest = Window.partitionBy(*self.key, before).orderBy(\n"
        '            F.col("__SEQUENCE").desc(), delete.desc(), F.col("__ORDER")\n'
        "        )\n"
        '        changes = rows.withColumn("__delete", delete).withColumn(\n'
        '            "__rank", F.row_number().over(newest)\n'
        "        )\n"
        "        keys = changes.where(~before).select(*self.key).distinct()\n"
        '        changes = changes.join(self.current(spark, keys), self.key, "left")\n'
        '        seq, state, gone = F.col("__SEQUENCE"), F.col("__STATE"), F.col("__GONE")\n'
        "        applied = F.when(gone, seq > state).otherwise(\n"
        "            seq >= state\n"
        "        )  # a delete over the key's row or tombstone\n"
        "        fate = (\n"
        '            F.when(before, F.lit("filtered"))\n'
        '            .when(F.col("__rank") > 1, F.lit("superseded"))\n'
        '            .when(state.isNull(), F.when(delete, F.lit("deleted")).otherwise(F.lit("inserted")))\n'
        '            .when(delete, F.when(applied, F.lit("deleted")).otherwise(F.lit("superseded")))\n'
        '            .when(seq > state, F.when(gone, F.lit("inserted")).otherwise(F.lit("updated")))\n'
        '            .otherwise(F.lit("superseded"))\n'
        "        )\n"
        "        # materialized once: the counts and both MERGEs read the same fates, and the MERGE source is deterministic\n"
        "        # (Iceberg refuses a non-deterministic one: the arrival order is monotonically_increasing_id)\n"
        '        changes = changes.withColumn("__fate", fate).localCheckpoint()\n'
        "        fates: dict[str, int] = {}\n"
        "        # a tombstone to write (a delete) or drop (a key revived)\n"
        '        remember = F.col("__delete") | F.coalesce(gone, F.lit(False))\n'
        '        for row in changes.groupBy("__fate", remember.alias("__remember")).count().collect():\n'
        '            fates[row["__fate"]] = fates.get(row["__fate"], 0) + row["count"]\n'
        '            if row["__remember"] and row["__fate"] in ("inserted", "deleted"):\n'
        '                fates["remembered"] = fates.get("remembered", 0) + row["count"]\n'
        '        written = changes.where(F.col("__fate").isin("inserted", "updated", "deleted"))\n'
        '        if fates.get("inserted", 0) + fates.get("updated", 0) + fates.get("deleted", 0):\n'
        '            stored = [*self.values, "__SEQUENCE"]\n'
        "            self.merge(\n"
        "                spark,\n"
        "                written,\n"
        "                self.ref,\n"
        "                self.on_key(),\n"
        "                [\n"
        '                    "WHEN MATCHED AND s.__delete AND s.__SEQUENCE >= t.__SEQUENCE THEN DELETE",\n'
        '                    "WHEN MATCHED AND NOT s.__delete AND s.__SEQUENCE > t.__SEQUENCE THEN UPDATE SET "\n'
        "                    + self.assignments(stored),\n"
        '                    "WHEN NOT MATCHED AND NOT s.__delete THEN " + self.insert(stored),\n'
        "                ],\n"
        "            )\n"
        '        if fates.get("remembered", 0):\n'
        "            self.merge(\n"
        "                spark,\n"
        "                written.where(remember),\n"
        "                self.tombstones,\n"
        "                self.on_key(),\n"
        "                [\n"
        '                    "WHEN MATCHED AND s.__delete THEN UPDATE SET t.__SEQUENCE = s.__SEQUENCE",\n'
        '                    "WHEN MATCHED THEN DELETE",\n'
        '                    "WHEN NOT MATCHED AND s.__delete THEN "\n'
        '                    + self.insert([*self.key, "__SEQUENCE"]),\n'
        "                ],\n"
        "            )\n"
        "        return self.fate_counts(fates)\n"
        "\n"
        "    @staticmethod\n"
        "    def fate_counts(fates: dict[str, int]) -> dict[str, dict[str, int]]:\n"
        "        return {\n"
        '            "fates": {\n'
        '                "superseded": fates.get("superseded", 0),\n'
        '                "filtered": fates.get("filtered", 0),\n'
        "            },\n"
        '            "table": {name: fates.get(name, 0) for name in ("inserted", "updated", "deleted")},\n'
        "        }\n"
        "\n"
        "    def history(self, rows: DataFrame) -> dict:\n"
        '        """SCD type 2: a key\'s versions are those of all its changes in sequence order, whatever order and batch\n'
        "        they arrive in: the batch's changes and deletes join the key's versions and remembered deletes, a change\n"
        "        identical to the one before it adds no version, each version ends where the next change or a delete\n"
        "        begins. The recomputed versions are MERGEd into the table (only differences: a replay changes nothing).\n"
        '        """\n'
        "        spark = rows.sparkSession\n"
        '        delete, before = F.col("__op") == F.lit("-D"), F.col("__op") == F.lit("-U")\n'
        '        first = self.sequence_by or "timestamp"\n'
        "        image = [c for c in self.values if c not in self.key and c != self.sequence_by]\n"
        "        filtered = rows.where(before).count()\n"
        "        changes = rows.where(~before).select(\n"
        '            *self.values, "__SEQUENCE", delete.alias("__delete"), F.lit(1).alias("__new"), "__ORDER"\n'
        "        )\n"
        "        keys = changes.select(*self.key).distinct()\n"
        '        old = spark.read.table(self.ref).join(F.broadcast(keys), self.key, "left_semi")\n'
        '        deletes = spark.read.table(self.tombstones).join(F.broadcast(keys), self.key, "left_semi")\n'
        "        events = changes.unionByName(\n"
        "            old.select(\n"
        '                *self.values, "__SEQUENCE", F.lit(False).alias("__delete"), F.lit(0).alias("__new")\n'
        "            ),\n"
        "            allowMissingColumns=True,\n"
        "        ).unionByName(\n"
        "            deletes.select(\n"
        '                *self.key, "__SEQUENCE", F.lit(True).alias("__delete"), F.lit(0).alias("__new")\n'
        "            ),\n"
        "            allowMissingColumns=True,\n"
        "        )\n"
        "        # one event per key and sequence: a delete, else the one already applied, else the first to arrive\n"
        '        same = Window.partitionBy(*self.key, "__SEQUENCE").orderBy(\n'
        '            F.col("__delete").desc(), F.col("__new"), F.col("__ORDER")\n'
        "        )\n"
        '        events = events.withColumn("__dup", F.row_number().over(same) > 1).localCheckpoint()\n'
        '        in_order = Window.partitionBy(*self.key).orderBy("__SEQUENCE")\n'
        '        kept = events.where(~F.col("__dup")).withColumn("__image", F.to_json(F.struct(*image)))\n'
        '        previous = F.lag(F.struct("__delete", "__image")).over(in_order)\n'
        '        kept = kept.withColumn("__previous", previous)\n'
        "        identical = (\n"
        '            ~F.col("__delete")\n'
        '            & F.col("__previous").isNotNull()\n'
        '            & ~F.col("__previous.__delete")\n'
        '            & F.col("__previous.__image").eqNullSafe(F.col("__image"))\n'
        "        )\n"
        '        kept = kept.withColumn("__identical", identical)\n'
        "        versions = (\n"
        '            kept.where(~F.col("__identical"))\n'
        '            .withColumn("__NEXT", F.lead("__SEQUENCE").over(in_order))\n'
        '            .where(~F.col("__delete"))\n'
        "        )\n"
        "        versions = versions.select(\n"
        "            *self.values,\n"
        '            F.col("__SEQUENCE").getField(first).alias("__START_AT"),\n'
        '            F.col("__NEXT").getField(first).alias("__END_AT"),\n'
        '            "__SEQUENCE",\n'
        "        )\n"
        "        fate = (\n"
        "            F.when(\n"
        '                F.col("__dup") | F.coalesce(F.col("__identical"), F.lit(False)), F.lit("superseded")\n'
        "            )\n"
        '            .when(F.col("__delete"), F.lit("deleted"))\n'
        '            .when(F.col("__previous").isNull() | F.col("__previous.__delete"), F.lit("inserted"))\n'
        '            .otherwise(F.lit("updated"))\n'
        "        )\n"
        "        fates_of = events.join(\n"
        '            kept.select(*self.key, "__SEQUENCE", "__previous", "__identical"),\n'
        '            [*self.key, "__SEQUENCE"],\n'
        '            "left",\n'
        '        ).where(F.col("__new") == 1)\n'
        '        stored = [*self.values, "__START_AT", "__END_AT", "__SEQUENCE"]\n'
        "        was = old.select(\n"
        "            *self.key,\n"
        '            "__SEQUENCE",\n'
        '            F.col("__END_AT").alias("__WAS_END"),\n'
        '            F.lit(True).alias("__WAS"),\n'
        "        )\n"
        '        diff = versions.withColumn("__IS", F.lit(True)).join(\n'
        '            was, [*self.key, "__SEQUENCE"], "full_outer"\n'
        "        )\n"
        "        action = (\n"
        '            F.when(F.col("__WAS").isNull(), F.lit("insert"))\n'
        '            .when(F.col("__IS").isNull(), F.lit("delete"))\n'
        '            .when(~F.col("__END_AT").eqNullSafe(F.col("__WAS_END")), F.lit("update"))\n'
        "        )\n"
        "        diff = (\n"
        '            diff.withColumn("__action", action)\n'
        '            .where(F.col("__action").isNotNull())\n'
        "            .localCheckpoint()\n"
        "        )\n"
        '        new_deletes = events.where(F.col("__delete") & (F.col("__new") == 1) & ~F.col("__dup"))\n'
        "        fates = {\n"
        '            r["__fate"]: r["count"]\n'
        '            for r in fates_of.groupBy(fate.alias("__fate")).count().collect()\n'
        "        }\n"
        '        fates["filtered"] = filtered\n'
        "        if diff.limit(1).count():\n"
        "            self.merge(\n"
        "                spark,\n"
        "                diff,\n"
        "                self.ref,\n"
        '                self.on_key("__SEQUENCE"),\n'
        "                [\n"
        "                    \"WHEN MATCHED AND s.__action = 'delete' THEN DELETE\",\n"
        "                    \"WHEN MATCHED AND s.__action = 'update' THEN UPDATE SET t.__END_AT = s.__END_AT\",\n"
        "                    \"WHEN NOT MATCHED AND s.__action = 'insert' THEN \" + self.insert(stored),\n"
        "                ],\n"
        "            )\n"
        '        if fates.get("deleted", 0):\n'
        "            self.merge(\n"
        "                spark,\n"
        '                new_deletes.select(*self.key, "__SEQUENCE"),\n'
        "                self.tombstones,\n"
        '                self.on_key("__SEQUENCE"),\n'
        '                ["WHEN NOT MATCHED THEN " + self.insert([*self.key, "__SEQUENCE"])],\n'
        "            )\n"
        "        return self.fate_counts(fates)\n"
    )


def _tables_sink_py(context, out, finalize):
    out.append(
        "# The table's columns as the job creates it: name -> Spark type (pipec's `__` bookkeeping columns last)\n"
        "TABLE_COLUMNS = "
    )
    out.append(str(finalize(_attribute(context["table"], "columns"))))
    out.append(
        "\n"
        "\n"
        "\n"
        "def sink_table(args: argparse.Namespace) -> Table:\n"
        '    """The sink\'s table, as the YAML (or --sink-path, --checkpoint) says."""\n'
        "    return Table(format="
    )
    out.append(str(finalize(_attribute(context["sink"], "format"))))
    out.append(", path=args.sink_path or ")
    out.append(str(finalize(_attribute(context["sink"], "path"))))
    out.append(", name=")
    out.append(str(finalize(_attribute(context["sink"], "name"))))
    out.append(", apply=")
    out.append(str(finalize(_attribute(context["sink"], "apply"))))
    out.append(", key=")
    out.append(str(finalize(_attribute(context["sink"], "key"))))
    out.append(", sequence_by=")
    out.append(str(finalize(_attribute(context["sink"], "sequence_by"))))
    out.append(", partition_by=")
    out.append(str(finalize(_attribute(context["sink"], "partition_by"))))
    out.append(", properties=")
    out.append(str(finalize(_attribute(context["sink"], "properties"))))
    out.append(", evolution=")
    out.append(str(finalize(_attribute(context["sink"], "evolution"))))
    out.append(", options=")
    out.append(str(finalize(_attribute(context["sink"], "options"))))
    out.append(", catalog=")
    out.append(str(finalize(_attribute(context["sink"], "catalog"))))
    out.append(", columns=TABLE_COLUMNS, checkpoint=args.checkpoint or ")
    out.append(str(finalize(_attribute(context["sink"], "checkpoint"))))
    out.append(")\n" "\n" "\n" "def ")
    out.append(str(finalize(context["sink_function"])))
    out.append("(rows: DataFrame, args: argparse.Namespace):\n" '    """')
    out.append(str(finalize(_attribute(context["sink"], "summary"))))
    out.append('"""\n' "    table = sink_table(args)\n")
    if context["is_streaming"]:
        out.append(
            "    # create the table, or check its columns, before the query starts\n"
            "    table.prepare(rows.sparkSession)\n"
            "    writer = rows.writeStream.format("
        )
        out.append(str(finalize(_attribute(context["sink"], "format"))))
        out.append(
            ').outputMode("append").options(**table.options)\n'
            '    writer = start_trigger(writer.option("checkpointLocation", table.checkpoint), args.trigger)\n'
            "    return writer.toTable(table.name) if table.name else writer.start(table.path)\n"
        )
    else:
        out.append('    return table.write(rows, getattr(args, "batch_id", None))\n')
    _include("tables/runtime.py.j2", context, out, finalize)


def _tables_source_py(context, out, finalize):
    out.append("\n" "\n" "# pipec table source runtime ")
    out.append(str(finalize(context["version"])))
    out.append(
        ": the same in every job reading a table (pipec's docs/tables.md).\n"
        "# A change feed's columns, as Delta's change data feed returns them (an Iceberg changelog is read into this shape)\n"
        "CHANGE_COLUMNS = {\n"
        '    "_change_type": "STRING",\n'
        '    "_commit_version": "BIGINT",\n'
        '    "_commit_timestamp": "TIMESTAMP",\n'
        "}\n"
        "ICEBERG_CHANGES = {\n"
        '    "INSERT": "insert",\n'
        '    "DELETE": "delete",\n'
        '    "UPDATE_BEFORE": "update_preimage",\n'
        '    "UPDATE_AFTER": "update_postimage",\n'
        "}\n"
        "\n"
        "\n"
        "class SourceTable:\n"
        '    """A table source: where the table is, the columns the pipeline reads (name -> DDL type), and whether it\n'
        "    reads the table's rows or its changes (with `key`, Iceberg pairs a key's delete and insert as an update).\n"
        '    """\n'
        "\n"
        "    def __init__(self, format, path, name, catalog, change_feed, key, options, columns):\n"
        "        self.format, self.path, self.name, self.catalog = format, path, name, catalog\n"
        "        self.change_feed, self.key, self.options, self.columns = change_feed, key, options, columns\n"
        "\n"
        "    def read(self, spark: SparkSession, streaming: bool) -> DataFrame:\n"
        '        """The declared columns (and a change feed\'s), after checking them against the table."""\n'
        "        for key, value in self.catalog.items():\n"
        "            spark.conf.set(key, value)\n"
        '        if self.change_feed and self.format == "iceberg":\n'
        "            frame = self.iceberg_changes(spark)\n"
        "        else:\n"
        "            reader = spark.readStream if streaming else spark.read\n"
        "            reader = reader.format(self.format).options(**self.options)\n"
        "            if self.change_feed:\n"
        '                reader = reader.option("readChangeFeed", "true")\n'
        '                if not streaming and not {"startingVersion", "startingTimestamp"} & set(\n'
        "                    self.options\n"
        "                ):\n"
        '                    reader = reader.option("startingVersion", 0)  # a batch run reads the whole feed\n'
        "            frame = reader.table(self.name) if self.name else reader.load(self.path)\n"
        "        self.check(frame)\n"
        "        wanted = {**self.columns, **(CHANGE_COLUMNS if self.change_feed else {})}\n"
        "        return frame.select(\n"
        "            *(F.col(quoted(name)).cast(kind).alias(name) for name, kind in wanted.items())\n"
        "        )\n"
        "\n"
        "    def check(self, frame: DataFrame) -> None:\n"
        '        """Fail in one line when the table lacks a declared column or has it in another type."""\n'
        "        have = {f.name: f.dataType.simpleString() for f in frame.schema.fields}\n"
        "        missing = [c for c in self.columns if c not in have]\n"
        "        retyped = [\n"
        "            c\n"
        "            for c in self.columns\n"
        "            if c in have and not same_type(have[c], self.columns[c], self.format)\n"
        "        ]\n"
        "        if missing or retyped:\n"
        "            problems = [f\"columns not in the table: {', '.join(missing)}\"] if missing else []\n"
        "            if retyped:\n"
        "                problems.append(\n"
        '                    "columns of another type: "\n'
        '                    + ", ".join(\n'
        '                        f"{c} (table {have[c]}, pipeline {self.columns[c].lower()})"\n'
        "                        for c in retyped\n"
        "                    )\n"
        "                )\n"
        "            raise SystemExit(\n"
        '                f"{PIPELINE}: source table {self.name or self.path} differs from the declared columns: "\n'
        "                f\"{'; '.join(problems)} (the table has {', '.join(have)})\"\n"
        "            )\n"
        "\n"
        "    def iceberg_changes(self, spark: SparkSession) -> DataFrame:\n"
        '        """Iceberg\'s changelog view over the snapshots the options name, in Delta\'s change-feed shape: the change\n'
        "        type's Delta name, the snapshot's place in the table's history as its version, its commit time.\n"
        '        """\n'
        '        catalog, _, table = self.name.partition(".")\n'
        '        view = f"pipec_changes_{os.urandom(6).hex()}"\n'
        '        arguments = [f"table => {sql_text(table)}", f"changelog_view => {sql_text(view)}"]\n'
        "        if self.options:\n"
        '            pairs = ", ".join(f"{sql_text(k)}, {sql_text(str(v))}" for k, v in self.options.items())\n'
        '            arguments.append(f"options => map({pairs})")\n'
        "        if self.key:\n"
        "            arguments.append(\n"
        "                f\"identifier_columns => array({', '.join(sql_text(c) for c in self.key)})\"\n"
        "            )\n"
        "        spark.sql(f\"CALL {catalog}.system.create_changelog_view({', '.join(arguments)})\")\n"
        '        in_order = Window.orderBy("made_current_at", "snapshot_id")\n'
        '        history = spark.read.table(f"{self.name}.history").select(\n'
        '            F.col("snapshot_id").alias("_commit_snapshot_id"),\n'
        '            F.row_number().over(in_order).cast("BIGINT").alias("_commit_version"),\n'
        "        )\n"
        '        snapshots = spark.read.table(f"{self.name}.snapshots").select(\n'
        '            F.col("snapshot_id").alias("_commit_snapshot_id"),\n'
        '            F.col("committed_at").alias("_commit_timestamp"),\n'
        "        )\n"
        "        names = F.create_map(*(F.lit(text) for pair in ICEBERG_CHANGES.items() for text in pair))\n"
        '        changes = spark.read.table(view).withColumn("_change_type", names[F.col("_change_type")])\n'
        '        return changes.join(history, "_commit_snapshot_id").join(snapshots, "_commit_snapshot_id")\n'
    )


def _tables_source_read_py(context, out, finalize):
    out.append(
        "# The table's columns the pipeline reads: name -> Spark type (checked against the table when the job starts)\n"
        "SOURCE_COLUMNS = "
    )
    out.append(str(finalize(_attribute(context["source"], "columns"))))
    out.append(
        "\n"
        "\n"
        "\n"
        "def source_table(args: argparse.Namespace) -> SourceTable:\n"
        '    """The source\'s table, as the YAML (or --source-path) says."""\n'
        "    return SourceTable(format="
    )
    out.append(str(finalize(_attribute(context["source"], "format"))))
    out.append(", path=args.source_path or ")
    out.append(str(finalize(_attribute(context["source"], "path"))))
    out.append(", name=")
    out.append(str(finalize(_attribute(context["source"], "name"))))
    out.append(", catalog=")
    out.append(str(finalize(_attribute(context["source"], "catalog"))))
    out.append(", change_feed=")
    out.append(str(finalize(_attribute(context["source"], "change_feed"))))
    out.append(", key=")
    out.append(str(finalize(_attribute(context["source"], "key"))))
    out.append(", options=")
    out.append(str(finalize(_attribute(context["source"], "options"))))
    out.append(
        ", columns=SOURCE_COLUMNS)\n"
        "\n"
        "\n"
        "def read_source(spark: SparkSession, args: argparse.Namespace) -> DataFrame:\n"
        '    """'
    )
    out.append(str(finalize(_attribute(context["source"], "summary"))))
    out.append('"""\n' "    return source_table(args).read(spark, args.streaming)\n")
    _include("tables/source.py.j2", context, out, finalize)


TEMPLATES = {
    "changelog/keys.py.j2": _changelog_keys_py,
    "changelog/state.py.j2": _changelog_state_py,
    "changelog/table.py.j2": _changelog_table_py,
    "dead_letters.py.j2": _dead_letters_py,
    "job.py.j2": _job_py,
    "per_batch.py.j2": _per_batch_py,
    "runtime.py.j2": _runtime_py,
    "sinks/console.py.j2": _sinks_console_py,
    "sinks/delta.py.j2": _sinks_delta_py,
    "sinks/files.py.j2": _sinks_files_py,
    "sinks/iceberg.py.j2": _sinks_iceberg_py,
    "sinks/kafka.py.j2": _sinks_kafka_py,
    "sinks/upsert-kafka.py.j2": _sinks_upsert_kafka_py,
    "sources/delta.py.j2": _sources_delta_py,
    "sources/files.py.j2": _sources_files_py,
    "sources/iceberg.py.j2": _sources_iceberg_py,
    "sources/kafka.py.j2": _sources_kafka_py,
    "sources/upsert-kafka.py.j2": _sources_upsert_kafka_py,
    "tables/common.py.j2": _tables_common_py,
    "tables/runtime.py.j2": _tables_runtime_py,
    "tables/sink.py.j2": _tables_sink_py,
    "tables/source.py.j2": _tables_source_py,
    "tables/source_read.py.j2": _tables_source_read_py,
}
