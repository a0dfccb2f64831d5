"""Cast: cast fields, or the whole key or value, to a Connect primitive type with Java's conversion rules.

Kafka casts through Java: numeric narrowing wraps (`(byte) 300` is 44), doubles saturate and NaN is 0, strings
parse with `Integer.parseInt`/`Double.parseDouble`, booleans parse with `Boolean.parseBoolean`. Spark's ANSI
casts differ (overflow errors, trimmed strings, "inf"), so each conversion here is spelled out natively. pipec
adds BYTES -> int32/int64/float64 (`bytes.order`) and BYTES -> UTF-8 text (`bytes.string.encoding: utf8`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..shape import Shape
from ..types.connect import CONNECT_TYPES
from ..types.sql import ArrayType, MapType, Primitive, SqlType, StructType
from .base import READS, ConfigKey, ConfigReader, Context, Lowering, Names, TransformSpec, names
from .field_keys import NULL_DEFAULT_KEY, SYNTAX_KEY, read_path, read_syntax
from .field_paths import FieldPath
from .javanumbers import AS_INT, AS_LONG, BYTES_TARGETS, INT_BITS, TO_STRING, decode_bytes, wrap
from .moves import TRANSFORMATION, Move, Moves
from .structs import get_expr, require_field, require_struct, spark_field_path, struct_with, type_at

TARGETS = ("int8", "int16", "int32", "int64", "float32", "float64", "boolean", "string")
SCHEMA_TYPES = set(TARGETS) | {"bytes", "array", "map", "struct"}  # Kafka's Schema.Type names
ORDERS = ("BIG_ENDIAN", "LITTLE_ENDIAN")
ENCODINGS = ("base64", "utf8")

# Input kinds by type name: what Java value Kafka's Cast would see.
KINDS = {
    "TINYINT": "int",
    "SMALLINT": "int",
    "INT": "int",
    "BIGINT": "int",
    "FLOAT": "float",
    "DOUBLE": "float",
    "DECIMAL": "decimal",
    "BOOLEAN": "boolean",
    "STRING": "string",
    "BYTES": "bytes",
    "DATE": "date",
    "TIMESTAMP": "timestamp",
    "TIMESTAMP_LTZ": "timestamp",
}
# Java's grammars: Integer.parseInt (no whitespace) and Double.parseDouble (trims chars <= U+0020).
JAVA_INTEGER = r"\A[+-]?[0-9]+\z"
JAVA_FLOAT = (
    r"\A[\x00-\x20]*[+-]?(NaN|Infinity|(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?"
    r"|0[xX]([0-9a-fA-F]+\.?|[0-9a-fA-F]*\.[0-9a-fA-F]+)[pP][+-]?[0-9]+)[fFdD]?)[\x00-\x20]*\z"
)


@dataclass(frozen=True, slots=True)
class FieldCast:
    index: int  # the spec item, for error locations
    path: FieldPath
    target: str


@dataclass(frozen=True, slots=True)
class CastConfig:
    whole: str | None  # the target of a whole-value cast
    fields: tuple[FieldCast, ...]
    little_endian: bool
    utf8: bool


class _ItemReader(ConfigReader):
    """A reader whose keys are the indexes of `spec` items: errors point at the item (at `spec` for a string)."""

    def loc(self, key: object = None):
        return self.smap.at(self.path + (() if key is None else (key,)))


def _item_reader(reader: ConfigReader) -> ConfigReader:
    return _ItemReader(reader.owner, reader.raw, reader.smap, reader.path + ("spec",), reader.diags)


def _item_ctx(ctx: Context) -> Context:
    return Context(ctx.owner, ctx.side, _item_reader(ctx.reader), ctx.diags)


def _parse_item(at: ConfigReader, i: int, item: str, version: str) -> tuple[FieldPath | None, str] | None:
    """(path or None for the whole value, target type) of one spec item, as Kafka's parseFieldTypes reads it."""
    parts = item.split(":")
    if len(parts) > 2:
        at.error(
            i, f"invalid cast mapping '{item}'", "write field:type, or a single type to cast the whole value", "E700"
        )
        return None
    written = parts[-1].strip()
    target = written.lower()  # Kafka: Schema.Type.valueOf(upper case)
    if target not in SCHEMA_TYPES:
        at.error(i, f"invalid type '{written}' in spec", f"supported types: {', '.join(TARGETS)}", "E701")
        return None
    if target not in TARGETS:
        at.error(
            i, f"Cast does not support casting to {target.upper()}", f"supported types: {', '.join(TARGETS)}", "E702"
        )
        return None
    if len(parts) == 1:
        return None, target
    path = read_path(at, i, parts[0].strip(), version)
    if path is not None and not path.steps:
        at.error(i, f"cast mapping '{item}' names no field", "write field:type", "E700")
        return None
    return (path, target) if path is not None else None


