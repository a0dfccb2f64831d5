"""The table sinks, `delta` and `iceberg` (SPEC 7.1): append, upsert (SCD type 1 through MERGE) and history (SCD
type 2) into a lakehouse table. The record path ends in the table's rows; the apply modes run in the job's table
runtime (compiler/runtime/tables.py), driver-side orchestration of native DataFrame and SQL operations."""

from __future__ import annotations

from .. import ir
from ..changelog import OP, TOMBSTONE
from ..diagnostics import Collector
from ..emit.render import doc_text, path_expr, py_literal
from ..model import Sink, SinkConfig, Source
from ..shape import Shape
from ..types.sql import BIGINT, INT, STRING, TIMESTAMP_LTZ_3, SqlType, StructField, StructType
from . import table_formats
from .base import SinkConnector, TestLayout, envelope_layout
from .files import _typed_columns, check_files_sink
from .table_config import DeltaSinkConfig, IcebergSinkConfig
from .upsert_kafka import change_op, primary_key

# pipec's bookkeeping columns in a table (docs/tables.md): the sequence of the change a row (or version) holds, and
# the work columns of a micro-batch that never reach the table.
SEQUENCE = "__SEQUENCE"
START_AT, END_AT = "__START_AT", "__END_AT"
CHANGE = "__op"  # the row's change: +I, -U, +U, -D (an insert-only source: +I, or -D for a tombstone)
ORDER = "__ORDER"  # arrival order within a micro-batch: (partition, offset, read order)
APPLIES = ("upsert", "history")
# Delta's and Iceberg's table writer options the compiler knows
DELTA_OPTIONS = frozenset({"maxRecordsPerFile", "optimizeWrite", "userMetadata", "mergeSchema"})
ICEBERG_OPTIONS = frozenset({"write-format", "target-file-size-bytes", "distribution-mode", "fanout-enabled"})


def sequence_fields(sink: Sink, shape: Shape) -> tuple[tuple[str, ir.Expr, SqlType], ...]:
    """The fields of a change's sequence, compared in order: the `sequence-by` column, or the record timestamp,
    partition and offset."""
    if sink.config.sequence_by:
        value = shape.value
        assert isinstance(value, StructType)
        name = sink.config.sequence_by
        return ((name, ir.Get(ir.Col("value"), name), value.field(name).type),)
    fields = (("timestamp", TIMESTAMP_LTZ_3), ("partition", INT), ("offset", BIGINT))
    if shape.tombstones:  # an upsert-kafka `-D`: its tombstone's own envelope, not the deleted image's
        return tuple((n, ir.Func("coalesce", (ir.Get(ir.Col(TOMBSTONE), n), ir.Col(n))), t) for n, t in fields)
    return tuple((n, ir.Col(n), t) for n, t in fields)


def table_columns(sink: Sink, shape: Shape) -> list[tuple[str, ir.Expr, SqlType | None]]:
    """The table's own columns: the value's fields (virtual ones dropped), plus the envelope with `envelope:
    true`; an applied changelog's op is not a column."""
    columns = _typed_columns(sink, shape)
    return [c for c in columns if not (sink.config.apply in APPLIES and c[0] == OP)]


def bookkeeping(sink: Sink, shape: Shape) -> list[tuple[str, SqlType]]:
    """pipec's columns in the table: history's bounds (the sequence-by type), and the full sequence."""
    fields = sequence_fields(sink, shape)
    sequence = StructType(tuple(StructField(name, t) for name, _, t in fields))
    if sink.config.apply == "history":
        return [(START_AT, fields[0][2]), (END_AT, fields[0][2]), (SEQUENCE, sequence)]
    return [(SEQUENCE, sequence)] if sink.config.apply == "upsert" else []


def _null_key(sink: Sink) -> ir.Expr:
    return ir.Func(
        "raise_error",
        (
            ir.Func(
                "format_string",
                (
                    ir.Arg(
                        f"{sink.connector} sink: a primary-key column ({', '.join(sink.config.primary_key)}) is null, so the change "
                        "cannot be applied (topic %s, partition %s, offset %s)"
                    ),
                    ir.Col("topic"),
                    ir.Col("partition"),
                    ir.Col("offset"),
                ),
            ),
        ),
    )


def _null_sequence(sink: Sink) -> ir.Expr:
    return ir.Func(
        "raise_error",
        (
            ir.Func(
                "format_string",
                (
                    ir.Arg(
                        f"{sink.connector} sink: sequence-by column {sink.config.sequence_by} is null, so the change cannot be ordered "
                        "(topic %s, partition %s, offset %s)"
                    ),
                    ir.Col("topic"),
                    ir.Col("partition"),
                    ir.Col("offset"),
                ),
            ),
        ),
    )


