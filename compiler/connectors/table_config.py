"""The config records of the table connectors (delta, iceberg; sources and sinks): each key a source or sink
block takes, its default and doc (compiler/connectors/config.py says how a record becomes schema, docs and model)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ..envrefs import Text
from ..model import Column, SinkConfig, SourceConfig
from . import common_keys
from .config import (
    BOOLEAN,
    ENV,
    STRING,
    TABLE_NAME,
    PrimaryKeyed,
    key,
    names,
    one_of,
    option_pairs,
    ref,
    text,
    text_pairs,
)

# An Iceberg catalog block (source and sink): its keys are the catalog's, the model holds them as pairs
CATALOG = {
    "type": "object",
    "properties": {
        "name": {
            "type": "string",
            "pattern": "^[A-Za-z_][A-Za-z0-9_]*$",
            "description": "The catalog's name in Spark (the table's first part).",
            "examples": ["local"],
        },
        "type": {
            "enum": ["hadoop", "hive", "rest"],
            "default": "hadoop",
            "description": "hadoop (default): tables in a folder; hive; rest.",
        },
        "warehouse": {
            "type": "string",
            "minLength": 1,
            "description": "The warehouse folder (hadoop) or location. May contain `${env:NAME}` or `${env:NAME:-default}` references, read when the job starts.",
            "examples": ["${env:WAREHOUSE:-warehouse}"],
        },
        "uri": {
            "type": "string",
            "minLength": 1,
            "description": "The metastore or REST catalog URI. May contain `${env:NAME}` or `${env:NAME:-default}` references, read when the job starts.",
            "examples": ["thrift://metastore:9083"],
        },
    },
    "additionalProperties": False,
}


# Keys these records share (each call makes the field anew)
def _any_table() -> Any:
    return key(
        "table",
        "A catalog table name (`db.name`, or `catalog.db.name`); exclusive with `path`.",
        TABLE_NAME,
        examples=("db.customers",),
    )


def _columns() -> Any:
    return key(
        "columns",
        "Required: the table's columns the pipeline reads, in order (a subset of the table's); checked against the table when the job starts.",
        ref("Columns"),
        (),
        resolved=True,
        required=True,
        examples=([{"name": "id", "type": "BIGINT"}],),
    )


def _change_feed() -> Any:
    return key(
        "read-change-feed",
        "true: read the table's changes instead of its rows: a changelog (+I, -U, +U, -D) with the metadata keys commit-version and commit-timestamp. Default false.",
        BOOLEAN,
        False,
    )


def _iceberg_table() -> Any:
    return key(
        "table",
        "Required: the table, `catalog.db.name` or `db.name` (in the catalog `catalog:` names).",
        TABLE_NAME,
        required=True,
        examples=("local.db.customers",),
    )


def _catalog() -> Any:
    return key(
        "catalog",
        "The Iceberg catalog; default a filesystem (hadoop) catalog named by the table's first part, with its warehouse in `warehouse`.",
        CATALOG,
        (),
        read=text_pairs,
        examples=({"name": "local", "type": "hadoop", "warehouse": "${env:WAREHOUSE:-warehouse}"},),
    )


def _apply() -> Any:
    return key(
        "apply",
        "append (default): add every row; upsert: SCD type 1 through MERGE, per key the change with the highest sequence wins; history: SCD type 2, one row per version with __START_AT and __END_AT.",
        one_of("append", "upsert", "history"),
        "append",
    )


def _primary_key() -> Any:
    return key(
        "primary-key",
        "upsert and history: the value columns a row is identified by.",
        ref("ColumnNames"),
        (),
        read=names,
        examples=(["id"],),
    )


def _sequence_by() -> Any:
    return key(
        "sequence-by",
        "upsert and history: the value column that orders a key's changes; default the record timestamp, then partition and offset.",
        STRING,
        examples=("updated_at",),
    )


def _partition_by() -> Any:
    return key(
        "partition-by",
        "Columns to partition the table by (set when the job creates it).",
        ref("ColumnNames"),
        (),
        read=names,
        examples=(["country"],),
    )


def _schema_evolution() -> Any:
    return key(
        "schema-evolution",
        "none (default): an existing table whose columns differ fails the job at start; add-columns: the job adds new columns (never drops or retypes one).",
        one_of("none", "add-columns"),
        "none",
    )


def _table_properties() -> Any:
    return key(
        "table-properties",
        "Table properties set when the job creates the table.",
        {
            "type": "object",
            "additionalProperties": {"type": ["string", "number", "boolean"], "description": "A property value."},
        },
        (),
        read=option_pairs,
        examples=({"delta.enableChangeDataFeed": "true"},),
    )


def _checkpoint() -> Any:
    return key(
        "checkpoint",
        "Checkpoint folder; required in streaming mode." + ENV,
        ref("Checkpoint"),
        read=text,
        examples=("${env:CHECKPOINT_DIR:-checkpoints}/customers",),
    )


def _trigger() -> Any:
    return key("trigger", 'available-now, once or "processing-time: <interval>"; default back to back.', ref("Trigger"))


@dataclass(frozen=True, slots=True)
class DeltaSourceConfig(SourceConfig):
    """`source` with `connector: delta`."""

    DOC: ClassVar[str] = "Reads a Delta Lake table (batch or streaming), or with read-change-feed its change data feed."
    GROUPS: ClassVar[dict[str, dict]] = {
        "key": {
            "description": "The record key: a struct of these columns (default: a null key).",
            "examples": [{"fields": ["order_id"]}],
        }
    }
    EXTRA: ClassVar[dict] = {"oneOf": [{"required": ["path"]}, {"required": ["table"]}]}

    path: Text | None = key(
        "path",
        "The table's location (a folder); exclusive with `table`." + ENV,
        STRING,
        read=text,
        examples=("${env:LAKE:-lake}/clicks",),
    )
    table: str | None = _any_table()
    columns: tuple[Column, ...] = _columns()
    change_feed: bool = _change_feed()
    topic: Text | None = common_keys.carried_topic()
    key_fields: tuple[str, ...] = common_keys.key_struct()
    options: tuple[tuple[str, str], ...] = key(
        "options",
        "Delta reader options the compiler knows (startingVersion, maxFilesPerTrigger, skipChangeCommits, ...).",
        ref("Options"),
        (),
        read=option_pairs,
        examples=({"startingVersion": 1},),
    )


@dataclass(frozen=True, slots=True)
class IcebergSourceConfig(SourceConfig):
    """`source` with `connector: iceberg`."""

    DOC: ClassVar[str] = (
        "Reads an Apache Iceberg table (batch or streaming appends), or with read-change-feed its changelog (batch)."
    )
    GROUPS: ClassVar[dict[str, dict]] = {
        "key": {
            "description": "The record key: a struct of these columns (default: a null key).",
            "examples": [{"fields": ["order_id"]}],
        }
    }

    table: str | None = _iceberg_table()
    catalog: tuple[tuple[str, Text], ...] = _catalog()
    columns: tuple[Column, ...] = _columns()
    change_feed: bool = _change_feed()
    topic: Text | None = common_keys.carried_topic()
    key_fields: tuple[str, ...] = common_keys.key_struct()
    options: tuple[tuple[str, str], ...] = key(
        "options",
        "Iceberg reader options the compiler knows (stream-from-timestamp, start-snapshot-id, ...).",
        ref("Options"),
        (),
        read=option_pairs,
        examples=({"streaming-skip-delete-snapshots": True},),
    )


@dataclass(frozen=True, slots=True)
class DeltaSinkConfig(PrimaryKeyed, SinkConfig):
    """`sink` with `connector: delta`."""

    DOC: ClassVar[str] = (
        "Writes a Delta Lake table: append, upsert (SCD type 1 through MERGE) or history (SCD type 2); exactly once through the checkpoint."
    )
    EXTRA: ClassVar[dict] = {"oneOf": [{"required": ["path"]}, {"required": ["table"]}]}

    path: Text | None = key(
        "path",
        "The table's location (a folder); exclusive with `table`." + ENV,
        STRING,
        read=text,
        examples=("${env:LAKE:-lake}/customers",),
    )
    table: str | None = _any_table()
    apply: str = _apply()
    primary_key: tuple[str, ...] = _primary_key()
    sequence_by: str | None = _sequence_by()
    partition_by: tuple[str, ...] = _partition_by()
    schema_evolution: str = _schema_evolution()
    table_properties: tuple[tuple[str, str], ...] = _table_properties()
    envelope: bool = common_keys.envelope()
    checkpoint: Text | None = _checkpoint()
    trigger: str | None = _trigger()
    options: tuple[tuple[str, str], ...] = key(
        "options",
        "Spark table writer options the compiler knows.",
        ref("Options"),
        (),
        read=option_pairs,
        examples=({"maxRecordsPerFile": 1000000},),
    )


@dataclass(frozen=True, slots=True)
class IcebergSinkConfig(PrimaryKeyed, SinkConfig):
    """`sink` with `connector: iceberg`."""

    DOC: ClassVar[str] = (
        "Writes an Apache Iceberg table: append, upsert (SCD type 1 through MERGE) or history (SCD type 2); exactly once through the checkpoint."
    )

    table: str | None = _iceberg_table()
    apply: str = _apply()
    primary_key: tuple[str, ...] = _primary_key()
    sequence_by: str | None = _sequence_by()
    partition_by: tuple[str, ...] = _partition_by()
    schema_evolution: str = _schema_evolution()
    table_properties: tuple[tuple[str, str], ...] = _table_properties()
    envelope: bool = common_keys.envelope()
    checkpoint: Text | None = _checkpoint()
    trigger: str | None = _trigger()
    options: tuple[tuple[str, str], ...] = key(
        "options",
        "Spark table writer options the compiler knows.",
        ref("Options"),
        (),
        read=option_pairs,
        examples=({"write-format": "parquet"},),
    )
    catalog: tuple[tuple[str, Text], ...] = _catalog()
