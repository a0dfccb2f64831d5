"""A Kafka key or value as the bytes of its payload format (SPEC section 7), and what each format cannot write.

A struct is a record of its fields. A primitive (any non-struct type) is written bare: `json` as the JSON scalar
(or array, or object for a map) the value has inside an object, as Kafka Connect's JsonConverter writes it with
schemas.enable=false; `raw` as the UTF-8 of a STRING or the BYTES as they are; `csv` and `avro` as a one-field
record whose field is named `value`. A null key or value stays null: a null key, or a tombstone.
"""

from __future__ import annotations

from collections.abc import Callable

from .. import ir
from ..types.sql import ArrayType, MapType, SqlType, StructField, StructType
from . import avro
from .json_timestamps import TIMESTAMP_FORMATS, written

PRIMITIVE_FIELD = "value"  # the one field of the record csv and avro write a primitive as
JSON_OPTIONS = {"ignoreNullFields": "false"}  # json writes null fields, as Kafka Connect and Flink do
CSV_OPTIONS = {"escape": '"'}  # RFC 4180, as Flink's csv writes: a quote inside quotes is doubled (Spark's default: \")
_SCALAR = r"^\[(.*)\]$"  # a one-element JSON array, whose element is the scalar


def record_type(t: SqlType) -> StructType:
    """A struct as it is; a primitive as the one-field record `value`."""
    return t if isinstance(t, StructType) else StructType((StructField(PRIMITIVE_FIELD, t),))


def as_record(expr: ir.Expr, t: SqlType) -> ir.Expr:
    """`expr` as a value of `record_type(t)` (null where the primitive is null)."""
    return expr if isinstance(t, StructType) else ir.NullSafe(expr, ir.Struct(((PRIMITIVE_FIELD, expr),)))


def _text(expr: ir.Expr, text: ir.Expr) -> ir.Expr:
    """UTF-8 bytes of `text`, null where `expr` is null."""
    return ir.If(ir.IsNull(expr), ir.Null("BINARY"), ir.Cast(text, "BINARY"))


def _json(expr: ir.Expr, t: SqlType, name: str, schema: int | str | None) -> ir.Expr:
    if isinstance(t, StructType):
        return ir.Cast(ir.Func("to_json", (expr, ir.Arg(JSON_OPTIONS))), "BINARY")
    # to_json takes a struct, array or map only: write a one-element array and keep what is between its brackets
    wrapped = ir.Func("to_json", (ir.Func("array", (expr,)), ir.Arg(JSON_OPTIONS)))
    return _text(expr, ir.Func("regexp_extract", (wrapped, ir.Arg(_SCALAR), ir.Arg(1))))


def _csv(expr: ir.Expr, t: SqlType, name: str, schema: int | str | None) -> ir.Expr:
    """One CSV line without a line break; BYTES fields as base64 (Flink's csv)."""
    rt = record_type(t)
    fields = [(f.name, ir.Get(expr, f.name) if isinstance(t, StructType) else expr) for f in rt.fields]
    fields = [(n, ir.Func("base64", (e,)) if f.type.is_binary else e) for (n, e), f in zip(fields, rt.fields)]
    rebuilt = not isinstance(t, StructType) or any(f.type.is_binary for f in rt.fields)
    text: ir.Expr = ir.Func("to_csv", (ir.Struct(tuple(fields)) if rebuilt else expr, ir.Arg(CSV_OPTIONS)))
    if isinstance(t, StructType) and len(t.fields) == 1:
        # Spark's to_csv gives null for a record whose only field is null (and declares itself never null, so a
        # coalesce after it is dropped): that record is the empty line
        text = ir.If(ir.IsNull(fields[0][1]), ir.Lit(""), text)
    return _text(expr, text)


def _raw(expr: ir.Expr, t: SqlType, name: str, schema: int | str | None) -> ir.Expr:
    if isinstance(t, StructType):  # one STRING or BYTES field (raw_problem), written bare
        expr, t = ir.Get(expr, t.fields[0].name), t.fields[0].type
    return expr if t.is_binary else ir.Cast(expr, "BINARY")


