"""The resolved pipeline: frozen dataclasses built only from validated data, each with its location."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
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


class SourceConfig:
    """What the compiler asks of any source's config record (compiler/connectors/*_config.py), with the answer for a
    connector that takes no such key: a record's own fields override these. Generic code (the chain's first shape,
    tests, tools) reads these; a connector's own code reads its record's other fields."""

    __slots__ = ()
    columns: tuple[Column, ...] = ()
    options: tuple[tuple[str, str], ...] = ()
    format: str | None = None  # the value format (files: the file format)
    key_format: str = "none"
    key_fields: tuple[str, ...] = ()
    key_fields_prefix: str = ""  # Flink's key.fields-prefix (a kafka source): record tests read key names by it
    fields_include: str = "ALL"
    schema_include: bool = False  # debezium-json messages wrapped in {"schema", "payload"}
    path: Text | None = None
    topic: Text | None = None  # the topic records carry (files, tables)
    topics: tuple[Text, ...] = ()
    topic_pattern: Text | None = None
    properties: tuple[tuple[str, Text], ...] = ()
    startup: Mapping[str, Any] = MappingProxyType({})
    catalog: tuple[tuple[str, Text], ...] = ()  # its catalog (iceberg)
    change_feed: bool = False  # a table source reads the table's changes


@dataclass(frozen=True, slots=True)
class Source:
    """Where records come from. `connector` selects the lowering in `compiler/connectors/`; `config` is its record."""

    connector: str
    loc: Location
    config: SourceConfig  # KafkaSourceConfig | UpsertKafkaSourceConfig | FilesSourceConfig | DeltaSourceConfig | ...
    changelog: bool = False  # every record carries `op` (compiler/changelog.py)
    registries: tuple[Registry, ...] = ()  # avro-confluent key or value read through a Schema Registry


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


class SinkConfig:
    """What the compiler asks of any sink's config record (compiler/connectors/*_config.py), with the answer for a
    connector that takes no such key: a record's own fields override these."""

    __slots__ = ()
    checkpoint: Text | None = None
    trigger: str | None = None
    options: tuple[tuple[str, str], ...] = ()
    format: str | None = None  # the value format (files: the file format)
    key_format: str | None = None
    key_fields: tuple[str, ...] = ()  # the key's columns (key.fields, or primary-key)
    primary_key: tuple[str, ...] = ()
    fields_include: str = "ALL"
    timestamp_format: str = "iso-8601"  # how a json value writes timestamps
    key_timestamp_format: str = "iso-8601"  # how a json key writes them
    path: Text | None = None
    topic: Text | None = None
    envelope: bool = False
    partition_by: tuple[str, ...] = ()
    metadata: tuple[tuple[str, str], ...] = ()  # record metadata written from columns (headers, partition, timestamp)
    properties: tuple[tuple[str, Text], ...] = ()
    catalog: tuple[tuple[str, Text], ...] = ()  # a table sink's catalog (iceberg)


@dataclass(frozen=True, slots=True)
class Sink:
    """Where records go. `config` is its connector's record; the rest is what resolve found out about it."""

    connector: str
    loc: Location
    config: SinkConfig  # KafkaSinkConfig | UpsertKafkaSinkConfig | FilesSinkConfig | ConsoleSinkConfig | ...
    record_name: str = "record"  # the Avro record name (the pipeline's, unless SetSchemaMetadata names one)
    registries: tuple[Registry, ...] = ()  # avro-confluent key or value registered in a Schema Registry
    # where keys are written (for errors): the value format (or its nearest parent), key.format, primary-key, ...
    format_loc: Location | None = None
    key_format_loc: Location | None = None
    primary_key_loc: Location | None = None
    key_field_locs: tuple[Location, ...] = ()  # each key field (key.fields, or primary-key)
    partition_by_locs: tuple[Location, ...] = ()
    metadata_locs: tuple[Location, ...] = ()
    trigger_loc: Location | None = None
    sequence_by_loc: Location | None = None

    @property
    def real_time(self) -> bool:
        """`trigger: real-time` (or `real-time: <checkpoint interval>`): Spark's real-time mode."""
        trigger = self.config.trigger
        return trigger is not None and trigger.split(":")[0].strip() == "real-time"


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
