"""The config records of the file connectors (files source and sink, console sink): each key a source or sink
block takes, its default and doc (compiler/connectors/config.py says how a record becomes schema, docs and model)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..envrefs import Text
from ..model import Column, SinkConfig, SourceConfig
from . import common_keys
from .config import BOOLEAN, ENV, STRING, key, names, one_of, option_pairs, ref, text


@dataclass(frozen=True, slots=True)
class FilesSourceConfig(SourceConfig):
    """`source` with `connector: files`."""

    DOC: ClassVar[str] = "Reads files (Spark's file source); each row is a record value. Needs no server."
    GROUPS: ClassVar[dict[str, dict]] = {
        "key": {
            "description": "The record key: a struct of these columns (default: a null key).",
            "examples": [{"fields": ["order_id"]}],
        }
    }

    path: Text | None = key(
        "path",
        "Required: a folder or glob." + ENV,
        STRING,
        read=text,
        required=True,
        examples=("${env:IN_DIR:-data}/orders",),
    )
    format: str | None = key(
        "format",
        "Required: json (JSON lines), csv, parquet, avro or text (one column `{name: value, type: STRING}`).",
        one_of("json", "csv", "parquet", "avro", "text"),
        required=True,
    )
    columns: tuple[Column, ...] = common_keys.columns()
    topic: Text | None = common_keys.carried_topic()
    key_fields: tuple[str, ...] = common_keys.key_struct()
    options: tuple[tuple[str, str], ...] = key(
        "options",
        "Spark file reader options the compiler knows (CSV header, delimiter, ...).",
        ref("Options"),
        (),
        read=option_pairs,
        examples=({"header": True},),
    )


@dataclass(frozen=True, slots=True)
class FilesSinkConfig(SinkConfig):
    """`sink` with `connector: files`."""

    DOC: ClassVar[str] = "Writes files (exactly once through the checkpoint)."

    path: Text | None = key(
        "path",
        "Required: the output folder." + ENV,
        STRING,
        read=text,
        required=True,
        examples=("${env:OUT_DIR:-out}/orders",),
    )
    format: str | None = key(
        "format",
        "Required: parquet, json (JSON lines), csv or avro.",
        one_of("parquet", "json", "csv", "avro"),
        required=True,
    )
    timestamp_format: str = key(
        "timestamp-format",
        'How json writes a TIMESTAMP or TIMESTAMP_LTZ, at any depth: iso-8601 (default; Spark\'s ISO-8601 text, "2026-11-28T10:15:00.000Z", milliseconds, Z for TIMESTAMP_LTZ), epoch-millis (a number, 1795860900000, as Kafka Connect\'s JsonConverter writes a Timestamp-typed field) or sql (Flink\'s SQL standard, "2026-11-28 10:15:00", Z appended for TIMESTAMP_LTZ). json and debezium-json only.',
        one_of("iso-8601", "epoch-millis", "sql"),
        "iso-8601",
    )
    partition_by: tuple[str, ...] = key(
        "partition-by",
        "Columns to partition the output folders by.",
        ref("ColumnNames"),
        (),
        read=names,
        examples=(["day"],),
    )
    envelope: bool = common_keys.envelope()
    checkpoint: Text | None = common_keys.checkpoint()
    trigger: str | None = common_keys.trigger()
    options: tuple[tuple[str, str], ...] = key(
        "options",
        "Spark file writer options the compiler knows.",
        ref("Options"),
        (),
        read=option_pairs,
        examples=({"compression": "zstd"},),
    )


@dataclass(frozen=True, slots=True)
class ConsoleSinkConfig(SinkConfig):
    """`sink` with `connector: console`."""

    DOC: ClassVar[str] = "Prints records to standard output (Spark's console sink), for trying things out."

    envelope: bool = key(
        "envelope",
        "true: add key, topic, partition, offset, timestamp, headers (and op in a changelog) columns beside the value's columns. Default true.",
        BOOLEAN,
        True,
    )
    checkpoint: Text | None = key(
        "checkpoint",
        "Checkpoint folder." + ENV,
        ref("Checkpoint"),
        read=text,
        examples=("${env:CHECKPOINT_DIR:-checkpoints}/orders_masked",),
    )
    trigger: str | None = common_keys.trigger()
    options: tuple[tuple[str, str], ...] = key(
        "options",
        "Spark console sink options the compiler knows (numRows, truncate).",
        ref("Options"),
        (),
        read=option_pairs,
        examples=({"numRows": 50},),
    )