def encode_table(sink: Sink, shape: Shape) -> tuple[ir.Op, ...]:
    """The table's rows; to apply changes, each also carries its change (`__op`), sequence and arrival order. A
    primary-key column or sequence that is null is a record error: a change nobody can apply is never dropped."""
    columns = [(name, expr) for name, expr, _ in table_columns(sink, shape)]
    if sink.config.apply not in APPLIES:
        fields = shape.value.fields if isinstance(shape.value, StructType) else None
        if fields and columns == [(f.name, ir.Get(ir.Col("value"), f.name)) for f in fields]:
            return (ir.SelectFields("value", tuple(f.name for f in fields)),)  # the value's fields, as they are
        return (ir.Select(tuple(columns)),)
    key = ir.Col("__KEY")
    keyed = ir.SetColumns((("__KEY", primary_key(sink, shape)),))
    null_key: ir.Expr = ir.IsNull(key)
    for k in sink.config.primary_key:
        null_key = ir.BinOp("|", null_key, ir.IsNull(ir.Get(key, k)))
    checked = ir.SetColumns((("__KEY", ir.If(null_key, _null_key(sink), key)),))
    sequence: ir.Expr = ir.Struct(tuple((name, expr) for name, expr, _ in sequence_fields(sink, shape)))
    if sink.config.sequence_by:
        sequence = ir.If(ir.IsNull(ir.Get(ir.Col("value"), sink.config.sequence_by)), _null_sequence(sink), sequence)
    with_key = [(n, ir.Get(key, n) if n in sink.config.primary_key else e) for n, e in columns]
    order = ir.Struct(
        (
            ("partition", ir.Col("partition")),
            ("offset", ir.Col("offset")),
            ("read", ir.Func("monotonically_increasing_id", ())),
        )
    )
    rows = ir.Select((*with_key, (CHANGE, change_op(shape)), (SEQUENCE, sequence), (ORDER, order)))
    return (keyed, checked, rows)


def check_table_sink(sink: Sink, shape: Shape, diags: Collector) -> None:
    """The files sink's column rules, a struct value, and primary-key, sequence-by and apply that fit together."""
    where = sink.connector
    if not isinstance(shape.value, StructType):
        diags.error(
            "E560",
            f"{where} sink: a table's columns are the value's fields, and the value here is not a struct",
            sink.loc,
            "keep a struct value (drop the ExtractField step), or HoistField it into one",
        )
        return
    check_files_sink(sink, shape, diags)
    names = [n for n, _, _ in table_columns(sink, shape)]
    reserved = [n for n in names if n.startswith("__")]
    if reserved:
        diags.error(
            "E561",
            f"{where} sink: column names starting with __ are pipec's bookkeeping columns: {', '.join(reserved)}",
            sink.loc,
            "rename them with ReplaceField",
        )
    if sink.config.apply in APPLIES:
        if not sink.config.primary_key:
            diags.error(
                "E562",
                f"{where} sink: apply: {sink.config.apply} needs primary-key, the columns a row is identified by",
                sink.loc,
                f"add primary-key: [<column>]; columns: {', '.join(names)}",
            )
        for k, loc in zip(sink.config.primary_key, sink.key_field_locs):
            if k not in names:
                diags.error(
                    "E563",
                    f"{where} sink: primary-key column '{k}' is not in the table; columns: {', '.join(names)}",
                    loc,
                    "name a column the value has (after the chain's renames)",
                )
        if sink.config.sequence_by and sink.config.sequence_by not in names:
            diags.error(
                "E564",
                f"{where} sink: sequence-by column '{sink.config.sequence_by}' is not in the table; columns: {', '.join(names)}",
                sink.sequence_by_loc or sink.loc,
                "name a column the value has, or leave sequence-by out: the record timestamp then orders changes",
            )
        elif sink.config.sequence_by and sink.config.sequence_by in sink.config.primary_key:
            diags.error(
                "E565",
                f"{where} sink: sequence-by column '{sink.config.sequence_by}' is part of the primary key, so it "
                "cannot order a key's changes",
                sink.sequence_by_loc or sink.loc,
                "name a column that changes, e.g. updated_at",
            )
        elif sink.config.sequence_by and not _orderable(shape.value.field(sink.config.sequence_by).type):
            diags.error(
                "E566",
                f"{where} sink: sequence-by column '{sink.config.sequence_by}' is {shape.value.field(sink.config.sequence_by).type.sql()}, "
                "which does not order",
                sink.sequence_by_loc or sink.loc,
                "name a number, timestamp, date or string column",
            )
    else:
        for what, loc in (
            ("primary-key", sink.primary_key_loc if sink.config.primary_key else None),
            ("sequence-by", sink.sequence_by_loc),
        ):
            if loc is not None:
                diags.error(
                    "E567",
                    f"{where} sink: {what} applies to apply: upsert and history; this sink appends every row",
                    loc,
                    "add apply: upsert (SCD type 1) or apply: history (SCD type 2), or remove it",
                )


