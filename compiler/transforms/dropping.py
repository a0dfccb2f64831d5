"""Drop (Confluent's `io.confluent.connect.transforms.Drop`): sets the key or the value of every record to null.

`schema.behavior` says what becomes of the side's schema: `nullify` (the default) removes it, so the side is
always null and has no type downstream; `retain`, `validate` and `force_optional` keep its type, the column then
holding nulls of that type. Every pipec key and value schema is already optional (any record's key or value may
be null), so `validate` never fails and `force_optional` has nothing to change.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..shape import Shape
from .base import ConfigKey, ConfigReader, Context, Lowering, TransformSpec
from .moves import TRANSFORMATION, Move

BEHAVIORS = ("nullify", "retain", "validate", "force_optional")


@dataclass(frozen=True, slots=True)
class DropConfig:
    keeps_schema: bool  # every behaviour but nullify keeps the side's type


def parse_drop(reader: ConfigReader) -> DropConfig:
    return DropConfig(reader.enum("schema.behavior", BEHAVIORS, "nullify") != "nullify")


def infer_drop(cfg: DropConfig, shape: Shape, ctx: Context) -> Shape:
    return shape if cfg.keeps_schema else shape.with_side(ctx.side, None)


def lower_drop(cfg: DropConfig, shape: Shape, low: Lowering) -> tuple[ir.Op, ...]:
    """The side's column becomes a null: of its own type when the schema is kept, else without one (BINARY)."""
    t = shape.side(low.side)
    null = ir.Null(t.ddl() if cfg.keeps_schema and t is not None else "BINARY")
    return (ir.SetColumns(((low.side, null),)),)


DROP = TransformSpec(
    name="Drop",
    package="io.confluent.connect.transforms.",
    purpose="dropping the key or the value",
    doc="Set the key or the value of every record to null (Confluent's Drop; a null value is a tombstone). "
    "`schema.behavior` says what becomes of its schema: `nullify` removes it, the others keep it.",
    keys=(
        ConfigKey(
            "schema.behavior",
            "STRING",
            "nullify",
            "What to do with the schema: nullify (the side has no schema after the step), retain, validate "
            "(fail if the schema is not optional) or force_optional (make it optional).",
            choices=BEHAVIORS,
        ),
    ),
    parse=parse_drop,
    infer=infer_drop,
    lower=lower_drop,
    # every value becomes null: masked, as MaskField masks (a step under a predicate leaves the others as they are)
    lineage=lambda cfg, side, before: {(side, ()): Move((side, ()), TRANSFORMATION, masking=True)},
    describe=lambda cfg, side: f"sets every {side} to null" + ("" if cfg.keeps_schema else ", without a schema"),
    example="- name: tombstones\n  type: io.confluent.connect.transforms.Drop$Value\n  schema.behavior: retain",
    differences=(
        "Every key and value schema in pipec is optional, so `validate` never fails a record (Kafka Connect "
        "fails a record whose schema is required, e.g. an Avro record that is not a union with null) and "
        "`force_optional` keeps the type as it is.",
        "Under a predicate, `nullify` is a compile error (E324): the skipped records keep a value, which a "
        "column without a type cannot hold; `retain` does the same to the records.",
    ),
)
SPECS = (DROP,)