def parse_cast(reader: ConfigReader) -> CastConfig:
    reader.boolean("replace.null.with.default", True)
    version = read_syntax(reader)
    items = reader.items("spec")
    if not items:
        reader.error(
            "spec" if reader.has("spec") else None,
            "'spec' is required and must be non-empty",
            "e.g. spec: [price:float64] or spec: int64",
            "E301",
        )
    at = _item_reader(reader)
    whole, fields, seen = None, [], set()
    for i, item in enumerate(items):
        parsed = _parse_item(at, i, item, version)
        if parsed is None:
            continue
        path, target = parsed
        if path is None:
            whole = target
        elif path.steps in seen:
            at.error(i, f"field '{path}' is cast twice", "keep one cast per field", "E705")
        else:
            seen.add(path.steps)
            fields.append(FieldCast(i, path, target))
    if whole is not None and len(items) > 1:
        reader.error(
            "spec",
            "a whole-value cast must be the only item of spec",
            "cast the whole value in its own Cast step, or name fields as field:type",
            "E703",
        )
    order = reader.enum("bytes.order", ORDERS, "BIG_ENDIAN", ignore_case=True)
    encoding = reader.enum("bytes.string.encoding", ENCODINGS, "base64")
    return CastConfig(whole, tuple(fields), order == "LITTLE_ENDIAN", encoding == "utf8")


# ---------------------------------------------------------------- schema


def _kind(t: SqlType) -> str | None:
    return KINDS.get(t.name) if isinstance(t, Primitive) else None


def _type_word(t: SqlType) -> str:
    return {StructType: "STRUCT", ArrayType: "ARRAY", MapType: "MAP"}.get(type(t)) or t.sql()


def check_cast(t: SqlType, target: str, ctx: Context, key: object, what: str) -> bool:
    """Whether Kafka's Cast (plus pipec's BYTES decoding) casts `t` to `target`; an error where it does not."""
    kind = _kind(t)
    if kind is None:
        ctx.error(
            key,
            f"Cast does not support casting from {_type_word(t)} ({what})",
            "cast primitive fields: name the fields inside it (field.syntax.version: V2 for nested paths)",
            "E706",
        )
        return False
    if kind == "bytes" and target not in BYTES_TARGETS and target != "string":
        ctx.error(
            key,
            f"cannot cast BYTES ({what}) to {target}",
            "BYTES casts to int32, int64 or float64 (decoded with bytes.order) or to string (base64 or utf8)",
            "E707",
        )
        return False
    return True


def infer_cast(cfg: CastConfig, shape: Shape, ctx: Context) -> Shape:
    side = ctx.side
    t = shape.side(side)
    if cfg.whole is not None:
        if t is None:
            ctx.error(
                "spec",
                f"the {side} here is always null, so there is nothing to cast",
                "declare a key format and fields at the source",
                "E709",
            )
            return shape
        if check_cast(t, cfg.whole, ctx, "spec", f"the whole {side}"):
            return shape.with_side(side, CONNECT_TYPES[cfg.whole])
        return shape
    out = require_struct(t, ctx, side)
    if out is None:
        return shape
    at = _item_ctx(ctx)
    for c in cfg.fields:
        ft = require_field(out, c.path.steps, at, c.index, side)
        if ft is not None and check_cast(ft, c.target, at, c.index, f"field '{c.path}'"):
            out = struct_with(out, c.path.steps, CONNECT_TYPES[c.target])
    return shape.with_side(side, out)


