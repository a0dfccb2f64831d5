"""The resolved pipeline: frozen dataclasses built only from validated data, each with its location."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .diagnostics import Location
from .envrefs import Text
from .types.sql import SqlType


@dataclass(frozen=True, slots=True)
class Column:
    """A declared source column: physical, metadata (`metadata: KEY`) or header (`headers: true` / `header: K`)."""

    name: str
    type: SqlType
    loc: Location
    metadata: str | None = None
    virtual: bool = False
    headers: bool = False
    header: str | None = None

    @property
    def physical(self) -> bool:
        return self.metadata is None and not self.headers and self.header is None


@dataclass(frozen=True, slots=True)
class Registry:
    """The Schema Registry an avro-confluent key or value goes through: its `url`, `subject` and client options."""

    payload: str  # "source.key", "source.value", "sink.key" or "sink.value": its entry in the job's SCHEMA_REGISTRY
    url: Text
    subject: Text  # as written, or TopicNameStrategy's <topic>-key / <topic>-value
    options: tuple[tuple[str, Text], ...]  # client options (compiler/connectors/schema_registry.py: CLIENT_OPTIONS)
    loc: Location  # the key or value block


@dataclass(frozen=True, slots=True)
class TableRead:
    """A table source's own settings (delta, iceberg: compiler/connectors/table_source.py); its `path`, `columns`,
    `topic`, key fields and `options` are the Source's."""

    table: str | None = None  # a catalog table name, where `path` is not given
    catalog: tuple[tuple[str, Text], ...] = ()  # iceberg: name, type, warehouse, uri
    change_feed: bool = False  # read-change-feed: the table's changes (+I, -U, +U, -D), not its rows


@dataclass(frozen=True, slots=True)
class Source:
    """Where records come from. `connector` selects the lowering in `compiler/connectors/`."""

    connector: str
    loc: Location
    columns: tuple[Column, ...]
    format: str | None = None  # files format, or the kafka value format
    key_format: str = "none"
    key_fields: tuple[str, ...] = ()
    key_fields_prefix: str = ""
    fields_include: str = "ALL"
    schema_include: bool = (
        False  # debezium-json messages wrapped in {"schema", "payload"} (Flink's debezium-json.schema-include)
    )
    path: Text | None = None
    topic: Text | None = None  # files: the topic records carry
    topics: tuple[Text, ...] = ()
    topic_pattern: Text | None = None
    properties: tuple[tuple[str, Text], ...] = ()
    options: tuple[tuple[str, str], ...] = ()
    startup: dict[str, Any] = field(default_factory=dict)
    changelog: bool = False  # every record carries `op` (compiler/changelog.py)
    registries: tuple[Registry, ...] = ()  # avro-confluent key or value read through a Schema Registry
    table_read: TableRead | None = None  # a table source (delta, iceberg)


@dataclass(frozen=True, slots=True)
class Predicate:
    """A named KIP-585 predicate."""

    alias: str
    kind: str  # registry key, e.g. TopicNameMatches
    config: Any  # the predicate's parsed config
    loc: Location


@dataclass(frozen=True, slots=True)
class Step:
    """One transform of the chain."""

    alias: str
    kind: str  # registry key, e.g. InsertField
    side: str | None  # "key", "value" or None for record-level transforms
    type_name: str  # as written, e.g. InsertField$Value
    config: Any  # the transform's parsed config record
    loc: Location
    predicate: str | None = None
    negate: bool = False


