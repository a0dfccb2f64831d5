"""The table sources, `delta` and `iceberg` (SPEC 7.1): a lakehouse table's rows, or with `read-change-feed` its
changes as a changelog, so a repository chains bronze to silver to gold.

The job's `read_source` (templates/tables/source_read.py.j2; the runtime part compiler/runtime/table_source.py)
checks the declared columns against the table when it starts and reads them, with the change feed's `_change_type`,
`_commit_version` and `_commit_timestamp` (Delta's names; an Iceberg changelog is read into the same shape). Decode
lays each row out as a record: the columns are the value, the key the `key.fields` struct (or null), the topic the
configured one (or the pipeline's name), partition 0; a change carries its commit's version as its offset and its
commit's time as its timestamp, and Flink's op for its change type. A plain read has no offset or timestamp.
"""

from __future__ import annotations

from .. import ir
from ..changelog import DELETE, INSERT, OP, UPDATE_AFTER, UPDATE_BEFORE
from ..emit.render import doc_text, path_expr, py_literal
from ..model import Source, SourceConfig
from ..types.sql import BIGINT, HEADERS_MAP, INT, STRING, TIMESTAMP_LTZ_3
from . import table_formats
from .base import MetaKey, SourceConnector, Where, cast_metadata, empty_headers, header_columns
from .files import _topic
from .table_config import DeltaSourceConfig, IcebergSourceConfig

CHANGE_TYPE, COMMIT_VERSION, COMMIT_TIMESTAMP = "_change_type", "_commit_version", "_commit_timestamp"
CHANGE_COLUMNS = {CHANGE_TYPE: "STRING", COMMIT_VERSION: "BIGINT", COMMIT_TIMESTAMP: "TIMESTAMP"}
# Delta's change types -> Flink's RowKind (an Iceberg changelog's are read into Delta's names)
CHANGE_OPS = {"insert": INSERT, "update_preimage": UPDATE_BEFORE, "update_postimage": UPDATE_AFTER, "delete": DELETE}
FEED_KEYS = ("commit-version", "commit-timestamp")  # metadata only a change feed has
NO_TIMESTAMP, LOG_APPEND_TIME = -1, 1  # Kafka's timestampType codes


def _feed(source: Source) -> bool:
    return source.config.change_feed


def _offset(source: Source) -> ir.Expr:
    return ir.Col(COMMIT_VERSION) if _feed(source) else ir.Null("BIGINT")


def _timestamp(source: Source) -> ir.Expr:
    return ir.Col(COMMIT_TIMESTAMP) if _feed(source) else ir.Null("TIMESTAMP")


TABLE_METADATA = {
    "commit-version": MetaKey(BIGINT, lambda s: ir.Col(COMMIT_VERSION)),
    "commit-timestamp": MetaKey(TIMESTAMP_LTZ_3, lambda s: ir.Col(COMMIT_TIMESTAMP)),
    "topic": MetaKey(STRING, lambda s: ir.Col("topic")),
    "partition": MetaKey(INT, lambda s: ir.Col("partition")),
    "offset": MetaKey(BIGINT, _offset),
    "timestamp": MetaKey(TIMESTAMP_LTZ_3, _timestamp),
    "timestamp-type": MetaKey(STRING, lambda s: ir.Lit("LogAppendTime" if _feed(s) else "NoTimestampType")),
    "headers": MetaKey(
        HEADERS_MAP, lambda s: ir.Cast(ir.Func("map_from_entries", (empty_headers(),)), HEADERS_MAP.ddl())
    ),
}
# Delta's and Iceberg's reader options the compiler knows (readChangeFeed is read-change-feed's)
DELTA_READ_OPTIONS = frozenset(
    {
        "startingVersion",
        "startingTimestamp",
        "endingVersion",
        "endingTimestamp",
        "versionAsOf",
        "timestampAsOf",
        "maxFilesPerTrigger",
        "maxBytesPerTrigger",
        "ignoreDeletes",
        "ignoreChanges",
        "skipChangeCommits",
        "withEventTimeOrder",
        "schemaTrackingLocation",
        "excludeRegex",
    }
)
ICEBERG_READ_OPTIONS = frozenset(
    {
        "snapshot-id",
        "as-of-timestamp",
        "branch",
        "tag",
        "start-snapshot-id",
        "end-snapshot-id",
        "start-timestamp",
        "end-timestamp",
        "stream-from-timestamp",
        "streaming-skip-delete-snapshots",
        "streaming-skip-overwrite-snapshots",
        "streaming-max-files-per-micro-batch",
        "streaming-max-rows-per-micro-batch",
        "split-size",
        "lookback",
        "file-open-cost",
    }
)


