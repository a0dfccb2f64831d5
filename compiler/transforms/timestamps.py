"""TimestampConverter (its patterns are translated by `javadates`).

Every conversion pivots through epoch milliseconds (a BIGINT), as Kafka pivots through java.util.Date: sub-
millisecond parts are lost, unix values scale with Java's TimeUnit rules (truncating division, saturating
multiplication), Date truncates to UTC midnight, Time keeps the UTC time of day on 1970-01-01.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .. import ir
from ..shape import Shape
from ..types.sql import BIGINT, DATE, STRING, TIMESTAMP_LTZ_3, Primitive, SqlType
from .base import READS, ConfigKey, ConfigReader, Context, Lowering, Names, TransformSpec
from .field_keys import NULL_DEFAULT_KEY, SYNTAX_KEY, read_path, read_syntax
from .field_paths import FieldPath
from .javadates import PatternError, spark_pattern
from .moves import TRANSFORMATION, Move, Moves
from .structs import get_expr, require_field, require_struct, spark_field_path, struct_with, type_at

# ---------------------------------------------------------------- config

TARGETS = ("string", "unix", "Date", "Time", "Timestamp")
PRECISIONS = ("seconds", "milliseconds", "microseconds", "nanoseconds")
OUTPUT: dict[str, SqlType] = {
    "string": STRING,
    "unix": BIGINT,
    "Date": DATE,
    "Time": TIMESTAMP_LTZ_3,
    "Timestamp": TIMESTAMP_LTZ_3,
}
INPUTS = {"STRING": "string", "BIGINT": "unix", "DATE": "Date", "TIMESTAMP": "Timestamp", "TIMESTAMP_LTZ": "Timestamp"}
MILLIS_PER_DAY = 86_400_000
LONG_MAX, LONG_MIN = 2**63 - 1, -(2**63)
FORMAT_EXAMPLE = "e.g. format: \"yyyy-MM-dd'T'HH:mm:ss.SSSXXX\""


@dataclass(frozen=True, slots=True)
class TimestampConfig:
    path: FieldPath | None  # None: the whole key or value
    target: str
    format: str  # the SimpleDateFormat pattern, or ""
    precision: str


Report = Callable[[str, "str | None", str], None]  # (message, hint, code)


def _check_pattern(report: Report, java: str, parsing: bool, used: bool = True) -> str | None:
    """The Spark pattern, or None after reporting why there is none (`report(message, hint, code)`); an unused
    pattern is only checked as Kafka checks it, by SimpleDateFormat's own rules."""
    try:
        return spark_pattern(java, parsing)
    except PatternError as exc:
        if exc.invalid:
            report(
                f"'format' is not a valid SimpleDateFormat pattern: {exc.message}",
                exc.hint or "use SimpleDateFormat letters: y, M, d, H, m, s, S, E, a, z, Z, X; quote literal text: 'T'",
                "E723",
            )
        elif used:
            report(
                f"cannot {'parse' if parsing else 'format'} with '{java}' exactly: {exc.message}",
                exc.hint or "use SimpleDateFormat letters: y, M, d, H, m, s, S, E, a, z, Z, X; quote literal text: 'T'",
                "E724",
            )
        return None


def parse_timestamp(reader: ConfigReader) -> TimestampConfig:
    reader.boolean("replace.null.with.default", True)
    version = read_syntax(reader)
    field = reader.string("field", "")
    path = read_path(reader, "field", field, version) if field else None
    if not reader.has("target.type"):
        reader.error(None, "'target.type' is required", f"one of {', '.join(TARGETS)}", "E301")
    target = reader.enum("target.type", TARGETS, "Timestamp")
    fmt = reader.string("format", "") or ""
    precision = reader.enum("unix.precision", PRECISIONS, "milliseconds")

    def report(message: str, hint: str | None, code: str) -> None:
        reader.error("format", message, hint, code)

    if target == "string" and not fmt:
        reader.error(None, "'format' is required when target.type is string", FORMAT_EXAMPLE, "E721")
    elif fmt:
        _check_pattern(report, fmt, parsing=False, used=target == "string")
    return TimestampConfig(path if path and path.steps else None, target, fmt, precision)


