"""The changelog value formats `debezium-json` and `canal-json` (SPEC sections 4.1 and 7), as Flink ships them.

Reading: the message is parsed once (`from_json`, PERMISSIVE with a corrupt-record column, so an undecodable
message becomes a record error naming topic, partition and offset), turned into an array of (op, image) structs
by Flink's op mapping, and exploded: a message yields zero or more rows, each with the message's envelope.
A Kafka tombstone, an empty message and a Canal DDL message yield one row with a null `op`, which the chain's
first step drops, so they count as rows in and filtered (SPEC section 8). Writing: debezium-json as Flink writes
it, `+I`/`+U` as `{"before": null, "after": row, "op": "c"}`, `-U`/`-D` as `{"before": row, "after": null, "op": "d"}`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .. import ir
from ..changelog import ADDS, DELETE, INSERT, OP, UPDATE_AFTER, UPDATE_BEFORE
from ..model import Column, Source
from ..transforms.base import Lowering
from ..types.sql import (
    BIGINT,
    BOOLEAN,
    INT,
    STRING,
    TIMESTAMP_LTZ_3,
    ArrayType,
    MapType,
    SqlType,
    StructField,
    StructType,
)
from . import json_timestamps
from .base import MetaKey

ENVELOPE = "__message"  # the parsed message
CHANGE = "__change"  # one (op, image) struct per output row
CORRUPT = "__corrupt"  # the message text where it does not parse
SCHEMA_INCLUDE = "debezium-json.schema-include"  # Flink's option (default false): messages wrapped in schema/payload
META_PREFIX = "value."  # format metadata keys through the Kafka connector (FLIP-107 as shipped)
TEXT_MAP = MapType(STRING, STRING)


def _col(*path: str) -> ir.Expr:
    expr: ir.Expr = ir.Col(ENVELOPE)
    for name in path:
        expr = ir.Get(expr, name)
    return expr


def _any_of(expr: ir.Expr, values: tuple[str, ...]) -> ir.Expr:
    return ir.Method(expr, "isin", tuple(ir.Arg(v) for v in values))


def _change(op: str, image: ir.Expr) -> ir.Expr:
    return ir.Struct((("op", ir.Lit(op)), ("image", image)))


def image_type(values: list[Column]) -> StructType:
    return StructType(tuple(StructField(c.name, c.type) for c in values))


def changes_ddl(values: list[Column]) -> str:
    return ArrayType(StructType((StructField("op", STRING), StructField("image", image_type(values))))).ddl()


def _millis(expr: ir.Expr) -> ir.Expr:
    return ir.Func("timestamp_millis", (expr,))


def _map_get(expr: ir.Expr, key: str) -> ir.Expr:
    return ir.Func("try_element_at", (expr, ir.Lit(key)))


# ---------------------------------------------------------------- debezium-json


def _debezium_payload(source: Source) -> ir.Expr:
    return _col("payload") if source.config.schema_include else _col()


def _debezium_source(name: str) -> Callable[[Source], ir.Expr]:
    return lambda s: _map_get(ir.Get(_debezium_payload(s), "source"), name)


DEBEZIUM_METADATA = {
    "schema": MetaKey(STRING, lambda s: _col("schema") if s.config.schema_include else ir.Null("STRING")),
    "ingestion-timestamp": MetaKey(TIMESTAMP_LTZ_3, lambda s: _millis(ir.Get(_debezium_payload(s), "ts_ms"))),
    "source.timestamp": MetaKey(TIMESTAMP_LTZ_3, lambda s: _millis(ir.Cast(_debezium_source("ts_ms")(s), "BIGINT"))),
    "source.database": MetaKey(STRING, _debezium_source("db")),
    "source.schema": MetaKey(STRING, _debezium_source("schema")),
    "source.table": MetaKey(STRING, _debezium_source("table")),
    "source.properties": MetaKey(TEXT_MAP, lambda s: ir.Get(_debezium_payload(s), "source")),
}


def debezium_envelope(source: Source, values: list[Column]) -> StructType:
    image = json_timestamps.as_text(image_type(values))  # a timestamp: ISO-8601 text or epoch millis, as in json
    payload = StructType(
        (
            StructField("before", image),
            StructField("after", image),
            StructField("op", STRING),
            StructField("ts_ms", BIGINT),
            StructField("source", TEXT_MAP),
        )
    )
    if source.config.schema_include:
        return StructType(
            (StructField("schema", STRING), StructField("payload", payload), StructField(CORRUPT, STRING))
        )
    return StructType(payload.fields + (StructField(CORRUPT, STRING),))


def debezium_changes(source: Source, values: list[Column], errors: Lowering) -> ir.Expr:
    """Flink's mapping: c, r -> +I(after); u -> -U(before), +U(after); d -> -D(before); any other op is an error."""
    payload = _debezium_payload(source)
    op = ir.Get(payload, "op")

    def image(field: str, kind: str) -> ir.Expr:
        value = ir.Get(payload, field)
        hint = " (a Postgres table needs REPLICA IDENTITY FULL)" if field == "before" else ""
        if json_timestamps.has_timestamp(image_type(values)):  # Debezium writes Timestamp as epoch milliseconds
            value = json_timestamps.converted(value, image_type(values), errors, field)
        return errors.fail_if(
            ir.IsNull(ir.Get(payload, field)), f'the "{field}" field of {kind} message is null{hint}', value
        )

    wrapped = (
        f"; a message with schema and payload needs {SCHEMA_INCLUDE}: true" if not source.config.schema_include else ""
    )
    unknown = errors.record_error(f'unknown or missing "op" value (expected c, r, u or d){wrapped}')
    return ir.If(
        _any_of(op, ("c", "r")),
        ir.Func("array", (_change(INSERT, image("after", "a CREATE")),)),
        ir.If(
            ir.BinOp("==", op, ir.Lit("u")),
            ir.Func(
                "array",
                (
                    _change(UPDATE_BEFORE, image("before", "an UPDATE")),
                    _change(UPDATE_AFTER, image("after", "an UPDATE")),
                ),
            ),
            ir.If(
                ir.BinOp("==", op, ir.Lit("d")),
                ir.Func("array", (_change(DELETE, image("before", "a DELETE")),)),
                unknown,
            ),
        ),
    )


