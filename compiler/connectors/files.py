"""The `files` source and sink and the `console` sink: the embedded defaults that need no server."""

from __future__ import annotations

from collections.abc import Callable

from .. import ir, spark_versions
from ..changelog import OP
from ..diagnostics import Collector, did_you_mean
from ..emit.render import doc_text, path_expr, py_literal
from ..model import Column, Sink, Source
from ..record_errors import CONVERTER_STAGES, CORRUPT, in_source_file, not_valid
from ..shape import Shape
from ..transforms.base import Lowering
from ..types.sql import (
    BIGINT,
    BYTES,
    HEADERS,
    HEADERS_MAP,
    INT,
    STRING,
    TIMESTAMP_LTZ_3,
    ArrayType,
    MapType,
    SqlType,
    StructField,
    StructType,
)
from . import avro, json_timestamps
from .base import (
    ENVELOPE_COLUMNS,
    MetaKey,
    SinkConnector,
    SourceConnector,
    Where,
    cast_metadata,
    empty_headers,
    header_columns,
)
from .cdc_json import foreign_key_hint
from .file_options import CONSOLE_OPTIONS, FILE_READ_OPTIONS, FILE_WRITE_OPTIONS
from .files_config import ConsoleSinkConfig, FilesSinkConfig, FilesSourceConfig
from .spark_io import file_writer, table_ddl

AVRO_PACKAGE = spark_versions.AVRO
FILE = ir.Col("_metadata")
ENVELOPE_TYPES = {"topic": STRING, "partition": INT, "offset": BIGINT, "timestamp": TIMESTAMP_LTZ_3, "headers": HEADERS}
FILL_HINT = "give it a field (InsertField) or drop it (ReplaceField), or write it with a kafka sink as json"


def _offset(source: Source) -> ir.Expr:
    """The row index where Spark gives one (parquet), else null."""
    return ir.Get(FILE, "row_index") if source.config.format == "parquet" else ir.Null("BIGINT")


def _topic(source: Source, pipeline: str) -> ir.Expr:
    """The topic records carry: the configured one (resolved at run time when it holds ${env:...}), or the pipeline's name."""
    if source.config.topic is None:
        return ir.Lit(pipeline)
    return ir.EnvText(source.config.topic.raw) if source.config.topic.has_env else ir.Lit(source.config.topic.literal)


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


def reader_schema(source: Source) -> StructType:
    """The physical columns as Spark's reader reads them (json: timestamps as text, see `json_timestamps`)."""
    physical = StructType(tuple(StructField(c.name, c.type) for c in source.config.columns if c.physical))
    return json_timestamps.as_text(physical) if source.config.format == "json" else physical


PARSED_FORMATS = ("json", "csv")  # formats whose reader parses each line, and has a malformed-record mode


def checks_lines(source: Source) -> bool:
    """Whether the job fails on a malformed line (errors.tolerance: none): a json or csv source with physical
    columns, whose `options` ask for no other handling (`mode: PERMISSIVE` or `DROPMALFORMED`, or a corrupt-record
    column of their own, keep Spark's meaning). Spark's reader then reads PERMISSIVE into a hidden corrupt-record
    column, which decode checks: FAILFAST's own error names neither the file nor the line."""
    options = dict(source.config.options)
    return (
        source.config.format in PARSED_FORMATS
        and any(c.physical for c in source.config.columns)
        and str(options.get("mode", "FAILFAST")).upper() == "FAILFAST"
        and "columnNameOfCorruptRecord" not in options
    )


def files_reader(source: Source) -> dict:
    """Spark's file reader: schema, format, options and path."""
    schema, options = reader_schema(source), dict(source.config.options)
    if checks_lines(source):
        schema = StructType((*schema.fields, StructField(CORRUPT, STRING)))
        options = {**options, "mode": "PERMISSIVE", "columnNameOfCorruptRecord": CORRUPT}
    return {
        "schema": py_literal(table_ddl(schema)),
        "format": py_literal(source.config.format),
        "options": py_literal(options),
        "path": path_expr(source.config.path),
        "summary": doc_text(
            f"{source.config.format} files at {source.config.path.raw if source.config.path else '?'}; each row is one record value"
            + (
                "; a malformed line fails the job (decode checks the corrupt-record column)."
                if checks_lines(source)
                else "."
            )
        ),
    }


class FileLowering(Lowering):
    """Record errors of a row Spark's file reader read: they name its file (it has no topic, partition or offset yet)."""

    def record_error(self, reason: str) -> ir.Expr:
        return ir.Func("raise_error", (in_source_file(f"{self.owner}: {reason}"),))


def _timestamps_converted(source: Source) -> tuple[ir.Op, ...]:
    """json: each column holding timestamps converted from its text. A value that is neither epoch milliseconds
    nor ISO-8601 is a record error where the job checks lines, else null, as Spark's reader leaves a field it cannot
    parse under `mode: PERMISSIVE`."""
    if source.config.format != "json":
        return ()
    errors = FileLowering(f"{CONVERTER_STAGES['value']}: source value", None) if checks_lines(source) else None
    columns = tuple(
        (c.name, json_timestamps.converted(ir.Col(c.name), c.type, errors, c.name))
        for c in source.config.columns
        if c.physical and json_timestamps.has_timestamp(c.type)
    )
    return (ir.SetColumns(columns),) if columns else ()