def infer_timestamp(cfg: TimestampConfig, shape: Shape, ctx: Context) -> Shape:
    side = ctx.side
    t = shape.side(side)
    if cfg.path is None:
        if t is None:
            ctx.error(
                None,
                f"the {side} here is always null, so there is no timestamp to convert",
                "set field, or declare a key at the source",
                "E726",
            )
            return shape
        source = t
    else:
        struct = require_struct(t, ctx, side)
        source = require_field(struct, cfg.path.steps, ctx, "field", side) if struct else None
        if source is None:
            return shape
    kind = INPUTS.get(source.name) if isinstance(source, Primitive) else None
    what = f"field '{cfg.path}'" if cfg.path else f"the {side}"
    key = "field" if cfg.path else None
    if kind is None:
        shown = source.sql() if isinstance(source, Primitive) else source.sql().split("<")[0]
        hint = (
            "cast an epoch number to int64 first (Cast)"
            if source.is_numeric
            else "name a STRING, BIGINT, DATE or TIMESTAMP field (explain shows each step's fields)"
        )
        ctx.error(
            key,
            f"{what} is {shown}, which is not a timestamp type: TimestampConverter reads STRING (with format), "
            "BIGINT (unix.precision), DATE or TIMESTAMP",
            hint,
            "E725",
        )
        return shape
    if kind == "string":
        if not cfg.format:
            ctx.error(None, f"{what} is a STRING, so 'format' is required to parse it", FORMAT_EXAMPLE, "E722")
            return shape
        if _check_pattern(lambda m, h, c: ctx.error("format", m, h, c), cfg.format, parsing=True) is None:
            return shape
    out = OUTPUT[cfg.target]
    if cfg.path is None:
        return shape.with_side(side, out)
    return shape.with_side(side, struct_with(struct, cfg.path.steps, out))


# ---------------------------------------------------------------- lowering


def _long(value: int) -> ir.Expr:
    return ir.Cast(ir.Lit(value), "BIGINT")


def truncating_divide(x: ir.Expr, n: int) -> ir.Expr:
    """Java's `x / n` on longs (toward zero), exactly: through DECIMAL, as Spark's `/` gives a double."""
    return ir.Cast(ir.Func("try_divide", (ir.Cast(x, "DECIMAL(20,0)"), ir.Lit(n))), "BIGINT")


def saturating_multiply(x: ir.Expr, n: int) -> ir.Expr:
    """TimeUnit's `x * n`, clamped to Long.MIN_VALUE/MAX_VALUE on overflow."""
    bound = LONG_MAX // n
    return ir.If(
        ir.BinOp(">", x, _long(bound)),
        _long(LONG_MAX),
        ir.If(ir.BinOp("<", x, _long(-bound)), _long(LONG_MIN), ir.BinOp("*", x, _long(n))),
    )


# Java's TimeUnit conversions between unix.precision and milliseconds, each way.
UNIT_TO_MILLIS = {
    "seconds": lambda x: saturating_multiply(x, 1000),
    "milliseconds": lambda x: x,
    "microseconds": lambda x: truncating_divide(x, 1000),
    "nanoseconds": lambda x: truncating_divide(x, 1_000_000),
}
MILLIS_TO_UNIT = {
    "seconds": lambda ms: truncating_divide(ms, 1000),
    "milliseconds": lambda ms: ms,
    "microseconds": lambda ms: saturating_multiply(ms, 1000),
    "nanoseconds": lambda ms: saturating_multiply(ms, 1_000_000),
}


def to_millis(cfg: TimestampConfig, x: ir.Expr, t: Primitive, low: Lowering, what: str) -> ir.Expr:
    """Epoch milliseconds of the input, as Kafka's java.util.Date pivot holds them."""
    kind = INPUTS[t.name]
    if kind == "string":
        parsed = ir.Func("try_to_timestamp", (x, ir.Lit(spark_pattern(cfg.format, parsing=True))))
        error = low.record_error(f"{what} does not match the pattern ({cfg.format})")
        return ir.Func(
            "unix_millis", (ir.Func("coalesce", (parsed, ir.If(ir.IsNull(x), ir.Null("TIMESTAMP"), error))),)
        )
    if kind == "unix":
        return UNIT_TO_MILLIS[cfg.precision](x)
    if kind == "Date":
        return ir.BinOp("*", ir.Cast(ir.Func("unix_date", (x,)), "BIGINT"), ir.Lit(MILLIS_PER_DAY))
    return ir.Func("unix_millis", (x if t.name == "TIMESTAMP_LTZ" else ir.Cast(x, "TIMESTAMP"),))


def from_millis(cfg: TimestampConfig, ms: ir.Expr) -> ir.Expr:
    """The target type's value of epoch milliseconds."""
    if cfg.target == "unix":
        return MILLIS_TO_UNIT[cfg.precision](ms)
    if cfg.target == "Time":
        ms = ir.Func("pmod", (ms, ir.Lit(MILLIS_PER_DAY)))
    ts = ir.Func("timestamp_millis", (ms,))
    if cfg.target == "Date":
        return ir.Cast(ts, "DATE")
    if cfg.target == "string":
        return ir.Func("date_format", (ts, ir.Arg(spark_pattern(cfg.format))))
    return ts


