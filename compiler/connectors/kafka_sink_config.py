"""The config records of the Kafka sinks (kafka, upsert-kafka): each key a source or sink
block takes, its default and doc (compiler/connectors/config.py says how a record becomes schema, docs and model)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ..envrefs import Text
from ..model import SinkConfig
from . import common_keys
from .config import ENV, TOPIC, PrimaryKeyed, integer, key, names, one_of, option_pairs, pairs, ref, text, text_pairs


# Keys these records share (each call makes the field anew)
def _topic() -> Any:
    return key(
        "topic",
        "Topic to write; default each record's own (possibly routed) topic. A topic set by RegexRouter or TimestampRouter wins. May contain `${env:NAME}` or `${env:NAME:-default}` references, read when the job starts. At most 249 characters, Kafka's limit on a topic name.",
        TOPIC,
        read=text,
        examples=("orders_masked",),
    )


def _properties() -> Any:
    return key(
        "properties",
        "Kafka producer properties, e.g. bootstrap.servers." + ENV,
        ref("KafkaProperties"),
        (),
        read=text_pairs,
        examples=({"bootstrap.servers": "${env:KAFKA_BOOTSTRAP_SERVERS:-localhost:9092}"},),
    )


def _key_timestamp_format() -> Any:
    return key(
        "key.timestamp-format",
        'How json writes a TIMESTAMP or TIMESTAMP_LTZ, at any depth: iso-8601 (default; Spark\'s ISO-8601 text, "2026-11-28T10:15:00.000Z", milliseconds, Z for TIMESTAMP_LTZ), epoch-millis (a number, 1795860900000, as Kafka Connect\'s JsonConverter writes a Timestamp-typed field) or sql (Flink\'s SQL standard, "2026-11-28 10:15:00", Z appended for TIMESTAMP_LTZ). json and debezium-json only.',
        one_of("iso-8601", "epoch-millis", "sql"),
        "iso-8601",
    )


def _key_schema_id() -> Any:
    return key(
        "key.schema-id",
        "Schema id written for key format avro-confluent.",
        ref("SchemaId"),
        read=integer,
        examples=(1,),
    )


def _timestamp_format() -> Any:
    return key(
        "value.timestamp-format",
        'How json writes a TIMESTAMP or TIMESTAMP_LTZ, at any depth: iso-8601 (default; Spark\'s ISO-8601 text, "2026-11-28T10:15:00.000Z", milliseconds, Z for TIMESTAMP_LTZ), epoch-millis (a number, 1795860900000, as Kafka Connect\'s JsonConverter writes a Timestamp-typed field) or sql (Flink\'s SQL standard, "2026-11-28 10:15:00", Z appended for TIMESTAMP_LTZ). json and debezium-json only.',
        one_of("iso-8601", "epoch-millis", "sql"),
        "iso-8601",
    )


def _fields_include() -> Any:
    return key("value.fields-include", "ALL (default) or EXCEPT_KEY (needs key fields).", ref("FieldsInclude"), "ALL")


def _value_schema_id() -> Any:
    return key(
        "value.schema-id",
        "Schema id written for value format avro-confluent.",
        ref("SchemaId"),
        read=integer,
        examples=(2,),
    )


def _metadata() -> Any:
    return key(
        "metadata",
        "Columns written as the record's headers, partition or timestamp.",
        ref("SinkMetadata"),
        (),
        read=pairs,
        examples=({"headers": "hdrs"},),
    )


def _options() -> Any:
    return key(
        "options",
        "Spark Kafka writer options the compiler knows.",
        ref("Options"),
        (),
        read=option_pairs,
        examples=({},),
    )


@dataclass(frozen=True, slots=True)
class KafkaSinkConfig(SinkConfig):
    """`sink` with `connector: kafka`."""

    DOC: ClassVar[str] = "Writes records to Kafka with Spark's Kafka sink (at least once)."
    GROUPS: ClassVar[dict[str, dict]] = {
        "key": {"description": "How the key is encoded; default the record key as the chain left it."},
        "value": {"description": "How the value is encoded. Required."},
    }

    topic: Text | None = _topic()
    properties: tuple[tuple[str, Text], ...] = _properties()
    key_format: str | None = key(
        "key.format",
        "Key format: none, raw, json, csv, avro, avro-confluent. Default the source's key format (json where the source had none and the chain set a key).",
        one_of("none", "raw", "json", "csv", "avro", "avro-confluent"),
    )
    key_timestamp_format: str = _key_timestamp_format()
    key_fields: tuple[str, ...] = key(
        "key.fields",
        "Value columns written as the key, in order.",
        ref("ColumnNames"),
        (),
        read=names,
        examples=(["order_id"],),
    )
    key_schema_id: int | None = _key_schema_id()
    format: str | None = key(
        "value.format",
        "Required value format: raw (one STRING or BYTES column), json, csv, avro (plain Avro binary, schema from the columns), avro-confluent (Avro with Confluent's 5-byte framing: a Schema Registry's `url`, or one `schema-id`), or debezium-json (writes a changelog as Flink does).",
        one_of("raw", "json", "csv", "avro", "avro-confluent", "debezium-json"),
        required=True,
    )
    timestamp_format: str = _timestamp_format()
    fields_include: str = _fields_include()
    value_schema_id: int | None = _value_schema_id()
    metadata: tuple[tuple[str, str], ...] = _metadata()
    checkpoint: Text | None = common_keys.checkpoint()
    trigger: str | None = common_keys.trigger()
    options: tuple[tuple[str, str], ...] = _options()


@dataclass(frozen=True, slots=True)
class UpsertKafkaSinkConfig(PrimaryKeyed, SinkConfig):
    """`sink` with `connector: upsert-kafka`."""

    DOC: ClassVar[str] = (
        "Writes a changelog to Kafka as an upsert table (Flink's upsert-kafka): +I/+U write key and value, -D a tombstone, -U is dropped."
    )
    GROUPS: ClassVar[dict[str, dict]] = {
        "key": {"description": "How the key (the primary-key columns) is encoded."},
        "value": {"description": "How the value is encoded. Required."},
    }

    topic: Text | None = _topic()
    properties: tuple[tuple[str, Text], ...] = _properties()
    primary_key: tuple[str, ...] = key(
        "primary-key",
        "Required: the columns forming the key; each key's last change per micro-batch is written, a delete as a tombstone.",
        ref("ColumnNames"),
        (),
        read=names,
        required=True,
        examples=(["customer_id"],),
    )
    key_format: str | None = key(
        "key.format",
        "Key format: raw, json, csv, avro, avro-confluent. Default the source's key format.",
        one_of("raw", "json", "csv", "avro", "avro-confluent"),
    )
    key_timestamp_format: str = _key_timestamp_format()
    key_schema_id: int | None = _key_schema_id()
    format: str | None = key(
        "value.format",
        "Required value format: raw (one STRING or BYTES column), json, csv, avro (plain Avro binary, schema from the columns), avro-confluent (Avro with Confluent's 5-byte framing: a Schema Registry's `url`, or one `schema-id`).",
        one_of("raw", "json", "csv", "avro", "avro-confluent"),
        required=True,
    )
    timestamp_format: str = _timestamp_format()
    fields_include: str = _fields_include()
    value_schema_id: int | None = _value_schema_id()
    metadata: tuple[tuple[str, str], ...] = _metadata()
    checkpoint: Text | None = common_keys.checkpoint()
    trigger: str | None = common_keys.trigger()
    options: tuple[tuple[str, str], ...] = _options()