def change_op(source: Source) -> ir.Expr:
    """Flink's op for the row's change type; an unknown one is a record error."""
    unknown = ir.Func(
        "raise_error",
        (
            ir.Func(
                "format_string",
                (
                    ir.Arg(
                        f"{source.connector} source: unknown change type %s (commit version %s); expected "
                        + ", ".join(CHANGE_OPS)
                    ),
                    ir.Col(CHANGE_TYPE),
                    ir.Col(COMMIT_VERSION),
                ),
            ),
        ),
    )
    op: ir.Expr = unknown
    for name, kind in reversed(CHANGE_OPS.items()):
        op = ir.If(ir.BinOp("==", ir.Col(CHANGE_TYPE), ir.Lit(name)), ir.Lit(kind), op)
    return op


def decode_table(source: Source, pipeline: str) -> tuple[ir.Op, ...]:
    """Table rows (with a change feed's columns) -> the record model."""
    envelope = {
        "topic": _topic(source, pipeline),
        "partition": ir.Cast(ir.Lit(0), "INT"),
        "offset": _offset(source),
        "timestamp": _timestamp(source),
    }
    fields = []
    for c in source.config.columns:
        if c.physical:
            expr: ir.Expr = ir.Col(c.name)
        elif c.metadata:
            key = TABLE_METADATA[c.metadata]
            expr = cast_metadata(envelope.get(c.metadata, key.read(source)), key.type, c.type)
        else:
            expr = header_columns(c, empty_headers())
        fields.append((c.name, expr))
    key = (
        ir.Struct(tuple((k, ir.Col(k)) for k in source.config.key_fields))
        if source.config.key_fields
        else ir.Null("BINARY")
    )
    columns = [
        ("key", key),
        ("value", ir.Struct(tuple(fields))),
        *envelope.items(),
        ("timestampType", ir.Cast(ir.Lit(LOG_APPEND_TIME if _feed(source) else NO_TIMESTAMP), "INT")),
        ("headers", empty_headers()),
    ]
    if _feed(source):
        columns.append((OP, change_op(source)))
    return (ir.Select(tuple(columns)),)


def source_columns(source: Source) -> dict[str, str]:
    """The table columns the pipeline reads: name -> Spark DDL type."""
    return {c.name: c.type.ddl() for c in source.config.columns if c.physical}


def table_reader(source: Source) -> dict:
    """The table source's settings for templates/tables/source_read.py.j2."""
    read = source.config
    name = table_formats.catalog_table(source.connector, read.table, read.catalog)
    _, catalog = table_formats.catalog(source.connector, read.table, read.catalog, "source_path")
    where = source.config.path.raw if source.config.path else name
    what = "its change feed (+I, -U, +U, -D rows)" if read.change_feed else "its rows"
    return {
        "format": py_literal(source.connector),
        "path": path_expr(source.config.path),
        "name": py_literal(name),
        "catalog": table_formats.catalog_expr(catalog),
        "change_feed": py_literal(read.change_feed),
        "key": py_literal(list(source.config.key_fields)),
        "options": py_literal(dict(source.config.options)),
        "columns": py_literal(source_columns(source)),
        "summary": doc_text(
            f"{source.connector} table {where}: {what}, the columns checked against the table at start."
        ),
    }


def check_table_source(source: Source, where: Where) -> None:
    """A change feed's metadata and column names, and what each format can read."""
    feed = _feed(source)
    for i, c in enumerate(source.config.columns):
        if c.metadata in FEED_KEYS and not feed:
            where.diags.error(
                "E224",
                f"metadata key '{c.metadata}' is a change feed's: a plain read of the table has no commits",
                where.at("columns", i, "metadata"),
                "add read-change-feed: true, or remove the column",
            )
        if c.physical and c.name in CHANGE_COLUMNS and feed:
            where.diags.error(
                "E224",
                f"column '{c.name}' is the change feed's own column",
                where.at("columns", i, "name"),
                "read it as metadata (commit-version, commit-timestamp), or rename the table's column",
            )
    if feed and source.connector == "iceberg" and where.streaming:
        where.diags.error(
            "E225",
            "iceberg source: Iceberg's Spark runtime reads a changelog in batch only (its streaming "
            "read takes appends)",
            where.key_at("read-change-feed"),
            "use mode: batch (each run reads the snapshots the options name), or remove read-change-feed",
        )


def _source(name: str, config: type[SourceConfig], options: frozenset[str], rate_limit: str) -> SourceConnector:
    return SourceConnector(
        name=name,
        config=config,
        metadata=TABLE_METADATA,
        decode=decode_table,
        reader=table_reader,
        options=options,
        check=check_table_source,
        given_fields=frozenset({"value", "batch"}),  # a given value is one row as the table yields it
        given_hint="a given value is one row as the table yields it (with a change feed's _change_type, _commit_version "
        "and _commit_timestamp); `batch: N` groups commits",
        reads_table=True,
        rate_limit=rate_limit,
        changelog_key="read-change-feed",
    )


DELTA_SOURCE = _source("delta", DeltaSourceConfig, DELTA_READ_OPTIONS, "maxFilesPerTrigger")
ICEBERG_SOURCE = _source("iceberg", IcebergSourceConfig, ICEBERG_READ_OPTIONS, "streaming-max-files-per-micro-batch")