class Converter:
    """Builds the native expression for one cast, failing records the way Kafka's DataException does."""

    def __init__(self, cfg: CastConfig, low: Lowering, what: str):
        self.cfg, self.low, self.what = cfg, low, what

    def fail(self, x: ir.Expr, value: ir.Expr, ddl: str, reason: str) -> ir.Expr:
        """`value`, but a record error where it is null while `x` is not (one evaluation of `value`)."""
        error = ir.If(ir.IsNull(x), ir.Null(ddl), self.low.record_error(f"{self.what}: {reason}"))
        return ir.Func("coalesce", (value, error))

    def convert(self, x: ir.Expr, t: Primitive, target: str) -> ir.Expr:
        if CONNECT_TYPES[target] == t:
            return x
        kind = KINDS[t.name]
        if kind == "bytes":
            return self.from_bytes(x, target)
        if kind == "string":
            return self.from_string(x, target)
        return self.from_number(x, t, kind, target)

    def from_number(self, x: ir.Expr, t: Primitive, kind: str, target: str) -> ir.Expr:
        ddl = CONNECT_TYPES[target].ddl()
        if target in ("int8", "int16"):
            return wrap(AS_INT[kind](x, t), INT_BITS[target], ddl)
        if target == "int32":
            return AS_INT[kind](x, t)
        if target == "int64":
            return AS_LONG[kind](x, t)
        if target in ("float32", "float64"):
            return ir.Cast(x if kind in ("int", "float", "decimal", "boolean") else AS_LONG[kind](x, t), ddl)
        if target == "boolean":
            return ir.BinOp("!=", AS_LONG[kind](x, t), ir.Lit(0))
        return TO_STRING[kind](x, t)

    def from_string(self, x: ir.Expr, target: str) -> ir.Expr:
        ddl = CONNECT_TYPES[target].ddl()
        if target == "boolean":  # Boolean.parseBoolean: "true" in any case, anything else false
            return ir.BinOp("==", ir.Func("lower", (x,)), ir.Lit("true"))
        integral = target in INT_BITS
        cast = ir.Method(x, "try_cast", (ir.Arg(ddl),))
        if integral:
            parsed = ir.If(ir.Method(x, "rlike", (ir.Arg(JAVA_INTEGER),)), cast, ir.Null(ddl))
        else:  # Spark parses with Java's parseDouble/parseFloat, then also reads "inf", "infinity" and "nan" in any
            # case (trimmed, signed): each of those holds an n or N, so only a string with one needs Java's grammar
            # checked. The test reads the string, not the number: each row parses the number once (in one branch)
            maybe_special = ir.BinOp(
                "|", ir.Method(x, "contains", (ir.Arg("n"),)), ir.Method(x, "contains", (ir.Arg("N"),))
            )
            parsed = ir.If(maybe_special, ir.If(ir.Method(x, "rlike", (ir.Arg(JAVA_FLOAT),)), cast, ir.Null(ddl)), cast)
        why = "not a decimal integer in range" if integral else "not a Java floating-point number"
        return self.fail(x, parsed, ddl, f"cannot cast the string to {target} ({why})")

    def from_bytes(self, b: ir.Expr, target: str) -> ir.Expr:
        if target == "string":
            if not self.cfg.utf8:  # java.util.Base64: no line breaks (Spark's base64 breaks lines at 76)
                return ir.Func("regexp_replace", (ir.Func("base64", (b,)), ir.Arg("\r\n"), ir.Arg("")))
            invalid = ir.Not(ir.Func("is_valid_utf8", (b,)))
            return self.low.fail_if(invalid, f"{self.what}: the bytes are not valid UTF-8", ir.Cast(b, "STRING"))
        width = BYTES_TARGETS[target]
        # The length check wraps the input, not the result: the decoding then sits in no conditional branch, so
        # Spark's common subexpression elimination decodes the bytes once per row.
        wrong = ir.BinOp("!=", ir.Func("length", (b,)), ir.Lit(width))
        checked = self.low.fail_if(wrong, f"{self.what}: {target} needs exactly {width} bytes", b)
        return decode_bytes(checked, target, self.cfg.little_endian)


def lower_cast(cfg: CastConfig, shape: Shape, low: Lowering) -> tuple[ir.Op, ...]:
    side, col = low.side, low.col
    t = shape.side(side)
    if cfg.whole is not None:
        assert isinstance(t, Primitive)
        return (ir.SetColumns(((side, Converter(cfg, low, f"the {side}").convert(col, t, cfg.whole)),)),)
    result: ir.Expr = col
    for c in cfg.fields:
        ft = type_at(t, c.path.steps)
        assert isinstance(ft, Primitive)
        value = Converter(cfg, low, f"field '{c.path}'").convert(get_expr(col, c.path.steps), ft, c.target)
        result = ir.Method(result, "withField", (ir.Arg(spark_field_path(c.path.steps)), value))
    return (ir.SetColumns(((side, result),)),)


