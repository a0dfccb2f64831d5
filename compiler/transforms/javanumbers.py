"""Java's conversions between primitives, as native Spark expressions: what Kafka's Cast does to a value.

Narrowing keeps the low bits (`(byte) 300` is 44), d2i/d2l saturate and read NaN as 0, `BigDecimal.longValue`
wraps, dates and timestamps are days and epoch milliseconds, BYTES decode as big- or little-endian numbers, and
numbers, decimals, dates and timestamps print as Kafka Connect prints them.
"""

from __future__ import annotations

from collections.abc import Callable

from .. import ir
from ..types.sql import Primitive

BYTES_TARGETS = {"int32": 4, "int64": 8, "float64": 8}  # decoded widths; and "string"
INT_BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}
LONG_MAX, LONG_MIN, INT_MAX, INT_MIN = 2**63 - 1, -(2**63), 2**31 - 1, -(2**31)
MILLIS_PER_DAY = 86_400_000


# ---------------------------------------------------------------- conversions


def _lit(value: object, ddl: str) -> ir.Expr:
    """A typed literal (big integers and decimals go through their text)."""
    return ir.Cast(ir.Lit(str(value) if ddl.startswith("DECIMAL") else value), ddl)


def _when(*branches: tuple[ir.Expr, ir.Expr], otherwise: ir.Expr) -> ir.Expr:
    out = otherwise
    for cond, value in reversed(branches):
        out = ir.If(cond, value, out)
    return out


def wrap(x: ir.Expr, bits: int, ddl: str) -> ir.Expr:
    """Java's narrowing of a long to its low `bits` bits (two's complement), e.g. (byte) 300 == 44."""
    shift = ir.Arg(64 - bits)
    shifted = ir.Func("shiftright", (ir.Func("shiftleft", (ir.Cast(x, "BIGINT"), shift)), shift))
    return ir.Cast(shifted, ddl)


def _saturate(d: ir.Expr, lo: int, hi: int, ddl: str) -> ir.Expr:
    """Java's d2i/d2l: NaN is 0, out-of-range values clamp, the rest truncate toward zero."""
    return _when(
        (ir.Func("isnan", (d,)), _lit(0, ddl)),
        (ir.BinOp(">=", d, ir.Lit(float(hi))), _lit(hi, ddl)),
        (ir.BinOp("<=", d, ir.Lit(float(lo))), _lit(lo, ddl)),
        otherwise=ir.Cast(d, ddl),
    )


def _decimal_long(x: ir.Expr, t: Primitive) -> ir.Expr:
    """BigDecimal.longValue(): the integer part, wrapped to its low 64 bits."""
    if t.precision - t.scale <= 18:
        return ir.Cast(x, "BIGINT")  # Spark truncates toward zero and the integer part fits
    whole = ir.If(ir.BinOp("<", x, ir.Lit(0)), ir.Func("ceil", (x,)), ir.Func("floor", (x,)))
    low = ir.Func("pmod", (whole, _lit(2**64, "DECIMAL(20,0)")))
    signed = ir.If(
        ir.BinOp(">", low, _lit(LONG_MAX, "DECIMAL(20,0)")), ir.BinOp("-", low, _lit(2**64, "DECIMAL(20,0)")), low
    )
    return ir.Cast(signed, "BIGINT")


def _millis(x: ir.Expr, t: Primitive) -> ir.Expr:
    return ir.Func("unix_millis", (x if t.name == "TIMESTAMP_LTZ" else ir.Cast(x, "TIMESTAMP"),))


# Java's Number.longValue() / intValue() of what Kafka's Cast sees (logical types encoded as days or millis).
AS_LONG: dict[str, Callable[[ir.Expr, Primitive], ir.Expr]] = {
    "int": lambda x, t: ir.Cast(x, "BIGINT"),
    "float": lambda x, t: _saturate(x, LONG_MIN, LONG_MAX, "BIGINT"),
    "decimal": _decimal_long,
    "boolean": lambda x, t: ir.Cast(x, "BIGINT"),
    "date": lambda x, t: ir.Cast(ir.Func("unix_date", (x,)), "BIGINT"),
    "timestamp": _millis,
}
AS_INT: dict[str, Callable[[ir.Expr, Primitive], ir.Expr]] = {
    "int": lambda x, t: wrap(x, 32, "INT") if t.name == "BIGINT" else ir.Cast(x, "INT"),
    "float": lambda x, t: _saturate(x, INT_MIN, INT_MAX, "INT"),
    "decimal": lambda x, t: wrap(_decimal_long(x, t), 32, "INT"),
    "boolean": lambda x, t: ir.Cast(x, "INT"),
    "date": lambda x, t: ir.Func("unix_date", (x,)),
    "timestamp": lambda x, t: wrap(_millis(x, t), 32, "INT"),
}


# ---------------------------------------------------------------- bytes (spark-facts 2(c))


def _f64_from_bits(bits: ir.Expr) -> ir.Expr:
    """IEEE 754 binary64 from its 64 bits as a signed BIGINT, exactly (subnormals, signed zero, infinities, NaN)."""
    exponent = ir.Func("pmod", (ir.Func("shiftright", (bits, ir.Arg(52))), ir.Lit(2048)))
    mantissa = ir.Func("pmod", (bits, _lit(2**52, "BIGINT")))
    implicit = ir.If(ir.BinOp("==", exponent, ir.Lit(0)), ir.Lit(0.0), ir.Lit(float(2**52)))
    scale = ir.Func("pow", (ir.Lit(2.0), ir.BinOp("-", ir.Func("greatest", (exponent, ir.Lit(1))), ir.Lit(1075))))
    magnitude = ir.BinOp("*", ir.BinOp("+", ir.Cast(mantissa, "DOUBLE"), implicit), scale)
    special = ir.If(ir.BinOp("==", mantissa, ir.Lit(0)), ir.Lit(float("inf")), ir.Lit(float("nan")))
    unsigned = ir.If(ir.BinOp("==", exponent, ir.Lit(2047)), special, magnitude)
    return ir.If(ir.BinOp("<", bits, ir.Lit(0)), ir.BinOp("*", ir.Lit(-1.0), unsigned), unsigned)