@dataclass(frozen=True, slots=True)
class Sink:
    """Where records go."""

    connector: str
    loc: Location
    format: str | None = None
    path: Text | None = None
    topic: Text | None = None
    envelope: bool = False
    partition_by: tuple[str, ...] = ()
    partition_by_locs: tuple[Location, ...] = ()
    checkpoint: Text | None = None
    trigger: str | None = None
    trigger_loc: Location | None = None  # where `trigger:`'s value is written
    options: tuple[tuple[str, str], ...] = ()
    properties: tuple[tuple[str, Text], ...] = ()
    key_format: str | None = None
    key_fields: tuple[str, ...] = ()
    key_field_locs: tuple[Location, ...] = ()  # where each key field is named (key.fields, or primary-key)
    fields_include: str = "ALL"
    metadata: tuple[tuple[str, str], ...] = ()
    metadata_locs: tuple[Location, ...] = ()  # where each metadata column is named
    record_name: str = "record"  # the Avro record name (the pipeline's, unless SetSchemaMetadata names one)
    key_schema_id: int | None = None
    value_schema_id: int | None = None
    primary_key: tuple[str, ...] = ()  # upsert-kafka: the key columns (and upsert key)
    format_loc: Location | None = (
        None  # where the value format is written (`format`, `value.format`), or its nearest parent
    )
    key_format_loc: Location | None = None  # where `key.format` is written, or its nearest parent
    primary_key_loc: Location | None = None
    registries: tuple[Registry, ...] = ()  # avro-confluent key or value registered in a Schema Registry
    timestamp_format: str = "iso-8601"  # how a json value writes timestamps (`timestamp-format`)
    key_timestamp_format: str = "iso-8601"  # how a json key writes them (`key.timestamp-format`)
    # table sinks (delta, iceberg: compiler/connectors/tables.py)
    table: str | None = None  # a catalog table name, where `path` is not given
    apply: str = "append"  # append | upsert | history
    sequence_by: str | None = None  # the value column ordering a key's changes (None: timestamp, partition, offset)
    sequence_by_loc: Location | None = None
    schema_evolution: str = "none"  # none | add-columns
    table_properties: tuple[tuple[str, str], ...] = ()
    catalog: tuple[tuple[str, Text], ...] = ()  # iceberg: name, type, warehouse, uri

    @property
    def real_time(self) -> bool:
        """`trigger: real-time` (or `real-time: <checkpoint interval>`): Spark's real-time mode."""
        return self.trigger is not None and self.trigger.split(":")[0].strip() == "real-time"


@dataclass(frozen=True, slots=True)
class ErrorPolicy:
    """Kafka Connect's `errors.*` settings (section 8)."""

    tolerance: str = "none"
    dlq_topic: Text | None = None
    dlq_path: Text | None = None
    context_headers: bool = False
    log: bool = False
    log_messages: bool = False  # log.include.messages: the log shows the record's key and value (base64)
    dlq_properties: tuple[tuple[str, Text], ...] = ()  # producer properties of the dead-letter topic


@dataclass(frozen=True, slots=True)
class TestRecord:
    """A record of a test case, as written in YAML (`fields` holds only the fields named)."""

    fields: dict[str, Any]
    loc: Location
    locs: dict[str, Location]


@dataclass(frozen=True, slots=True)
class TestCase:
    name: str
    loc: Location
    given: tuple[TestRecord, ...]
    expect: tuple[TestRecord, ...] | None
    expect_error: str | None = None
    expect_dead_letters: tuple[TestRecord, ...] | None = None  # errors.tolerance: all: the records the queue must get
    wire: bool = False  # compare the key and value as the bytes written
    expect_table: tuple[TestRecord, ...] | None = None  # table sinks: the table's rows after the case
    table_before: tuple[TestRecord, ...] = ()  # table sinks: the table's rows before it


@dataclass(frozen=True, slots=True)
class Pipeline:
    """A whole resolved pipeline file."""

    name: str
    file: str
    sha256: str
    mode: str
    source: Source
    predicates: dict[str, Predicate]
    steps: tuple[Step, ...]
    sink: Sink
    errors: ErrorPolicy
    spark_conf: tuple[tuple[str, str], ...]
    tests: tuple[TestCase, ...]
    description: str = ""
    meta: tuple[
        tuple[str, str], ...
    ] = ()  # `meta:` (owner, team, ...) as written, values as text; only `pipec docs` reads it
    spark_version: str | None = None  # spark.version: the oldest Spark line the job must run on
    spark_version_loc: Location | None = None

    @property
    def streaming(self) -> bool:
        return self.mode == "streaming"
