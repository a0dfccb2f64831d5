"""Timestamps in a `json` payload (SPEC section 4.1): a timestamp field accepts an ISO-8601 string or epoch
milliseconds, at any depth (struct fields, array elements, map values).

Spark's JSON reader takes a number for a timestamp as epoch seconds (and refuses one for a TIMESTAMP_NTZ). So the
decoder reads every timestamp as STRING (Spark gives a number's own text for a STRING field) and `converted`
turns that text into the declared type: an integer of at most 15 digits, with an optional sign, is epoch
milliseconds (Kafka Connect's JsonConverter writes a Timestamp that way); any other text is parsed as Spark's JSON
reader would have parsed it (`try_to_timestamp` without a format: ISO-8601, with or without an offset). Text that
is neither is a record error of the converter stage, as the undecodable payload it used to be (or null, where
the reader leaves a field it cannot parse null: a `files` source in Spark's default PERMISSIVE mode).
"""

from __future__ import annotations

from .. import ir
from ..transforms.base import Lowering
from ..types.sql import STRING, ArrayType, MapType, Primitive, SqlType, StructField, StructType, quote_name

# Epoch milliseconds: up to 15 digits (about 31,000 years either side of 1970), so the conversion to Spark's
# microseconds cannot overflow.
EPOCH_MILLIS = r"^[+-]?[0-9]{1,15}$"


def has_timestamp(t: SqlType) -> bool:
    """Whether `t` is a timestamp or holds one."""
    if isinstance(t, StructType):
        return any(has_timestamp(f.type) for f in t.fields)
    if isinstance(t, ArrayType):
        return has_timestamp(t.element)
    if isinstance(t, MapType):
        return has_timestamp(t.value)
    return t.is_timestamp


def as_text(t: SqlType) -> SqlType:
    """`t` with every timestamp read as STRING (map keys stay as they are: JSON object keys are text)."""
    if isinstance(t, StructType):
        return StructType(tuple(StructField(f.name, as_text(f.type)) for f in t.fields))
    if isinstance(t, ArrayType):
        return ArrayType(as_text(t.element))
    if isinstance(t, MapType):
        return MapType(t.key, as_text(t.value))
    return STRING if t.is_timestamp else t


def converted(text: ir.Expr, t: SqlType, errors: Lowering | None, path: str, depth: int = 0) -> ir.Expr:
    """`text` (of type `as_text(t)`) as a value of `t`; text that does not convert is a record error naming the
    field `path` (null without `errors`)."""
    if isinstance(t, StructType):
        struct = text
        for f in t.fields:
            if has_timestamp(f.type):
                inner = converted(ir.Get(text, f.name), f.type, errors, f"{path}.{f.name}" if path else f.name, depth)
                struct = ir.Method(struct, "withField", (ir.Arg(quote_name(f.name)), inner))
        return struct
    if isinstance(t, ArrayType):
        element = ir.Var(f"x{depth}" if depth else "x")
        each = converted(element, t.element, errors, f"{path}[]", depth + 1)
        return ir.Func("transform", (text, ir.Lambda(element.name, each)))
    if isinstance(t, MapType):
        value = ir.Var(f"v{depth}" if depth else "v")
        each = converted(value, t.value, errors, f"{path}{{}}", depth + 1)
        values = ir.Func("transform", (ir.Func("map_values", (text,)), ir.Lambda(value.name, each)))
        return ir.Func("map_from_arrays", (ir.Func("map_keys", (text,)), values))
    assert isinstance(t, Primitive) and t.is_timestamp
    return _timestamp(text, t, errors, path)


def _timestamp(text: ir.Expr, t: Primitive, errors: Lowering | None, path: str) -> ir.Expr:
    """Epoch milliseconds, else ISO-8601, else a record error (null stays null)."""
    digits = ir.Method(text, "rlike", (ir.Arg(EPOCH_MILLIS),))
    millis = ir.Func("timestamp_millis", (ir.Func("when", (digits, ir.Cast(text, "BIGINT"))),))
    parsed: tuple[ir.Expr, ...] = (millis, ir.Func("try_to_timestamp", (text,)))
    if t.ddl() != "TIMESTAMP":  # TIMESTAMP_NTZ: the instant's wall-clock time in UTC (the job's session time zone)
        parsed = (ir.Cast(ir.Func("coalesce", parsed), t.ddl()),)
    if errors is None:
        return ir.Func("coalesce", parsed) if len(parsed) > 1 else parsed[0]
    bad = errors.record_error(f"field '{path}' is neither epoch milliseconds nor an ISO-8601 timestamp")
    return ir.Func("coalesce", (*parsed, ir.If(ir.Method(text, "isNotNull"), bad, ir.Null(t.ddl()))))