def _byte(n: ir.Expr, k: int) -> ir.Expr:
    """Byte `k` (0 = least significant) of `n`, as 0..255."""
    return ir.Func("pmod", (ir.Func("shiftright", (n, ir.Arg(8 * k))), ir.Lit(256)))


def _swap_bytes(n: ir.Expr, width: int) -> ir.Expr:
    """`n` with the order of its low `width` bytes reversed, by shifts (Spark 4.3's reverse() of BINARY corrupts
    memory, and arithmetic is cheaper than string work); the terms use distinct bits, so the sum cannot overflow."""
    terms = [ir.Func("shiftleft", (_byte(n, k), ir.Arg(8 * (width - 1 - k)))) for k in range(width)]
    out = terms[0]
    for term in terms[1:]:
        out = ir.BinOp("+", out, term)
    return out


def decode_bytes(b: ir.Expr, target: str, little_endian: bool) -> ir.Expr:
    """int32, int64 or float64 from bytes of the right length (spark-facts 2(c): hex, conv, shifts)."""
    width = BYTES_TARGETS[target]
    digits = ir.Func("hex", (b,))
    base = ir.Arg(10 if width == 4 else -10)  # a negative base gives the signed (two's complement) value
    number = ir.Cast(ir.Func("conv", (digits, ir.Arg(16), base)), "BIGINT")
    return FROM_BITS[target](_swap_bytes(number, width) if little_endian else number)


FROM_BITS: dict[str, Callable[[ir.Expr], ir.Expr]] = {
    "int32": lambda n: wrap(n, 32, "INT"),
    "int64": lambda n: n,
    "float64": _f64_from_bits,
}


# ---------------------------------------------------------------- to string


def _decimal_string(x: ir.Expr, t: Primitive) -> ir.Expr:
    """BigDecimal.toString(): plain, but scientific when the value is below 1e-6 (only possible at scale > 6)."""
    plain = ir.Cast(x, "STRING")
    if t.scale <= 6:
        return plain
    # no abs(): Spark rounds decimals to 34 digits there, which overflows near the type's negative maximum
    digits = ir.Func("regexp_replace", (plain, ir.Arg(r"^-?0\.0*"), ir.Arg("")))
    count = ir.Func("length", (digits,))
    tail = ir.Func("concat", (ir.Lit("."), ir.Func("substring", (digits, ir.Arg(2), ir.Arg(64)))))
    rest = ir.If(ir.BinOp(">", count, ir.Lit(1)), tail, ir.Lit(""))
    exponent = ir.Cast(ir.BinOp("-", count, ir.Lit(1 + t.scale)), "STRING")
    sign = ir.If(ir.BinOp("<", x, ir.Lit(0)), ir.Lit("-"), ir.Lit(""))
    scientific = ir.Func(
        "concat", (sign, ir.Func("substring", (digits, ir.Arg(1), ir.Arg(1))), rest, ir.Lit("E"), exponent)
    )
    bound = _lit("0.000001", "DECIMAL(7,6)")
    tiny = ir.BinOp("&", ir.BinOp("<", x, bound), ir.BinOp(">", x, _lit("-0.000001", "DECIMAL(7,6)")))
    return ir.If(tiny, ir.If(ir.BinOp("==", count, ir.Lit(0)), ir.Lit(f"0E-{t.scale}"), scientific), plain)


def _timestamp_string(x: ir.Expr, t: Primitive) -> ir.Expr:
    """Connect's Values.dateFormatFor in UTC: before 1970-01-02 a time of day, at midnight a date, else ISO."""
    ts = x if t.name == "TIMESTAMP_LTZ" else ir.Cast(x, "TIMESTAMP")
    millis = _millis(x, t)
    return _when(
        (ir.BinOp("<", millis, ir.Lit(MILLIS_PER_DAY)), ir.Func("date_format", (ts, ir.Arg("HH:mm:ss.SSS'Z'")))),
        (
            ir.BinOp("==", ir.Func("pmod", (millis, ir.Lit(MILLIS_PER_DAY))), ir.Lit(0)),
            ir.Func("date_format", (ts, ir.Arg("yyyy-MM-dd"))),
        ),
        otherwise=ir.Func("date_format", (ts, ir.Arg("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"))),
    )


def _date_string(x: ir.Expr, t: Primitive) -> ir.Expr:
    """Values.dateFormatFor of a Date: midnight of a day before 1970-01-02 prints as the time 00:00:00.000Z."""
    early = ir.BinOp("<", ir.Func("unix_date", (x,)), ir.Lit(1))
    return ir.If(early, ir.Lit("00:00:00.000Z"), ir.Func("date_format", (x, ir.Arg("yyyy-MM-dd"))))


TO_STRING: dict[str, Callable[[ir.Expr, Primitive], ir.Expr]] = {
    "int": lambda x, t: ir.Cast(x, "STRING"),
    "float": lambda x, t: ir.Cast(x, "STRING"),  # Spark prints doubles and floats with Java's toString
    "boolean": lambda x, t: ir.Cast(x, "STRING"),
    "decimal": _decimal_string,
    "date": _date_string,
    "timestamp": _timestamp_string,
}
