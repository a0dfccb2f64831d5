"""The `files` source and sink and the `console` sink: the embedded defaults that need no server."""

from __future__ import annotations

from .. import ir, spark_versions
from ..changelog import OP
from ..diagnostics import Collector
from ..model import Sink, Source
from ..shape import Shape
from ..types import BIGINT, HEADERS_MAP, INT, STRING, TIMESTAMP_LTZ_3, ArrayType, MapType, StructType
from .base import (
    ENVELOPE_COLUMNS,
    MetaKey,
    SinkConnector,
    SourceConnector,
    cast_metadata,
    empty_headers,
    header_columns,
)

AVRO_PACKAGE = spark_versions.AVRO
FILE = ir.Col("_metadata")


def _offset(source: Source) -> ir.Expr:
    """The row index where Spark gives one (parquet), else null."""
    return ir.Get(FILE, "row_index") if source.format == "parquet" else ir.Null("BIGINT")


def _topic(source: Source, pipeline: str) -> ir.Expr:
    """The topic records carry: the configured one (resolved at run time when it holds ${env:...}), or the pipeline's name."""
    if source.topic is None:
        return ir.Lit(pipeline)
    return ir.EnvText(source.topic.raw) if source.topic.has_env else ir.Lit(source.topic.literal)


FILES_METADATA = {
    "file.path": MetaKey(STRING, lambda s: ir.Get(FILE, "file_path")),
    "file.name": MetaKey(STRING, lambda s: ir.Get(FILE, "file_name")),
    "file.size": MetaKey(BIGINT, lambda s: ir.Get(FILE, "file_size")),
    "file.modification-time": MetaKey(TIMESTAMP_LTZ_3, lambda s: ir.Get(FILE, "file_modification_time")),
    "topic": MetaKey(STRING, lambda s: ir.Col("topic")),
    "partition": MetaKey(INT, lambda s: ir.Col("partition")),
    "offset": MetaKey(BIGINT, _offset),
    "timestamp": MetaKey(TIMESTAMP_LTZ_3, lambda s: ir.Get(FILE, "file_modification_time")),
    "timestamp-type": MetaKey(STRING, lambda s: ir.Lit("LogAppendTime")),
    "headers": MetaKey(
        HEADERS_MAP, lambda s: ir.Cast(ir.Func("map_from_entries", (empty_headers(),)), HEADERS_MAP.ddl())
    ),
}


def decode_files(source: Source, pipeline: str) -> tuple[ir.Op, ...]:
    """File rows (plus Spark's hidden `_metadata`) -> the record model; each row is a record value."""
    envelope = {
        "topic": _topic(source, pipeline),
        "partition": ir.Cast(ir.Lit(0), "INT"),
    }
    fields = []
    for c in source.columns:
        if c.physical:
            expr: ir.Expr = ir.Col(c.name)
        elif c.metadata:
            key = FILES_METADATA[c.metadata]
            read = key.read(source)
            expr = cast_metadata(envelope.get(c.metadata, read), key.type, c.type)
        else:
            expr = header_columns(c, empty_headers())
        fields.append((c.name, expr))
    key = ir.Struct(tuple((k, ir.Col(k)) for k in source.key_fields)) if source.key_fields else ir.Null("BINARY")
    return (
        ir.Select(
            (
                ("key", key),
                ("value", ir.Struct(tuple(fields))),
                ("topic", envelope["topic"]),
                ("partition", envelope["partition"]),
                ("offset", _offset(source)),
                ("timestamp", ir.Get(FILE, "file_modification_time")),
                ("timestampType", ir.Cast(ir.Lit(1), "INT")),
                ("headers", empty_headers()),
            )
        ),
    )


# Spark's file reader and writer options (csv/json/text/parquet/avro and the streaming file source).
_TEXT_OPTIONS = {"encoding", "lineSep", "dateFormat", "timestampFormat", "timestampNTZFormat", "locale", "compression"}
_CSV_OPTIONS = {"header", "sep", "delimiter", "quote", "escape", "comment", "nullValue", "emptyValue", "nanValue",
                "ignoreLeadingWhiteSpace", "ignoreTrailingWhiteSpace", "quoteAll", "escapeQuotes", "charToEscapeQuoteEscaping"}
