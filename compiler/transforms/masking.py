"""MaskField: replace field values by their type's empty value, or by a replacement converted to the field's type."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .. import ir
from ..shape import Shape
from ..types.sql import ArrayType, MapType, Primitive, SqlType, StructType
from .base import READ_FIELDS, ConfigKey, ConfigReader, Context, Lowering, TransformSpec, names
from .field_keys import NULL_DEFAULT_KEY, SYNTAX_KEY, read_syntax
from .field_paths import FieldPath
from .moves import TRANSFORMATION, Move
from .reshaping import read_paths
from .structs import get_expr, require_field, require_struct, spark_field_path, type_at

if TYPE_CHECKING:  # decimal only where a numeric replacement is given: its import costs a cold start
    from decimal import Decimal

MASK_NULL = "Only Struct objects supported for [mask fields], found: null"

# Kafka's default masks, by the value's type (MaskField's table of per-class empty values).
# Date, Time and Timestamp values mask to `new Date(0)`: the epoch.
DEFAULT_MASKS: dict[str, Callable[[Primitive], ir.Expr]] = {
    "BOOLEAN": lambda t: ir.Lit(False),
    "TINYINT": lambda t: ir.Cast(ir.Lit(0), t.ddl()),
    "SMALLINT": lambda t: ir.Cast(ir.Lit(0), t.ddl()),
    "INT": lambda t: ir.Cast(ir.Lit(0), t.ddl()),
    "BIGINT": lambda t: ir.Cast(ir.Lit(0), t.ddl()),
    "FLOAT": lambda t: ir.Cast(ir.Lit(0.0), t.ddl()),
    "DOUBLE": lambda t: ir.Cast(ir.Lit(0.0), t.ddl()),
    "DECIMAL": lambda t: ir.Cast(ir.Lit(0), t.ddl()),
    "STRING": lambda t: ir.Lit(""),
    "DATE": lambda t: ir.Cast(ir.Lit("1970-01-01"), t.ddl()),
    "TIMESTAMP": lambda t: ir.Cast(ir.Lit("1970-01-01 00:00:00"), t.ddl()),
    "TIMESTAMP_LTZ": lambda t: ir.Func("timestamp_millis", (ir.Lit(0),)),
}
# Kafka: "Cannot mask value of type: class ..." (a Struct, byte[] or ByteBuffer).
UNMASKABLE = {"BYTES": "class [B", "STRUCT": "class org.apache.kafka.connect.data.Struct"}

JAVA_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")  # what `new BigDecimal(s)` accepts
INTEGRAL_BITS = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}
FLOAT_MAX = {"FLOAT": 3.4028234663852886e38, "DOUBLE": 1.7976931348623157e308}


class MaskProblem(ValueError):
    """Why a field cannot be masked as configured: the config key at fault, a message, a hint and a code."""

    def __init__(self, key: str, message: str, hint: str, code: str):
        super().__init__(message)
        self.key, self.message, self.hint, self.code = key, message, hint, code


def _kind(t: SqlType) -> str:
    return t.name if isinstance(t, Primitive) else {StructType: "STRUCT", ArrayType: "ARRAY", MapType: "MAP"}[type(t)]


def default_mask(t: SqlType) -> ir.Expr:
    """Kafka's empty value of the field's type: 0, 0.0, false, "", the epoch, an empty array or map."""
    if isinstance(t, (ArrayType, MapType)):
        empty = ir.Func("array" if isinstance(t, ArrayType) else "create_map", ())
        return ir.Cast(empty, t.ddl())
    if isinstance(t, Primitive) and t.name in DEFAULT_MASKS:
        return DEFAULT_MASKS[t.name](t)
    raise MaskProblem(
        "fields",
        f"cannot mask a {t.sql()} field (Kafka: Cannot mask value of type: {UNMASKABLE[_kind(t)]})",
        "drop it with ReplaceField instead, or Cast it to string first",
        "E772",
    )


def _number(text: str, t: Primitive) -> Decimal:
    from decimal import Decimal

    if not JAVA_NUMBER.match(text):
        raise MaskProblem(
            "replacement",
            f"replacement '{text}' is not a number, so it cannot mask a {t.sql()} field "
            f"(Kafka: Unable to convert {text} (class java.lang.String) to a number)",
            "give a number, or mask only string fields with this step",
            "E774",
        )
    return Decimal(text)


def _out_of_range(text: str, t: Primitive) -> MaskProblem:
    return MaskProblem(
        "replacement", f"replacement '{text}' does not fit a {t.sql()} field", "give a smaller number", "E775"
    )


def _integral(text: str, t: Primitive) -> ir.Expr:
    """Kafka: `new BigDecimal(s).longValue()`, so a fraction is truncated toward zero."""
    number, bits = _number(text, t), INTEGRAL_BITS[t.name]
    if number and number.adjusted() > 20:  # far beyond BIGINT; int() of it could be huge
        raise _out_of_range(text, t)
    value = int(number)
    if not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
        raise _out_of_range(text, t)
    return ir.Cast(ir.Lit(value), t.ddl())


def _fractional(text: str, t: Primitive) -> ir.Expr:
    value = float(_number(text, t))
    if math.isinf(value) or abs(value) > FLOAT_MAX[t.name]:
        raise _out_of_range(text, t)
    return ir.Cast(ir.Lit(value), t.ddl())


def _decimal(text: str, t: Primitive) -> ir.Expr:
    """The replacement at the field's scale; one that needs rounding or more digits is an error."""
    from decimal import Decimal, localcontext

    value, precision, scale = _number(text, t), t.precision or 0, t.scale or 0
    if value and value.adjusted() >= precision - scale:
        raise _out_of_range(text, t)
    with localcontext() as ctx:
        ctx.prec = 2 * precision + 10
        fixed = value.quantize(Decimal(1).scaleb(-scale))
        if fixed != value:
            raise MaskProblem(
                "replacement",
                f"replacement '{text}' has more decimal places than the {t.sql()} field's scale",
                f"give at most {scale} decimal places",
                "E775",
            )
    return ir.Cast(ir.Lit(str(fixed)), t.ddl())