def _orderable(t: SqlType) -> bool:
    return t.is_numeric or t.is_timestamp or t.sql() in ("STRING", "DATE")


def table_name(sink: Sink) -> str | None:
    """The catalog table as Spark names it (an Iceberg table's catalog first)."""
    return table_formats.catalog_table(sink.connector, sink.config.table, sink.config.catalog)


def _ddl(t: SqlType | None) -> str:
    return t.ddl() if t is not None else "BINARY"


def table_writer(sink: Sink, source: Source) -> dict:
    """The table sink's settings for templates/tables/: where, how it applies, the columns it creates."""
    _, catalog = table_formats.catalog(
        sink.connector, sink.config.table, sink.config.catalog, "sink_path"
    )  # --sink-path: another warehouse
    where = sink.config.path.raw if sink.config.path else table_name(sink)
    how = {
        "append": "appends every row",
        "upsert": "upserts each key's newest change (SCD type 1, MERGE)",
        "history": "keeps each key's versions (SCD type 2, MERGE)",
    }[sink.config.apply]
    return {
        "format": py_literal(sink.connector),
        "path": path_expr(sink.config.path),
        "name": py_literal(table_name(sink)),
        "apply": py_literal(sink.config.apply),
        "key": py_literal(list(sink.config.primary_key)),
        "sequence_by": py_literal(sink.config.sequence_by),
        "partition_by": py_literal(list(sink.config.partition_by)),
        "properties": py_literal(dict(sink.config.table_properties)),
        "evolution": py_literal(sink.config.schema_evolution),
        "options": py_literal(dict(sink.config.options)),
        "catalog": table_formats.catalog_expr(catalog),
        "checkpoint": path_expr(sink.config.checkpoint),
        "summary": doc_text(f"{sink.connector} table {where}: {how}."),
    }


def columns_ddl(sink: Sink, shape: Shape) -> dict[str, str]:
    """The table's columns and their Spark DDL types, bookkeeping columns last."""
    return {
        **{n: _ddl(t) for n, _, t in table_columns(sink, shape)},
        **{n: t.ddl() for n, t in bookkeeping(sink, shape)},
    }


def describe(sink: Sink, shape: Shape) -> list[str]:
    """explain's lines: the table, how rows apply, its key and order, and its columns with their types."""
    how = {
        "append": "append every row",
        "upsert": "upsert (SCD type 1, MERGE)",
        "history": "history (SCD type 2, MERGE)",
    }
    lines = [f"table:   {sink.config.path.raw if sink.config.path else table_name(sink)} ({how[sink.config.apply]})"]
    if sink.config.apply in APPLIES:
        order = sink.config.sequence_by or "record timestamp, partition, offset"
        lines.append(f"key:     {', '.join(sink.config.primary_key)}; changes ordered by {order}")
    if sink.config.partition_by:
        lines.append(f"partitioned by: {', '.join(sink.config.partition_by)}")
    lines.append("types:   " + ", ".join(f"{n} {t}" for n, t in columns_ddl(sink, shape).items()))
    return lines


def table_layout(sink: Sink, shape: Shape) -> TestLayout:
    """What a record test's `expect` names: the rows the job hands the table (a files sink's), and for upsert and
    history the change each row applies (`op`)."""
    layout = envelope_layout(sink, shape)
    if sink.config.apply not in APPLIES:
        return layout
    return TestLayout({**layout.fields, OP: STRING}, layout.unwritten)


def _sink(name: str, config: type[SinkConfig], options: frozenset[str]) -> SinkConnector:
    return SinkConnector(
        name=name,
        config=config,
        check=check_table_sink,
        encode=encode_table,
        writer=table_writer,
        options=options,
        carries_op=lambda sink: sink.config.envelope or sink.config.apply in APPLIES,
        changelog_fix="add apply: upsert (or history) with primary-key to apply the changelog, or envelope: true to append each row's op",
        applies_changes=lambda sink: sink.config.apply in APPLIES,
        writes_table=True,
        spark_sink=name,
        written=lambda sink, shape: tuple(columns_ddl(sink, shape)),
        describe=describe,
        test_layout=table_layout,
    )


DELTA_SINK = _sink("delta", DeltaSinkConfig, DELTA_OPTIONS)
ICEBERG_SINK = _sink("iceberg", IcebergSinkConfig, ICEBERG_OPTIONS)