FILE_READ_OPTIONS = frozenset(_TEXT_OPTIONS | _CSV_OPTIONS | {
    "mode", "multiLine", "columnNameOfCorruptRecord", "maxColumns", "maxCharsPerColumn", "enforceSchema",
    "allowComments", "allowUnquotedFieldNames", "allowSingleQuotes", "allowNumericLeadingZeros", "allowNonNumericNumbers",
    "allowBackslashEscapingAnyCharacter", "allowUnquotedControlChars", "dropFieldIfAllNull", "primitivesAsString",
    "prefersDecimal", "wholetext", "recursiveFileLookup", "pathGlobFilter", "modifiedBefore", "modifiedAfter",
    "ignoreCorruptFiles", "ignoreMissingFiles", "mergeSchema", "datetimeRebaseMode", "int96RebaseMode",
    "maxFilesPerTrigger", "maxBytesPerTrigger", "latestFirst", "fileNameOnly", "maxFileAge", "cleanSource",
    "sourceArchiveDir", "avroSchema", "positionalFieldMatching",
})
FILE_WRITE_OPTIONS = frozenset(_TEXT_OPTIONS | _CSV_OPTIONS | {"ignoreNullFields", "maxRecordsPerFile", "avroSchema", "recordName", "recordNamespace"})
CONSOLE_OPTIONS = frozenset({"numRows", "truncate"})

FILES_SOURCE = SourceConnector(
    name="files",
    metadata=FILES_METADATA,
    decode=decode_files,
    packages=lambda s: (AVRO_PACKAGE,) if s.format == "avro" else (),
    formats=("json", "csv", "parquet", "avro", "text"),
    options=FILE_READ_OPTIONS,
)


# ---------------------------------------------------------------- sinks


def sink_columns(sink: Sink, shape: Shape) -> list[tuple[str, ir.Expr]]:
    """The value's fields (virtual ones dropped) or one `value` column, plus the envelope if asked."""
    value = shape.value
    if isinstance(value, StructType):
        cols = [(f.name, ir.Get(ir.Col("value"), f.name)) for f in value.fields if f.name not in shape.virtual]
    else:
        cols = [("value", ir.Col("value"))]
    if sink.envelope:
        cols += [(name, ir.Col(name)) for name in ENVELOPE_COLUMNS]
        if shape.changelog:
            cols.append((OP, ir.Col(OP)))
    return cols


def check_files_sink(sink: Sink, shape: Shape, diags: Collector) -> None:
    names = [n for n, _ in sink_columns(sink, shape)]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        diags.error(
            "E500",
            f"{sink.connector} sink: the value has fields named like envelope columns: {', '.join(dupes)}",
            sink.loc,
            "rename them with ReplaceField, or drop `envelope: true`",
        )
    for p, loc in zip(sink.partition_by, sink.partition_by_locs):
        if p not in names:
            diags.error(
                "E501",
                f"{sink.connector} sink: partition-by column '{p}' is not in the output; columns: {', '.join(names)}",
                loc,
            )
    if sink.format == "csv":
        value = shape.value
        nested = (
            [f.name for f in value.fields if isinstance(f.type, (StructType, ArrayType, MapType))]
            if isinstance(value, StructType)
            else []
        )
        if sink.envelope or nested:
            what = ", ".join(nested + (["the envelope"] if sink.envelope else []))
            diags.error(
                "E502", f"csv sink cannot write nested columns: {what}", sink.loc, "use Flatten, json or parquet"
            )


def encode_rows(sink: Sink, shape: Shape) -> ir.Select:
    return ir.Select(tuple(sink_columns(sink, shape)))


FILES_SINK = SinkConnector(
    name="files",
    check=check_files_sink,
    encode=encode_rows,
    packages=lambda s: (AVRO_PACKAGE,) if s.format == "avro" else (),
    options=FILE_WRITE_OPTIONS,
)
CONSOLE_SINK = SinkConnector(name="console", check=check_files_sink, encode=encode_rows, options=CONSOLE_OPTIONS)