def _convert(cfg: TimestampConfig, x: ir.Expr, t: Primitive, low: Lowering, what: str) -> ir.Expr:
    if t == DATE and cfg.target == "Date":
        return x  # what the pivot would give back
    return from_millis(cfg, to_millis(cfg, x, t, low, what))


def lower_timestamp(cfg: TimestampConfig, shape: Shape, low: Lowering) -> tuple[ir.Op, ...]:
    side, col = low.side, low.col
    t = shape.side(side)
    if cfg.path is None:
        assert isinstance(t, Primitive)
        return (ir.SetColumns(((side, _convert(cfg, col, t, low, f"the {side}")),)),)
    steps = cfg.path.steps
    ft = type_at(t, steps)
    assert isinstance(ft, Primitive)
    value = _convert(cfg, get_expr(col, steps), ft, low, f"field '{cfg.path}'")
    return (ir.SetColumns(((side, ir.Method(col, "withField", (ir.Arg(spark_field_path(steps)), value))),)),)


def likely_input_type(raw: Mapping[str, str]) -> str:
    """The type the converted field most likely has, from a step's Connect config: a timestamp when it becomes a
    string, a string when a format parses it, else epoch numbers."""
    if raw.get("target.type") == "string":
        return "TIMESTAMP_LTZ(3)"
    return "STRING" if raw.get("format") else "BIGINT"


def timestamp_moves(cfg: TimestampConfig, side: str, before: Shape) -> Moves:
    """The field, or the whole key or value, is its old value converted."""
    steps = cfg.path.steps if cfg.path else ()
    return {(side, steps): Move((side, steps), TRANSFORMATION)}


TIMESTAMP_CONVERTER = TransformSpec(
    name="TimestampConverter",
    purpose="converting timestamp formats",
    doc=(
        "Convert a timestamp field (or the whole key or value) between a formatted string, a unix epoch number "
        "(BIGINT in unix.precision), DATE, Time (a TIMESTAMP_LTZ(3) on 1970-01-01 UTC) and Timestamp "
        "(TIMESTAMP_LTZ(3)). Conversions go through epoch milliseconds as Kafka's do; strings format and parse in "
        "UTC with the SimpleDateFormat pattern in `format`, translated to Spark's patterns at compile time."
    ),
    keys=(
        ConfigKey(
            "field",
            "STRING",
            "",
            "The field to convert; empty converts the whole key/value.",
            names=(Names(READS, likely_type=likely_input_type),),
        ),
        ConfigKey("target.type", "STRING", None, "The type to convert to (case-sensitive).", TARGETS, required=True),
        ConfigKey(
            "format",
            "STRING",
            "",
            "java.text.SimpleDateFormat pattern (UTC); needed when target.type is string or the input is a string, "
            "which must match it fully.",
        ),
        ConfigKey(
            "unix.precision", "STRING", "milliseconds", "Unit of unix epoch numbers read or written.", PRECISIONS
        ),
        SYNTAX_KEY,
        NULL_DEFAULT_KEY,
    ),
    parse=parse_timestamp,
    infer=infer_timestamp,
    lower=lower_timestamp,
    lineage=timestamp_moves,
    describe=lambda cfg, side: (
        f"converts {cfg.path.text if cfg.path else 'the ' + side} to {cfg.target}"
        + (f" as {cfg.format}" if cfg.format and cfg.target == "string" else "")
    ),
    example="- name: day\n  type: TimestampConverter$Value\n  field: created\n  target.type: string\n  format: yyyy-MM-dd",
    differences=(
        "String input is parsed strictly: input the pattern does not fully match (trailing text, 2024-13-45, a "
        "missing leading zero under MM) is a record error, where Java's lenient SimpleDateFormat rolls over or "
        "ignores the rest.",
        "Patterns are translated to Spark's; those Spark cannot reproduce exactly are compile errors with a "
        "suggestion: Y, u, w, W, F, S other than SSS, padded numbers (ddd, HHH), and, for parsing, yy and E.",
        "Dates before 1582-10-15 use the proleptic Gregorian calendar (Java switches to the Julian calendar), and "
        "'yyyy' prints years above 9999 with a '+'.",
        "A field the tracked schema lacks, an input that is not STRING/BIGINT/DATE/TIMESTAMP, and a string input "
        "without format are compile errors (Kafka passes the record through, or fails every record).",
        "Nested fields under field.syntax.version: V2 follow KIP-821's examples (Kafka reads root fields only).",
    ),
)
SPECS = (TIMESTAMP_CONVERTER,)