# ---------------------------------------------------------------- writing: a json sink's `timestamp-format`

# How a `json` (or `debezium-json`) key or value writes a timestamp (Flink's json.timestamp-format.standard, plus
# Kafka Connect's epoch milliseconds); the first is the default.
TIMESTAMP_FORMATS = ("iso-8601", "epoch-millis", "sql")
# Flink's SQL standard: "2026-11-28 10:15:00.123" (TIMESTAMP), with a trailing Z for TIMESTAMP_LTZ; the fraction has
# as many digits as it needs (none for a whole second), as Flink's formatter writes it
_SQL_PATTERN = "yyyy-MM-dd HH:mm:ss.SSSSSS"
_TRAILING_ZEROS = r"\.?0+$"


def _written_type(t: SqlType, fmt: str) -> SqlType:
    if isinstance(t, StructType):
        return StructType(tuple(StructField(f.name, _written_type(f.type, fmt)) for f in t.fields))
    if isinstance(t, ArrayType):
        return ArrayType(_written_type(t.element, fmt))
    if isinstance(t, MapType):
        return MapType(t.key, _written_type(t.value, fmt))
    return (Primitive("BIGINT") if fmt == "epoch-millis" else STRING) if t.is_timestamp else t


def _write_timestamp(ts: ir.Expr, t: Primitive, fmt: str) -> ir.Expr:
    if fmt == "epoch-millis":  # a TIMESTAMP (no time zone) is read as UTC, the job's session time zone
        return ir.Func("unix_millis", (ts if t.ddl() == "TIMESTAMP" else ir.Cast(ts, "TIMESTAMP"),))
    text = ir.Func(
        "regexp_replace", (ir.Func("date_format", (ts, ir.Arg(_SQL_PATTERN))), ir.Arg(_TRAILING_ZEROS), ir.Arg(""))
    )
    return ir.Func("concat", (text, ir.Lit("Z"))) if t.ddl() == "TIMESTAMP" else text


def written(expr: ir.Expr, t: SqlType | None, fmt: str, depth: int = 0) -> tuple[ir.Expr, SqlType | None]:
    """`expr` (of type `t`) with every timestamp, at any depth, as `fmt` writes it (epoch-millis: a BIGINT; sql: its
    text), and the type that gives; iso-8601 (Spark's to_json: "2026-11-28T10:15:00.000Z") leaves it as it is."""
    if fmt == TIMESTAMP_FORMATS[0] or t is None or not has_timestamp(t):
        return expr, t
    if isinstance(t, StructType):
        struct = expr
        for f in t.fields:
            if has_timestamp(f.type):
                inner, _ = written(ir.Get(expr, f.name), f.type, fmt, depth)
                struct = ir.Method(struct, "withField", (ir.Arg(quote_name(f.name)), inner))
        return struct, _written_type(t, fmt)
    if isinstance(t, ArrayType):
        element = ir.Var(f"x{depth}" if depth else "x")
        each, _ = written(element, t.element, fmt, depth + 1)
        return ir.Func("transform", (expr, ir.Lambda(element.name, each))), _written_type(t, fmt)
    if isinstance(t, MapType):
        value = ir.Var(f"v{depth}" if depth else "v")
        each, _ = written(value, t.value, fmt, depth + 1)
        values = ir.Func("transform", (ir.Func("map_values", (expr,)), ir.Lambda(value.name, each)))
        return ir.Func("map_from_arrays", (ir.Func("map_keys", (expr,)), values)), _written_type(t, fmt)
    assert isinstance(t, Primitive)
    return _write_timestamp(expr, t, fmt), _written_type(t, fmt)