# ---------------------------------------------------------------- canal-json

CANAL_METADATA = {
    "database": MetaKey(STRING, lambda s: _col("database")),
    "table": MetaKey(STRING, lambda s: _col("table")),
    "sql-type": MetaKey(MapType(STRING, INT), lambda s: _col("sqlType")),
    "pk-names": MetaKey(ArrayType(STRING), lambda s: _col("pkNames")),
    "ingestion-timestamp": MetaKey(TIMESTAMP_LTZ_3, lambda s: _millis(_col("ts"))),
    "event-timestamp": MetaKey(TIMESTAMP_LTZ_3, lambda s: _millis(_col("es"))),
}
CANAL_INSERTS = ("INSERT", "INIT")  # INIT: snapshot rows in newer Canal output
CANAL_TYPES = (*CANAL_INSERTS, "UPDATE", "DELETE")


def canal_envelope(source: Source, values: list[Column]) -> StructType:
    """Rows are read as text maps: Canal writes numbers as strings, and `old` must tell an absent field from null."""
    rows = ArrayType(TEXT_MAP)
    return StructType(
        (
            StructField("data", rows),
            StructField("old", rows),
            StructField("type", STRING),
            StructField("isDdl", BOOLEAN),
            StructField("database", STRING),
            StructField("table", STRING),
            StructField("sqlType", MapType(STRING, INT)),
            StructField("pkNames", ArrayType(STRING)),
            StructField("ts", BIGINT),
            StructField("es", BIGINT),
            StructField(CORRUPT, STRING),
        )
    )


