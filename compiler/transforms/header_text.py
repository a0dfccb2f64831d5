"""A typed column's header value as a Spark expression: the bytes Kafka Connect's SimpleHeaderConverter writes,
`Values.convertToString` as UTF-8 (an int as its decimal text, a string as itself, bytes as base64, a struct, map
or array as Connect's JSON-like text, dates in UTC). connect_values.py gives the same text for a literal."""

from __future__ import annotations

from .. import ir
from ..types.sql import ArrayType, MapType, Primitive, SqlType, StructType

DAY_MS = 86_400_000
TIME_FORMAT = "HH:mm:ss.SSS'Z'"
DATE_FORMAT = "yyyy-MM-dd"
TIMESTAMP_FORMAT = "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"


def _lit(text: str) -> ir.Expr:
    return ir.Lit(text)


def _concat(*parts: ir.Expr) -> ir.Expr:
    return ir.Func("concat", parts)


def _quoted(text: ir.Expr) -> ir.Expr:
    """Values.escape inside double quotes: only backslashes and double quotes are escaped."""
    escaped = ir.Func("replace", (ir.Func("replace", (text, _lit("\\"), _lit("\\\\"))), _lit('"'), _lit('\\"')))
    return _concat(_lit('"'), escaped, _lit('"'))


def _or_null(text: ir.Expr) -> ir.Expr:
    return ir.Func("coalesce", (text, _lit("null")))


def _base64(value: ir.Expr) -> ir.Expr:
    """java.util.Base64 (no line breaks, whatever Spark's chunking setting)."""
    return ir.Func("regexp_replace", (ir.Func("base64", (value,)), ir.Arg("[\r\n]"), ir.Arg("")))


def _date_text(value: ir.Expr, t: Primitive) -> ir.Expr:
    """Values.dateFormatFor by epoch millis: before 1970-01-02 the time of day, at midnight the date."""

    def fmt(pattern: str) -> ir.Expr:
        return ir.Func("date_format", (value, ir.Arg(pattern)))

    if t.name == "DATE":
        text = ir.If(
            ir.BinOp(">", value, ir.Cast(ir.Lit("1970-01-01"), "DATE")), fmt(DATE_FORMAT), _lit("00:00:00.000Z")
        )
    else:
        millis = ir.Func("unix_millis", (value if t.name == "TIMESTAMP_LTZ" else ir.Cast(value, "TIMESTAMP"),))
        midnight = ir.BinOp("==", ir.Func("pmod", (millis, ir.Lit(DAY_MS))), ir.Lit(0))
        text = ir.If(
            ir.BinOp("<", millis, ir.Lit(DAY_MS)),
            fmt(TIME_FORMAT),
            ir.If(midnight, fmt(DATE_FORMAT), fmt(TIMESTAMP_FORMAT)),
        )
    return ir.NullSafe(value, text)


def _decimal_text(value: ir.Expr, t: Primitive) -> ir.Expr:
    """BigDecimal.toString: plain, but scientific when the exponent is below -6 (only possible at scale > 6)."""
    plain = ir.Cast(value, "STRING")
    if t.scale <= 6:
        return plain
    digits = ir.Func(
        "regexp_replace",
        (ir.Func("regexp_replace", (plain, ir.Arg("[-.]"), ir.Arg(""))), ir.Arg("^0+(?=.)"), ir.Arg("")),
    )
    count = ir.Func("length", (digits,))
    exponent = ir.BinOp("-", count, ir.Lit(1 + t.scale))
    scientific = _concat(
        ir.If(ir.BinOp("<", value, ir.Lit(0)), _lit("-"), _lit("")),
        ir.Func("substring", (digits, ir.Arg(1), ir.Arg(1))),
        ir.If(
            ir.BinOp(">", count, ir.Lit(1)),
            _concat(_lit("."), ir.Func("substring", (digits, ir.Arg(2), ir.Arg(64)))),
            _lit(""),
        ),
        _lit("E"),
        ir.Cast(exponent, "STRING"),
    )
    return ir.If(ir.BinOp("<", exponent, ir.Lit(-6)), scientific, plain)


def _struct_text(value: ir.Expr, t: StructType, depth: int) -> ir.Expr:
    parts: list[ir.Expr] = [_lit("{")]
    for i, f in enumerate(t.fields):
        name = f.name.replace("\\", "\\\\").replace('"', '\\"')
        parts += [
            _lit(f'{"," if i else ""}"{name}":'),
            _or_null(connect_text(ir.Get(value, f.name), f.type, True, depth + 1)),
        ]
    return ir.NullSafe(value, _concat(*parts, _lit("}")))


def _joined(items: ir.Expr, var: str, body: ir.Expr, open_: str, close: str) -> ir.Expr:
    listed = ir.Func("array_join", (ir.Func("transform", (items, ir.Lambda(var, body))), ir.Arg(",")))
    return _concat(_lit(open_), listed, _lit(close))


def connect_text(value: ir.Expr, t: SqlType, embedded: bool = False, depth: int = 0) -> ir.Expr:
    """Values.convertToString of a column as a STRING expression, null exactly where `value` is null."""
    if isinstance(t, StructType):
        return _struct_text(value, t, depth)
    if isinstance(t, ArrayType):
        var = f"e{depth}"
        each = connect_text(ir.Var(var), t.element, True, depth + 1)
        if each == ir.Cast(ir.Var(var), "STRING"):  # booleans, integers, floats, short decimals: cast as one array
            listed = ir.Func("array_join", (ir.Cast(value, "ARRAY<STRING>"), ir.Arg(","), ir.Arg("null")))
            return _concat(_lit("["), listed, _lit("]"))  # generated code, where a lambda per element is interpreted
        return _joined(value, var, _or_null(each), "[", "]")
    if isinstance(t, MapType):
        var = f"e{depth}"
        entry = _concat(
            _or_null(connect_text(ir.Get(ir.Var(var), "key"), t.key, True, depth + 1)),
            _lit(":"),
            _or_null(connect_text(ir.Get(ir.Var(var), "value"), t.value, True, depth + 1)),
        )
        return _joined(ir.Func("map_entries", (value,)), var, entry, "{", "}")
    assert isinstance(t, Primitive), t
    if t.is_string:
        return _quoted(value) if embedded else value
    if t.is_binary:
        return _quoted(_base64(value)) if embedded else _base64(value)
    if t.name in ("DATE", "TIMESTAMP", "TIMESTAMP_LTZ"):
        return _date_text(value, t)
    if t.name == "DECIMAL":
        return _decimal_text(value, t)
    return ir.Cast(value, "STRING")  # booleans, integers; floats as Java's Float/Double.toString


def header_bytes(value: ir.Expr, t: SqlType) -> ir.Expr:
    """SimpleHeaderConverter.fromConnectHeader: the UTF-8 bytes of Connect's text, null for null."""
    return ir.Cast(connect_text(value, t), "BINARY")
