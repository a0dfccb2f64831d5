"""The config records of the Kafka sources (kafka, upsert-kafka): each key a source or sink
block takes, its default and doc (compiler/connectors/config.py says how a record becomes schema, docs and model)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ..envrefs import Text
from ..model import Column, SourceConfig
from . import common_keys
from .config import (
    BOOLEAN,
    ENV,
    STRING,
    PrimaryKeyed,
    integer,
    key,
    names,
    one_of,
    option_pairs,
    ref,
    text,
    text_pairs,
    texts,
)


# Keys these records share (each call makes the field anew)
def _topics() -> Any:
    return key(
        "topics",
        "Topics to read: a list, or one string; exclusive with topic-pattern." + ENV,
        ref("Topics"),
        (),
        read=texts,
        examples=(["orders"],),
    )


def _topic_pattern() -> Any:
    return key(
        "topic-pattern",
        "Java regex of topics to read; exclusive with topics." + ENV,
        ref("TopicPattern"),
        read=text,
        examples=("orders-.*",),
    )


def _properties() -> Any:
    return key(
        "properties",
        "Required Kafka consumer properties; bootstrap.servers is required." + ENV,
        ref("KafkaSourceProperties"),
        (),
        read=text_pairs,
        required=True,
        examples=({"bootstrap.servers": "${env:KAFKA_BOOTSTRAP_SERVERS:-localhost:9092}"},),
    )


def _key_schema_id() -> Any:
    return key(
        "key.schema-id", "Schema id of the key for format avro-confluent.", ref("SchemaId"), read=integer, examples=(1,)
    )


def _fields_include() -> Any:
    return key("value.fields-include", "ALL (default) or EXCEPT_KEY.", ref("FieldsInclude"), "ALL")


def _value_schema_id() -> Any:
    return key(
        "value.schema-id",
        "Schema id of the value for format avro-confluent.",
        ref("SchemaId"),
        read=integer,
        examples=(2,),
    )


@dataclass(frozen=True, slots=True)
class KafkaSourceConfig(SourceConfig):
    """`source` with `connector: kafka`."""

    DOC: ClassVar[str] = "Reads Kafka topics with Spark's Kafka source (Flink's `kafka` connector)."
    GROUPS: ClassVar[dict[str, dict]] = {
        "key": {"description": "How the record key is decoded (Flink key.format, key.fields, key.fields-prefix)."},
        "value": {"description": "How the record value is decoded. Required."},
    }

    topics: tuple[Text, ...] = _topics()
    topic_pattern: Text | None = _topic_pattern()
    properties: tuple[tuple[str, Text], ...] = _properties()
    startup: dict[str, Any] = key(
        "startup",
        "Startup position of the first run; default earliest-offset.",
        ref("KafkaStartup"),
        default_factory=dict,
    )
    key_format: str = key(
        "key.format",
        "Key format: none, raw, json, csv, avro, avro-confluent. Default none (no key columns).",
        one_of("none", "raw", "json", "csv", "avro", "avro-confluent"),
        "none",
    )
    key_fields: tuple[str, ...] = key(
        "key.fields",
        "Columns read from the key, in order (Flink key.fields).",
        ref("ColumnNames"),
        (),
        read=names,
        examples=(["order_id"],),
    )
    key_fields_prefix: str = key(
        "key.fields-prefix",
        "Prefix the key columns and `fields` carry but the key's wire names do not (Flink key.fields-prefix); needs value.fields-include EXCEPT_KEY.",
        STRING,
        "",
        examples=("k_",),
    )
    key_schema_id: int | None = _key_schema_id()
    format: str | None = key(
        "value.format",
        "Required value format: raw (one STRING or BYTES column), json, csv, avro (plain Avro binary, schema from the columns), avro-confluent (Avro with Confluent's 5-byte framing: a Schema Registry's `url`, or one `schema-id`), debezium-json or canal-json (these two make the source a changelog).",
        one_of("raw", "json", "csv", "avro", "avro-confluent", "debezium-json", "canal-json"),
        required=True,
    )
    fields_include: str = _fields_include()
    value_schema_id: int | None = _value_schema_id()
    schema_include: bool = key(
        "value.debezium-json.schema-include",
        'debezium-json only: messages are wrapped in {"schema": ..., "payload": ...} as Kafka Connect\'s JsonConverter writes them with schemas enabled (Flink\'s debezium-json.schema-include). Default false.',
        BOOLEAN,
        False,
    )
    columns: tuple[Column, ...] = common_keys.columns()
    options: tuple[tuple[str, str], ...] = key(
        "options",
        "Spark Kafka reader options the compiler knows (maxOffsetsPerTrigger, minOffsetsPerTrigger, failOnDataLoss, minPartitions, ...).",
        ref("Options"),
        (),
        read=option_pairs,
        examples=({"maxOffsetsPerTrigger": 10000},),
    )


@dataclass(frozen=True, slots=True)
class UpsertKafkaSourceConfig(PrimaryKeyed, SourceConfig):
    """`source` with `connector: upsert-kafka`."""

    DOC: ClassVar[str] = (
        "Reads Kafka topics as a table keyed by `primary-key` (Flink's `upsert-kafka`, FLIP-149): a null value deletes its key; always reads from the earliest offset."
    )
    GROUPS: ClassVar[dict[str, dict]] = {
        "key": {"description": "How the record key is decoded; its columns are the primary-key columns. Required."},
        "value": {"description": "How the record value is decoded. Required."},
    }

    topics: tuple[Text, ...] = _topics()
    topic_pattern: Text | None = _topic_pattern()
    properties: tuple[tuple[str, Text], ...] = _properties()
    primary_key: tuple[str, ...] = key(
        "primary-key",
        "Required: the columns forming the key (and the upsert key).",
        ref("ColumnNames"),
        (),
        read=names,
        required=True,
        examples=(["customer_id"],),
    )
    key_format: str = key(
        "key.format",
        "Key format: raw, json, csv, avro, avro-confluent. Required.",
        one_of("raw", "json", "csv", "avro", "avro-confluent"),
        "none",
        required=True,
    )
    key_fields_prefix: str = key(
        "key.fields-prefix",
        "Prefix the primary-key columns carry but the key's wire names do not (Flink key.fields-prefix); needs value.fields-include EXCEPT_KEY.",
        STRING,
        "",
        examples=("k_",),
    )
    key_schema_id: int | None = _key_schema_id()
    format: str | None = key(
        "value.format",
        "Required value format: raw (one STRING or BYTES column), json, csv, avro (plain Avro binary, schema from the columns), avro-confluent (Avro with Confluent's 5-byte framing: a Schema Registry's `url`, or one `schema-id`). Changelog formats are not allowed here.",
        one_of("raw", "json", "csv", "avro", "avro-confluent"),
        required=True,
    )
    fields_include: str = _fields_include()
    value_schema_id: int | None = _value_schema_id()
    columns: tuple[Column, ...] = common_keys.columns()
    options: tuple[tuple[str, str], ...] = key(
        "options",
        "Spark Kafka reader options the compiler knows.",
        ref("Options"),
        (),
        read=option_pairs,
        examples=({"maxOffsetsPerTrigger": 10000},),
    )