def from_text(text: ir.Expr, t: SqlType, column: str, errors: Lowering) -> ir.Expr:
    """A Canal field's JSON text as the column's type: strings as they are, BYTES base64, nested types JSON,
    everything else Spark's cast (a value that does not convert is a record error)."""
    if t.is_string:
        return text
    if t.is_binary:
        return ir.Func("unbase64", (text,))
    if isinstance(t, (StructType, ArrayType, MapType)):
        return ir.Func("from_json", (text, ir.Arg(t.ddl()), ir.Arg({"mode": "FAILFAST"})))
    converted = ir.Method(text, "try_cast", (ir.Arg(t.ddl()),))
    bad = ir.BinOp("&", ir.Method(text, "isNotNull"), ir.IsNull(converted))
    return errors.fail_if(bad, f"column '{column}' does not hold a {t.sql()}", converted)


def canal_changes(source: Source, values: list[Column], errors: Lowering) -> ir.Expr:
    """INSERT/INIT -> +I per `data` row; UPDATE -> -U(old over data), +U(data) per row; DELETE -> -D per row.
    `old[i]` holds only the changed fields: a field it lacks comes from `data[i]`, one it has (null too) from it."""
    kind, data, old = _col("type"), _col("data"), _col("old")

    def image(row: ir.Expr) -> ir.Expr:
        return ir.Struct(tuple((c.name, from_text(_map_get(row, c.name), c.type, c.name, errors)) for c in values))

    def before(pair: ir.Expr) -> ir.Expr:
        after, changed = ir.Get(pair, "data"), ir.Get(pair, "old")

        def field(c: Column) -> ir.Expr:
            text = ir.If(
                ir.Func("map_contains_key", (changed, ir.Lit(c.name))),
                _map_get(changed, c.name),
                _map_get(after, c.name),
            )
            return from_text(text, c.type, c.name, errors)

        return ir.Struct(tuple((c.name, field(c)) for c in values))

    row, pair = ir.Var("row"), ir.Var("pair")
    inserts = ir.Func("transform", (data, ir.Lambda("row", _change(INSERT, image(row)))))
    deletes = ir.Func("transform", (data, ir.Lambda("row", _change(DELETE, image(row)))))
    updates = ir.Func(
        "flatten",
        (
            ir.Func(
                "transform",
                (
                    ir.Func("arrays_zip", (data, old)),
                    ir.Lambda(
                        "pair",
                        ir.Func(
                            "array",
                            (_change(UPDATE_BEFORE, before(pair)), _change(UPDATE_AFTER, image(ir.Get(pair, "data")))),
                        ),
                    ),
                ),
            ),
        ),
    )
    by_type = ir.If(
        _any_of(kind, CANAL_INSERTS),
        inserts,
        ir.If(
            ir.BinOp("==", kind, ir.Lit("UPDATE")),
            errors.fail_if(ir.IsNull(old), 'an UPDATE message has no "old" field', updates),
            deletes,
        ),
    )
    ddl = ir.BinOp("|", ir.Func("coalesce", (_col("isDdl"), ir.Lit(False))), ir.BinOp("==", kind, ir.Lit("CREATE")))
    return ir.If(
        ddl,
        ir.Null(changes_ddl(values)),
        ir.If(
            ir.Not(ir.Func("coalesce", (_any_of(kind, CANAL_TYPES), ir.Lit(False)))),
            errors.record_error(
                f'unknown or missing "type" value (expected {", ".join(CANAL_TYPES)}, or a DDL message)'
            ),
            errors.fail_if(ir.IsNull(data), 'a DML message has no "data" field', by_type),
        ),
    )


# ---------------------------------------------------------------- the table


@dataclass(frozen=True, slots=True)
class ChangelogFormat:
    name: str
    metadata: dict[str, MetaKey]  # without the `value.` prefix
    envelope: Callable[[Source, list[Column]], StructType]
    changes: Callable[[Source, list[Column], Lowering], ir.Expr]


