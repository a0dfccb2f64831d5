"""Kafka Connect connector config -> pipeline YAML (`pipec import connect`).

What a connector becomes:
- a sink connector (it has `topics` or `topics.regex`): a kafka source on those topics -> the chain -> a files sink
  with `envelope: true` (JSON lines holding each record's key, topic, partition, offset, timestamp, headers and
  value: everything the connector would have received after its transforms). Object-store sinks (S3, GCS, HDFS,
  Azure) keep their bucket path and format; pipec has no JDBC or Elasticsearch sink, so those write the folder
  `${env:OUT_DIR:-out}/<name>` and the connector's own settings become a comment.
- a source connector (Debezium, JDBC source, FileStreamSource, ...): pipec cannot read a database, so the connector
  keeps running without its transforms, writing to `<topic>.raw`; the pipeline reads those topics, restores each
  record's topic name (a first RegexRouter step), runs the chain and writes each record to its own topic (a kafka
  sink), which is where the connector wrote before.
Key and value formats follow the converters; `transforms.*`, `predicates.*` and `errors.*` keep their order, names
and comments. What cannot map is a YAML comment and a warning, or, where no pipeline could be written, a refusal
located at the config key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..diagnostics import Collector
from ..transforms import REGISTRY
from .connect_chain import ChainImport
from .connect_columns import Sample, columns_from_steps
from .connect_config import ConnectorConfig, hide_secret
from .connect_debezium import (
    FLAT_SUFFIX,
    FLAT_TOPIC,
    SCHEMA_INCLUDE,
    Flattening,
    added_column,
    debezium_topics,
    find_flattening,
    flat_topic_step,
    flattening,
)
from .connect_formats import Format, FormatImport
from .connect_tables import TableImport, TablePlan
from .yaml_text import YamlWriter

OBJECT_STORE_SINKS = {  # connector class -> (URL scheme, bucket key)
    "io.confluent.connect.s3.S3SinkConnector": ("s3a", "s3.bucket.name"),
    "io.confluent.connect.gcs.GcsSinkConnector": ("gs", "gcs.bucket.name"),
    "io.confluent.connect.azure.blob.AzureBlobStorageSinkConnector": ("wasbs", "azblob.container.name"),
    "io.confluent.connect.hdfs.HdfsSinkConnector": ("", "hdfs.url"),
    "io.confluent.connect.hdfs3.Hdfs3SinkConnector": ("", "hdfs.url"),
}
STORAGE_FORMATS = {"JsonFormat": "json", "AvroFormat": "avro", "ParquetFormat": "parquet"}
RAW_SUFFIX = ".raw"


@dataclass(slots=True)
class Imported:
    name: str
    kind: str  # source | sink
    text: str = ""
    diags: Collector = field(default_factory=Collector)
    placeholders: dict[str, str] = field(default_factory=dict)  # TODO_... in the text -> what to write there


def pipeline_name(name: str) -> str:
    cleaned = re.sub(r"[^a-z0-9_]+", "_", name.lower()).strip("_")
    return cleaned if re.match(r"[a-z]", cleaned or "") else f"connector_{cleaned or 'imported'}"


class Importer(ChainImport, TableImport, FormatImport):
    def __init__(self, config: ConnectorConfig, value_sample: Sample | None = None, key_sample: Sample | None = None):
        self.c, self.value_sample, self.key_sample = config, value_sample, key_sample
        self.out = Imported(pipeline_name(config.name), "sink" if self.is_sink else "source")
        self.diags = self.out.diags
        self.used: set[str] = set()
        self.flat: Flattening | None = None  # Debezium's ExtractNewRecordState, read as a debezium-json changelog
        self.key_columns: list[tuple[str, str]] = []
        self.table: TablePlan | None = None  # a lakehouse table sink connector's table (connect_tables.py)

    @property
    def is_sink(self) -> bool:
        cls = self.c.get("connector.class", "")
        return "topics" in self.c.entries or "topics.regex" in self.c.entries or cls.endswith("SinkConnector")

    def take(self, key: str) -> str | None:
        self.used.add(key)
        return self.c.get(key)

    def refuse(self, key: str, message: str, hint: str | None = None) -> None:
        e = self.c.entries.get(key)
        self.diags.error("I100", message + (f" (at {e.pointer})" if e and e.pointer else ""), self.c.loc(key), hint)

    def placeholder(self, name: str, why: str) -> str:
        """A `TODO_<name>` the user must replace (a warning at its place in the YAML, exit 1 without --allow-todo)."""
        token = f"TODO_{name}"
        self.out.placeholders.setdefault(token, why)
        return token

    def warn(self, key: str, message: str, hint: str | None = None) -> None:
        e = self.c.entries.get(key)
        self.diags.warn("I200", message + (f" (at {e.pointer})" if e and e.pointer else ""), self.c.loc(key), hint)

    # ------------------------------------------------------------ source and sink

    def source_topics(self) -> tuple[list[str], str | None]:
        """(topics, topic pattern) the pipeline reads."""
        if self.is_sink:
            pattern = self.take("topics.regex")
            return [t for t in re.split(r"\s*,\s*", (self.take("topics") or "").strip()) if t], pattern
        debezium = debezium_topics(self.c, self.take)
        if debezium is not None:  # the topics it writes; without its transforms (they run here) unless flattening
            topics, pattern = debezium
            suffix = "" if self.flat else RAW_SUFFIX
            return [t + suffix for t in topics], pattern + re.escape(suffix) if pattern else None
        return [t + RAW_SUFFIX for t in self.connector_topics()], None

    def connector_topics(self) -> list[str]:
        """The topics a source connector writes to, from its own settings."""
        for key in ("topic", "kafka.topic"):
            if self.take(key):
                return [self.c.get(key)]
        prefix = self.take("topic.prefix") or self.take("database.server.name") or ""
        tables = [
            t
            for key in ("table.include.list", "table.whitelist", "collection.include.list")
            for t in re.split(r"\s*,\s*", (self.take(key) or "").strip())
            if t
        ]
        cls = self.c.get("connector.class", "")
        if tables and prefix:
            join = "." if cls.startswith("io.debezium") else ""
            return [prefix + join + t for t in tables]
        if prefix:
            return [prefix]
        self.warn(
            "connector.class",
            "cannot tell which topics this source connector writes to",
            "set the source topics in the YAML by hand",
        )
        return [self.placeholder("topic", "the topic the connector writes to (its config does not say)")]

    def write_source(self, y: YamlWriter, key: Format, value: Format, steps) -> None:
        topics, pattern = self.source_topics()
        y.key("source")
        with y.indent():
            y.pair("connector", "kafka")
            if pattern:
                y.pair("topic-pattern", pattern)
            else:
                y.flow_list("topics", topics)
            y.mapping("properties", [("bootstrap.servers", "${env:KAFKA_BOOTSTRAP_SERVERS:-localhost:9092}")])
            key_columns = self.key_sample.columns if self.key_sample else columns_from_steps(steps, "key")
            self.key_columns = key_columns
            value_columns, todo = self.value_columns(value, steps)
            prefix = "key_" if key.envelope and not key.assumed and not self.upsert_sink else ""
            if self.upsert_sink:
                y.comment(
                    "the key (the table's primary key) is not read: the upsert-kafka sink keys each row by its",
                    "primary-key columns",
                )
            elif key.assumed:
                y.comment(
                    "the config names no key.converter (the worker's applies): the key passes through as raw bytes"
                )
                y.flow("key", [("format", "raw")])
            elif key.name == "raw":
                y.flow("key", [("format", "raw")])
            elif key.envelope:
                y.comment(
                    "key.converter JsonConverter with schemas.enable=true: keys are {schema, payload}; the key column",
                    "key_payload reads the payload (the step unwrap_key_envelope makes it the key)",
                )
                y.flow("key", [("format", "json"), ("fields", ["key_payload"]), ("fields-prefix", "key_")])
            else:
                y.flow("key", [("format", key.name), ("fields", [n for n, _ in key_columns])])
            if value.assumed:
                y.comment(
                    "the config names no value.converter (the worker's applies): assumed JsonConverter with",
                    "schemas.enable=true, as in Kafka's sample worker config",
                )
            fields_include = [("fields-include", "EXCEPT_KEY")] if prefix else []
            if self.flat:  # the change events as a changelog; their JsonConverter envelope, if any, read by the format
                schema = [(SCHEMA_INCLUDE, True)] if value.envelope else []
                y.flow("value", [("format", "debezium-json")] + schema + fields_include)
            else:
                y.flow("value", [("format", value.name)] + fields_include)
            y.comment(*todo)
            y.key("columns")
            cols = [("key_payload", self.payload_type(self.key_sample, key_columns))] if prefix else []
            if value.envelope and not self.flat:
                cols += [("payload", self.payload_type(self.value_sample, value_columns))]
            else:
                cols += value_columns
            if (
                key.name == "json" and not prefix and not key.assumed and not self.upsert_sink
            ):  # key.fields are columns too
                cols += [(n, t) for n, t in key_columns if n not in dict(cols)]
            if self.flat and self.upsert_sink and not [n for n, _ in key_columns]:
                cols.append(
                    (
                        self.placeholder(
                            "key_column",
                            "the table's primary-key column(s), which the upsert-kafka sink "
                            "keys by (or import again with --key-sample FILE)",
                        ),
                        "STRING",
                    )
                )
            for n, t in cols:
                y.list_flow([("name", n), ("type", t)])
            for name, meta, t in self.flat.fields if self.flat else ():
                y.list_flow([("name", added_column(name)), ("type", t), ("metadata", meta), ("virtual", True)])

    def envelope_steps(self, y: YamlWriter, key: Format, value: Format) -> None:
        """Steps standing for the converters and the `.raw` topics: before the connector's own chain."""
        if key.envelope and not key.assumed and not self.upsert_sink:
            y.item([("name", "unwrap_key_envelope"), ("type", "ExtractField$Key"), ("field", "key_payload")])
        if value.envelope and not self.flat:
            y.item_comment("the value converter's {schema, payload} envelope: the records are the payloads")
            y.item([("name", "unwrap_value_envelope"), ("type", "ExtractField$Value"), ("field", "payload")])
        if not self.is_sink and not self.flat:
            y.item_comment(
                f"the connector writes to <topic>{RAW_SUFFIX} without its transforms; the chain sees its own topic names"
            )
            y.item(
                [
                    ("name", "restore_topic"),
                    ("type", "RegexRouter"),
                    ("regex", "(.*)" + re.escape(RAW_SUFFIX)),
                    ("replacement", "$1"),
                ]
            )

    def write_sink(self, y: YamlWriter, key: Format, value: Format) -> None:
        cls = self.c.get("connector.class", "")
        y.key("sink")
        with y.indent():
            if self.upsert_sink:
                y.comment(
                    "the flattened rows as a table: each key's row, a delete as a tombstone (a compacted topic), each",
                    f"to its own topic{FLAT_SUFFIX} (the step {FLAT_TOPIC})",
                )
                y.pair("connector", "upsert-kafka")
                y.flow_list("primary-key", [n for n, _ in self.key_columns] or [self.placeholder("key_column", "")])
                y.flow("key", [("format", "json")] + self.timestamps(key))
                y.flow("value", [("format", "json")] + self.timestamps(value))
                if value.envelope or key.envelope:
                    self.warn(
                        "value.converter",
                        "the flattened rows are written as plain JSON: pipec writes no {schema, payload} envelope",
                        "consumers read them with value.converter.schemas.enable=false",
                    )
            elif not self.is_sink:
                y.comment("each record goes to its own topic: where the connector wrote before")
                y.pair("connector", "kafka")
                if not key.assumed:
                    y.flow("key", [("format", key.name)] + self.timestamps(key))
                y.flow("value", [("format", value.name)] + self.timestamps(value))
                if value.envelope:
                    self.warn(
                        "value.converter" if not value.assumed else "connector.class",
                        "records are written as plain JSON: pipec writes no {schema, payload} envelope",
                        "consumers read them with value.converter.schemas.enable=false",
                    )
            elif self.table:
                self.write_table_sink(y)
            elif cls in OBJECT_STORE_SINKS:
                scheme, bucket_key = OBJECT_STORE_SINKS[cls]
                bucket = self.take(bucket_key) or self.placeholder(
                    "bucket", f"the config sets no {bucket_key}: write the bucket"
                )
                folder = self.take("topics.dir") or "topics"
                storage = (self.take("format.class") or "JsonFormat").rsplit(".", 1)[-1]
                fmt = STORAGE_FORMATS.get(storage)
                if fmt is None:
                    self.warn(
                        "format.class", f"format.class {storage} has no pipec files format; json is written instead"
                    )
                y.pair("connector", "files")
                y.pair("path", f"{scheme}://{bucket}/{folder}" if scheme else f"{bucket.rstrip('/')}/{folder}")
                y.pair("format", fmt or "json")
                if (fmt or "json") == "json" and self.json_converter:
                    y.pair("timestamp-format", "epoch-millis")
            else:
                y.comment(
                    f"pipec has no sink for {cls or 'this connector'}: the records it would have received, as JSON",
                    "lines with their key, topic, partition, offset, timestamp and headers",
                )
                y.pair("connector", "files")
                y.pair("path", f"${{env:OUT_DIR:-out}}/{self.out.name}")
                y.pair("format", "json")
                if self.json_converter:
                    y.pair("timestamp-format", "epoch-millis")
            if self.is_sink and not self.table:
                y.pair("envelope", True)
            y.pair("checkpoint", f"${{env:CHECKPOINT_DIR:-checkpoints}}/{self.out.name}")

    # ------------------------------------------------------------ Debezium's event flattening

    @property
    def upsert_sink(self) -> bool:
        """A Debezium source connector that flattened its events wrote a table's rows: an upsert-kafka sink."""
        return self.flat is not None and not self.is_sink

    # ------------------------------------------------------------ all

    def run(self) -> Imported:
        c = self.c
        if "connector.class" not in c.entries:
            self.refuse(
                "connector.class",
                "the config has no connector.class",
                "every Kafka Connect connector config names its class",
            )
        self.used.update(("connector.class", "name", "tasks.max"))
        key, value = self.format("key"), self.format("value")
        steps = self.steps()
        at = find_flattening(steps)
        if at is not None:
            alias, type_entry, config, _ = steps[at]
            self.flat = flattening(alias, config, self.warn)
            if at != 0:
                self.refuse(
                    type_entry.key,
                    f"transform '{alias}' (ExtractNewRecordState) follows other transforms, which act on "
                    "Debezium's change-event envelope",
                    "pipec reads the envelope as a changelog first: move those steps after it",
                )
            if value.name != "json":
                self.refuse(
                    "value.converter",
                    f"ExtractNewRecordState reads Debezium's change events, which pipec reads as "
                    f"debezium-json; this value.converter gives {value.name}",
                    "use JsonConverter",
                )
        self.table = self.table_plan() if self.is_sink else None
        kinds = [
            (REGISTRY.lookup(t.value.strip())[0], REGISTRY.lookup(t.value.strip())[1], cfg) for _, t, cfg, _ in steps
        ]
        kinds = [(spec.name, side, cfg) for spec, side, cfg in kinds if spec is not None]
        y = YamlWriter()
        y.comment(
            f"Imported by `pipec import connect` from {c.file}: connector {c.name} ({c.get('connector.class', '?')}),",
            f"a {self.out.kind} connector (see docs/import-connect.md).",
            *c.header,
        )
        y.pair("version", 1)
        y.pair("name", self.out.name)
        y.pair("description", f"Imported from the Kafka Connect {self.out.kind} connector {c.name}.")
        y.pair("mode", "streaming")
        self.write_source(y, key, value, kinds)
        predicates = self.write_predicates(y)
        chain = YamlWriter(level=1)
        self.envelope_steps(chain, key, value)
        self.write_steps(chain, steps, predicates)
        if self.upsert_sink:
            flat_topic_step(chain)
        self.table_steps(chain)
        if getattr(chain, "items", 0):
            y.comment(*self.comments_of("transforms"))
            y.key("transforms")
        y.extend(chain)
        self.write_sink(y, key, value)
        self.write_errors(y)
        self.write_spark_conf(y)
        rest = [e for k, e in c.entries.items() if k not in self.used]
        if rest:
            y.comment(
                f"connector settings with no pipec counterpart ({self.out.kind} connector {c.get('connector.class', '?')}):"
            )
            for e in rest:
                y.comment(f"  {e.key}={hide_secret(e.key, e.value)}")
        self.out.text = y.text()
        return self.out