REPLACEMENTS: dict[str, Callable[[str, Primitive], ir.Expr]] = {
    **{name: _integral for name in INTEGRAL_BITS},
    **{name: _fractional for name in FLOAT_MAX},
    "DECIMAL": _decimal,
    "STRING": lambda text, t: ir.Lit(text),
}


def mask_value(t: SqlType, replacement: str | None) -> ir.Expr:
    """The masked value of a non-null field of type `t`; MaskProblem when Kafka would fail for every such value."""
    if replacement is None:
        return default_mask(t)
    convert = REPLACEMENTS.get(t.name) if isinstance(t, Primitive) else None
    if convert is None:
        raise MaskProblem(
            "replacement",
            f"a {t.sql()} field cannot take a custom replacement "
            "(Kafka: Cannot mask value of type ... with custom replacement)",
            "mask it without replacement in a separate step",
            "E773",
        )
    return convert(replacement, t)


@dataclass(frozen=True, slots=True)
class MaskFieldConfig:
    paths: tuple[FieldPath, ...]
    replacement: str | None


def parse_mask(reader: ConfigReader) -> MaskFieldConfig | None:
    reader.boolean("replace.null.with.default", True)
    version = read_syntax(reader)
    paths = read_paths(reader, "fields", version, "E770")
    replacement = reader.string("replacement")
    if replacement == "":
        reader.error(
            "replacement",
            "'replacement' must be non-empty (Kafka: String must be non-empty)",
            "leave it out to mask with each type's empty value",
            code="E771",
        )
        return None
    return MaskFieldConfig(tuple(paths), replacement) if paths else None


def infer_mask(cfg: MaskFieldConfig, shape: Shape, ctx: Context) -> Shape:
    t = require_struct(shape.side(ctx.side), ctx, ctx.side)
    if t is None:
        return shape
    for path in cfg.paths:
        field_type = require_field(t, path.steps, ctx, "fields", ctx.side)
        if field_type is None:
            continue
        try:
            mask_value(field_type, cfg.replacement)
        except MaskProblem as problem:
            ctx.error(problem.key, f"field '{path}': {problem.message}", problem.hint, code=problem.code)
    return shape


def lower_mask(cfg: MaskFieldConfig, shape: Shape, low: Lowering) -> tuple[ir.Op, ...]:
    t = shape.side(low.side)
    col = low.col
    result: ir.Expr = col
    for path in cfg.paths:
        field = get_expr(col, path.steps)
        masked = ir.NullSafe(field, mask_value(type_at(t, path.steps), cfg.replacement))  # a null field stays null
        # a nested path under a null parent sets nothing (withField leaves the null parent as it is)
        result = ir.Method(result, "withField", (ir.Arg(spark_field_path(path.steps)), masked))
    return (ir.SetColumns(((low.side, low.fail_if(ir.IsNull(col), MASK_NULL, result)),)),)


MASK_FIELD = TransformSpec(
    name="MaskField",
    purpose="mask fields",
    doc="Replace the listed fields' values (null ones stay null) by their type's empty value: 0, 0.0, false, \"\", the "
    "epoch for dates and timestamps, an empty array or map; or by `replacement` converted to the field's type (numbers "
    "parsed as Java's BigDecimal, integers truncated). A null key or value is a record error, as in Kafka.",
    keys=(
        ConfigKey(
            "fields", "LIST", None, "Fields (V2: paths) to mask.", required=True, nonempty=True, names=READ_FIELDS
        ),
        ConfigKey(
            "replacement",
            "STRING",
            None,
            "The replacement value, converted to each field's type; without it, the type's empty value (0, false, "
            "empty string, ...).",
            nonempty=True,
        ),
        SYNTAX_KEY,
        NULL_DEFAULT_KEY,
    ),
    parse=parse_mask,
    infer=infer_mask,
    lower=lower_mask,
    lineage=lambda cfg, side, before: {
        (side, p.steps): Move((side, p.steps), TRANSFORMATION, masking=True) for p in cfg.paths
    },
    describe=lambda cfg, side: (
        "masks "
        + names(p.text for p in cfg.paths)
        + (f" with '{cfg.replacement}'" if cfg.replacement is not None else "")
    ),
    example='- name: mask_card\n  type: MaskField$Value\n  field.syntax.version: V2\n  fields: [customer.card]\n  replacement: "****"',
    differences=(
        "A listed field missing from the schema is a compile error (Kafka ignores it).",
        "What Kafka fails on for every non-null value is a compile error: masking a BYTES or STRUCT field, a replacement "
        "for a BOOLEAN, date/time, BYTES, ARRAY, MAP or STRUCT field, and a replacement that is not a number for a "
        "numeric field.",
        "A numeric replacement out of the field type's range is a compile error (Kafka wraps it around for integers).",
        "A DECIMAL field masks to zero, or to the replacement, at the field's own scale; a replacement that needs rounding "
        "or more digits is a compile error (Kafka's value keeps its own scale and fails serialization unless it matches).",
    ),
)
SPECS = (MASK_FIELD,)