FORMATS = {
    f.name: f
    for f in (
        ChangelogFormat("debezium-json", DEBEZIUM_METADATA, debezium_envelope, debezium_changes),
        ChangelogFormat("canal-json", CANAL_METADATA, canal_envelope, canal_changes),
    )
}


def metadata_keys(fmt: str | None) -> dict[str, MetaKey]:
    """The value format's metadata keys as a Kafka source names them (`value.` prefixed); none for other formats."""
    found = FORMATS.get(fmt or "")
    return {META_PREFIX + k: v for k, v in found.metadata.items()} if found else {}


def foreign_key_hint(key: str, fmt: str | None) -> str | None:
    """For a format metadata key the source's value format lacks: which format has it, and what this one offers."""
    owners = [
        f.name for f in FORMATS.values() if key.removeprefix(META_PREFIX) in f.metadata and key.startswith(META_PREFIX)
    ]
    if not owners:
        return None
    own = metadata_keys(fmt)
    if fmt is None:
        offered = " on a kafka source"
    else:
        offered = f"; value format {fmt} has {', '.join(own)}" if own else f"; value format {fmt} has no metadata keys"
    return f"'{key}' is metadata of value format {' and '.join(owners)}{offered}"


def decode_ops(
    source: Source, values: list[Column], image_column: str
) -> tuple[tuple[str, ir.Expr], tuple[ir.Op, ...]]:
    """(the parsed message column, the ops that explode it into one row per change with its image in `image_column`)."""
    fmt = FORMATS[source.config.format]
    errors = Lowering(f"value format {fmt.name}", None)
    text = ir.Cast(ir.Col("value"), "STRING")
    options = ir.Arg({"mode": "PERMISSIVE", "columnNameOfCorruptRecord": CORRUPT})
    parsed = (ENVELOPE, ir.Func("from_json", (text, ir.Arg(fmt.envelope(source, values).ddl()), options)))
    tombstone = ir.BinOp(
        "|", ir.IsNull(ir.Col("value")), ir.BinOp("==", ir.Func("length", (ir.Col("value"),)), ir.Lit(0))
    )
    undecodable = ir.Method(_col(CORRUPT), "isNotNull")
    changes = ir.If(
        tombstone,
        ir.Null(changes_ddl(values)),
        errors.fail_if(
            undecodable, "the message is not valid JSON of this format's shape", fmt.changes(source, values, errors)
        ),
    )
    ops = (
        ir.SetColumns(((CHANGE, ir.Func("explode_outer", (changes,))),)),
        ir.SetColumns(((image_column, ir.Get(ir.Col(CHANGE), "image")),)),
    )
    return parsed, ops


def op_column() -> ir.Expr:
    """The row's op (null for a skipped message)."""
    return ir.Get(ir.Col(CHANGE), "op")


def skip_unchanged() -> ir.Op:
    """Drop the rows of skipped messages (tombstones, empty and DDL messages): counted as filtered."""
    return ir.Where(ir.Method(ir.Col(OP), "isNotNull"))


# ---------------------------------------------------------------- writing debezium-json


def encode_debezium(row: ir.Expr, row_type: StructType, changelog: bool, json_options: dict) -> ir.Expr:
    """A record as Flink's debezium-json writes it (a null value stays a Kafka tombstone)."""
    empty = ir.Null(row_type.ddl())
    if changelog:
        adds = _any_of(ir.Col(OP), ADDS)
        before, after, op = ir.If(adds, empty, row), ir.If(adds, row, empty), ir.If(adds, ir.Lit("c"), ir.Lit("d"))
    else:
        before, after, op = empty, row, ir.Lit("c")
    message = ir.Struct((("before", before), ("after", after), ("op", op)))
    text = ir.Func("to_json", (message, ir.Arg(json_options)))
    return ir.NullSafe(ir.Col("value"), ir.Cast(text, "BINARY"))