def cast_moves(cfg: CastConfig, side: str, before: Shape) -> Moves:
    """Each cast field, or the whole key or value, is its old value converted."""
    moves = {(side, c.path.steps): Move((side, c.path.steps), TRANSFORMATION) for c in cfg.fields}
    if cfg.whole:
        moves[(side, ())] = Move((side, ()), TRANSFORMATION)
    return moves


CAST = TransformSpec(
    name="Cast",
    purpose="cast types",
    doc=(
        "Cast fields (`field:type` items) or the whole key or value (one bare type) to int8, int16, int32, int64, "
        "float32, float64, boolean or string, with Kafka's Java conversions: integer narrowing wraps, doubles "
        "truncate and saturate (NaN is 0), numbers are true when their long value is non-zero, strings parse as "
        "Java parses them (a string that does not parse is a record error), BYTES become base64, dates and "
        "timestamps become days or epoch milliseconds (as numbers) or Connect's ISO text in UTC. pipec also "
        "decodes BYTES into int32, int64 and float64 (`bytes.order`) and reads BYTES as UTF-8 text."
    ),
    keys=(
        ConfigKey(
            "spec",
            "LIST",
            None,
            "`field:type` items, or one bare type to cast the whole key or value. Types (any case): int8, int16, int32, "
            "int64, float32, float64, boolean, string; BYTES fields also cast to int32, int64 and float64 (decoded "
            "with bytes.order).",
            required=True,
            nonempty=True,
            names=(Names(READS, part=0),),
        ),
        ConfigKey(
            "bytes.order",
            "STRING",
            "BIG_ENDIAN",
            "pipec extension: the byte order of BYTES decoded into int32, int64 or float64 (ksqlDB's INT_FROM_BYTES, "
            "BIGINT_FROM_BYTES, DOUBLE_FROM_BYTES); a value of the wrong length is a record error.",
            ORDERS,
            ignore_case=True,
        ),
        ConfigKey(
            "bytes.string.encoding",
            "STRING",
            "base64",
            "pipec extension: how BYTES cast to string: base64 (as Kafka does) or utf8 (the UTF-8 text; invalid UTF-8 "
            "is a record error).",
            ENCODINGS,
        ),
        SYNTAX_KEY,
        NULL_DEFAULT_KEY,
    ),
    parse=parse_cast,
    infer=infer_cast,
    lower=lower_cast,
    lineage=cast_moves,
    describe=lambda cfg, side: (
        f"casts the {side} to {cfg.whole}"
        if cfg.whole
        else "casts " + names(f"{c.path.text} to {c.target}" for c in cfg.fields)
    ),
    example='- name: typed\n  type: Cast$Value\n  field.syntax.version: V2\n  spec: ["amount:float64", "parent.child.k2:int64"]',
    differences=(
        "Nested fields under field.syntax.version: V2 follow KIP-821's examples (Kafka's Cast reads root fields only).",
        "A spec field the tracked schema lacks, a cast from STRUCT/ARRAY/MAP, a BYTES cast to int8, int16, float32 "
        "or boolean, and a field cast twice are compile errors (Kafka ignores missing fields, fails every such "
        "record, and keeps the last cast).",
        "BYTES cast to int32, int64 or float64 decodes them (bytes.order); a wrong length is a record error. Kafka "
        "fails every such record. BYTES to string with bytes.string.encoding: utf8 gives the text (invalid UTF-8 is a "
        "record error).",
        "Integer strings must use ASCII digits: Java also accepts other Unicode digits; here they are a record error.",
        "Dates and timestamps cast to string are formatted in UTC (Kafka uses the JVM's time zone but prints 'Z'), "
        "with the proleptic Gregorian calendar (Java switches to the Julian calendar before 1582-10-15); years "
        "above 9999 print with a leading '+'.",
        "A whole TIMESTAMP or DATE key/value cast to string gives its text. Kafka keeps the Timestamp/Date schema "
        "name on the string, so its JSON converter then fails every record: an accident of Kafka's, not a feature.",
    ),
)
SPECS = (CAST,)