def _avro(fmt: str) -> Callable[[ir.Expr, SqlType, str, int | str | None], ir.Expr]:
    def encode(expr: ir.Expr, t: SqlType, name: str, schema: int | str | None) -> ir.Expr:
        return avro.encode(as_record(expr, t), fmt, record_type(t), name, schema)

    return encode


ENCODERS: dict[str, Callable[[ir.Expr, SqlType, str, int | str | None], ir.Expr]] = {
    "json": _json,
    "csv": _csv,
    "raw": _raw,
    **{fmt: _avro(fmt) for fmt in avro.FORMATS},
}


def encode_payload(
    expr: ir.Expr,
    t: SqlType,
    fmt: str,
    name: str = "record",
    schema: int | str | None = None,
    timestamps: str = TIMESTAMP_FORMATS[0],
) -> ir.Expr:
    """A key or value expression of type `t` as bytes in `fmt` (one of ENCODERS); null stays null. `schema`:
    avro-confluent's schema id, or its Schema Registry entry (avro.encode); `timestamps`: json's timestamp-format."""
    if fmt == "json":
        expr, t = written(expr, t, timestamps)
    return ENCODERS[fmt](expr, t, name, schema)


def _count(node: object, target: ir.Expr) -> int:
    if node == target:
        return 1
    if isinstance(node, tuple):
        return sum(_count(n, target) for n in node)
    names = ir.field_names(node)
    if names is not None:
        return sum(_count(getattr(node, name), target) for name in names)
    return 0


def encode_bound(
    expr: ir.Expr,
    t: SqlType,
    fmt: str,
    column: str,
    name: str = "record",
    schema: int | str | None = None,
    timestamps: str = TIMESTAMP_FORMATS[0],
) -> tuple[tuple[tuple[str, ir.Expr], ...], ir.Expr]:
    """`encode_payload`, reading `expr` from the column `column` when the encoding would repeat it (csv, raw):
    (the column to set first, if any; the encoding)."""
    encoded = encode_payload(expr, t, fmt, name, schema, timestamps)
    if isinstance(expr, ir.Col) or _count(encoded, expr) < 2:
        return (), encoded
    return ((column, expr),), encode_payload(ir.Col(column), t, fmt, name, schema, timestamps)


# ---------------------------------------------------------------- what a format cannot write


def _csv_problem(t: SqlType) -> str | None:
    if isinstance(t, (ArrayType, MapType)):
        return f"csv has no arrays or maps, so it cannot write a {t.sql()}"
    record = record_type(t)
    if not record.fields:
        return "a record with no fields has no CSV line (Spark's to_csv gives null for it: a tombstone)"
    nested = [f"{f.name} {f.type.sql()}" for f in record.fields if isinstance(f.type, (StructType, ArrayType, MapType))]
    return f"csv writes flat records, so it cannot write the nested fields {', '.join(nested)}" if nested else None


def _raw_problem(t: SqlType) -> str | None:
    if isinstance(t, StructType):
        if len(t.fields) == 1 and (t.fields[0].type.is_string or t.fields[0].type.is_binary):
            return None
        fields = ", ".join(f"{f.name} {f.type.sql()}" for f in t.fields) or "none"
        return f"raw writes exactly one STRING or BYTES field, and this record has {len(t.fields)} ({fields})"
    if t.is_string or t.is_binary:
        return None
    return f"raw writes a STRING as UTF-8 or BYTES as they are, not a {t.sql()}"


def _avro_problem(t: SqlType) -> str | None:
    bad = avro.unsupported(t)
    return f"Avro map keys are strings, so it cannot write a {bad[0]}" if bad else None


PROBLEMS: dict[str, Callable[[SqlType], str | None]] = {
    "json": lambda t: None,
    "csv": _csv_problem,
    "raw": _raw_problem,
    **{fmt: _avro_problem for fmt in avro.FORMATS},
}
HINTS = {
    "csv": "use json, or Flatten the record first",
    "raw": "Cast it to string first (its text, as Kafka's StringConverter writes it), or use json",
    **{fmt: "use json, which writes map keys as strings" for fmt in avro.FORMATS},
}


def payload_problem(fmt: str, t: SqlType) -> str | None:
    """Why `fmt` cannot write a key or value of type `t`, or None when it can (or `fmt` is checked elsewhere)."""
    check = PROBLEMS.get(fmt)
    return check(t) if check else None