def decode_files(source: Source, pipeline: str) -> tuple[ir.Op, ...]:
    """File rows (plus Spark's hidden `_metadata`) -> the record model; each row is a record value, and a row
    the reader found malformed (its corrupt-record column set) fails the job, naming the file."""
    check = None
    if checks_lines(source):
        malformed = ir.Not(ir.IsNull(ir.Col(CORRUPT)))
        check = (
            malformed,
            ir.Func(
                "raise_error",
                (in_source_file(f"{CONVERTER_STAGES['value']}: {not_valid('value', source.config.format)}"),),
            ),
        )
    return (*_timestamps_converted(source), record(source, pipeline, lambda c: ir.Col(c.name), check))


def record(
    source: Source, pipeline: str, physical: Callable[[Column], ir.Expr], check: tuple[ir.Expr, ir.Expr] | None = None
) -> ir.Select:
    """The record model of a row with Spark's `_metadata`, its physical columns read by `physical`; `check`:
    (a condition, the record error the value is where it holds)."""
    envelope = {
        "topic": _topic(source, pipeline),
        "partition": ir.Cast(ir.Lit(0), "INT"),
    }
    fields = []
    for c in source.config.columns:
        if c.physical:
            expr: ir.Expr = physical(c)
        elif c.metadata:
            key = FILES_METADATA[c.metadata]
            read = key.read(source)
            expr = cast_metadata(envelope.get(c.metadata, read), key.type, c.type)
        else:
            expr = header_columns(c, empty_headers())
        fields.append((c.name, expr))
    key = (
        ir.Struct(tuple((k, ir.Col(k)) for k in source.config.key_fields))
        if source.config.key_fields
        else ir.Null("BINARY")
    )
    value: ir.Expr = ir.Struct(tuple(fields))
    if check:
        value = ir.If(check[0], check[1], value)
    return ir.Select(
        (
            ("key", key),
            ("value", value),
            ("topic", envelope["topic"]),
            ("partition", envelope["partition"]),
            ("offset", _offset(source)),
            ("timestamp", ir.Get(FILE, "file_modification_time")),
            ("timestampType", ir.Cast(ir.Lit(1), "INT")),
            ("headers", empty_headers()),
        )
    )


def text_columns(fmt: str | None, columns: tuple[Column, ...], where: Where) -> tuple[Column, ...]:
    """A text source has the single column `value STRING`, declared or not."""
    if fmt != "text":
        return columns
    physical = [c for c in columns if c.physical]
    if [(c.name, c.type.sql()) for c in physical] not in ([], [("value", "STRING")]):
        where.diags.error(
            "E220",
            "a text source has the single column {name: value, type: STRING}",
            where.at("columns"),
            "declare columns: [{name: value, type: STRING}], and parse the line in steps",
        )
    if not physical:
        columns = (Column("value", STRING, where.at()),) + columns
    return columns


def check_files_source(source: Source, where: Where) -> None:
    if any(c.physical and c.name == "_metadata" for c in source.config.columns):
        where.diags.error(
            "E223",
            "a files source cannot have a column named _metadata: it would hide Spark's file metadata",
            where.at("columns"),
            "rename the column",
        )


FILES_SOURCE = SourceConnector(
    name="files",
    config=FilesSourceConfig,
    rate_limit="maxFilesPerTrigger",
    metadata=FILES_METADATA,
    decode=decode_files,
    reader=files_reader,
    packages=lambda s: (AVRO_PACKAGE,) if s.config.format == "avro" else (),
    formats=("json", "csv", "parquet", "avro", "text"),
    options=FILE_READ_OPTIONS,
    check=check_files_source,
    metadata_hint=lambda key, fmt: foreign_key_hint(key, None),
    yields=text_columns,
    given_fields=frozenset(
        {"value", "batch"}
    ),  # files records get topic, partition, offset and timestamp from the files
    reads_files=True,
)


# ---------------------------------------------------------------- sinks


def sink_columns(sink: Sink, shape: Shape) -> list[tuple[str, ir.Expr]]:
    """The value's fields (virtual ones dropped) or one `value` column, plus the envelope if asked."""
    return [(name, expr) for name, expr, _ in _typed_columns(sink, shape)]


def _typed_columns(sink: Sink, shape: Shape) -> list[tuple[str, ir.Expr, SqlType | None]]:
    value = shape.value
    if isinstance(value, StructType):
        cols = [(f.name, ir.Get(ir.Col("value"), f.name), f.type) for f in value.fields if f.name not in shape.virtual]
    else:
        cols = [("value", ir.Col("value"), value)]
    if sink.config.format == "csv":  # Spark's csv writes BYTES as a debug string; Flink's csv writes base64
        cols = [(n, ir.Func("base64", (e,)) if t is not None and t.is_binary else e, t) for n, e, t in cols]
    if sink.config.envelope:
        types = {**ENVELOPE_TYPES, "key": shape.key}
        cols += [(name, ir.Col(name), types[name]) for name in ENVELOPE_COLUMNS]
        if shape.changelog:
            cols.append((OP, ir.Col(OP), STRING))
    if sink.config.format == "json":  # timestamp-format: written as epoch milliseconds or SQL text where asked
        cols = [(n, *json_timestamps.written(e, t, sink.config.timestamp_format)) for n, e, t in cols]
    return cols


def empty_structs(t: SqlType, path: str) -> list[str]:
    """The paths in `t` (a column named `path`) that are structs without fields."""
    if isinstance(t, StructType):
        return ([path] if not t.fields else []) + [
            p for f in t.fields for p in empty_structs(f.type, f"{path}.{f.name}")
        ]
    if isinstance(t, ArrayType):
        return empty_structs(t.element, f"{path}[]")
    if isinstance(t, MapType):
        return empty_structs(t.value, f"{path}{{}}")
    return []


def file_problems(sink: Sink, shape: Shape) -> list[tuple[str, str]]:
    """(why, hint) for each thing Spark's file writer of the sink's format refuses in these columns (Spark 4.0:
    EMPTY_SCHEMA_NOT_SUPPORTED_FOR_DATASOURCE for every file format; spark-avro's string-only map keys)."""
    typed = _typed_columns(sink, shape)
    columns = [(name, t) for name, _, t in typed if t is not None]
    problems = []
    if isinstance(shape.value, StructType) and not shape.value.fields:
        why = (
            "its rows would hold only the envelope, as a tombstone's do"
            if sink.config.envelope
            else "its rows would have no columns, and Spark writes no empty schema"
        )
        problems.append((f"the value is a struct with no fields: {why}", FILL_HINT))
    empty = [p for name, t in columns for p in empty_structs(t, name)]
    if empty:
        problems.append((f"Spark's file formats cannot write a struct with no fields: {', '.join(empty)}", FILL_HINT))
    data = [name for name, _, _ in typed if name not in sink.config.partition_by]  # an always-null column counts
    if sink.config.format == "csv" and len(data) == 1:
        problems.append(
            (
                f"csv files would hold one column ({data[0]}), and Spark's csv writer skips a line whose only "
                "column is null: null values and tombstones would vanish",
                "use json or parquet, or add a column",
            )
        )
    if sink.config.format == "avro":
        bad = [f"{name} ({b})" for name, t in columns for b in avro.unsupported(t)]
        if bad:
            problems.append((f"Avro map keys are strings: {', '.join(bad)}", "use json or parquet"))
    return problems


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
    for p, loc in zip(sink.config.partition_by, sink.partition_by_locs):
        if p not in names:
            diags.error(
                "E501",
                f"{sink.connector} sink: partition-by column '{p}' is not in the output; columns: {', '.join(names)}",
                loc,
                did_you_mean(p, names) or "partition by a column the sink writes",
            )
    if sink.config.format == "csv":
        value = shape.value
        fields = (
            value.fields
            if isinstance(value, StructType)
            else (StructField("value", value if value is not None else BYTES),)
        )
        nested = [f.name for f in fields if isinstance(f.type, (StructType, ArrayType, MapType))]
        if sink.config.envelope or nested:
            what = ", ".join(nested + (["the envelope"] if sink.config.envelope else []))
            diags.error(
                "E502",
                f"csv sink cannot write nested columns: {what}",
                sink.format_loc or sink.loc,
                "use Flatten, json or parquet",
            )
    if sink.connector == "files":
        for problem, hint in file_problems(sink, shape):
            diags.error("E503", f"files sink ({sink.config.format}): {problem}", sink.format_loc or sink.loc, hint)


def encode_rows(sink: Sink, shape: Shape) -> tuple[ir.Op, ...]:
    return (ir.Select(tuple(sink_columns(sink, shape))),)


FILES_SINK = SinkConnector(
    name="files",
    config=FilesSinkConfig,
    check=check_files_sink,
    encode=encode_rows,
    writer=file_writer,
    packages=lambda s: (AVRO_PACKAGE,) if s.config.format == "avro" else (),
    options=FILE_WRITE_OPTIONS,
    formats=("parquet", "json", "csv", "avro"),
    carries_op=lambda sink: sink.config.envelope,
    changelog_fix="add envelope: true to write each row's op, or use an upsert-kafka sink",
    writes_files=True,
)
CONSOLE_SINK = SinkConnector(
    name="console",
    config=ConsoleSinkConfig,
    check=check_files_sink,
    encode=encode_rows,
    writer=file_writer,
    options=CONSOLE_OPTIONS,
    carries_op=lambda sink: sink.config.envelope,
    changelog_fix="set envelope: true to show each row's op",
    checkpoint_required=False,
    spark_sink="console",
)
