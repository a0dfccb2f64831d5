"""SetSchemaMetadata: the schema name and version of the key or value, tracked at compile time.

Spark has no schema names, so the step changes no data; the name and version are recorded in the
`Shape` (`schema_names`) for formats that carry them (the avro record name).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .. import ir
from ..shape import Shape
from ..types.sql import StructType
from .base import ConfigKey, ConfigReader, Context, Lowering, TransformSpec, names
from .field_keys import NULL_DEFAULT_KEY
from .moves import no_moves

INT_MIN, INT_MAX = -(2**31), 2**31 - 1


@dataclass(frozen=True, slots=True)
class SetSchemaMetadataConfig:
    name: str | None
    version: int | None


def parse_set_schema_metadata(reader: ConfigReader) -> SetSchemaMetadataConfig | None:
    reader.boolean("replace.null.with.default", True)
    name = reader.string("schema.name")
    raw_version = reader.string("schema.version")
    version = None
    if raw_version is not None:
        if not re.fullmatch(r"[+-]?[0-9]+", raw_version) or not INT_MIN <= int(raw_version) <= INT_MAX:
            reader.error(
                "schema.version",
                f"'schema.version' must be a 32-bit integer, not '{raw_version}'",
                "write a whole number from -2147483648 to 2147483647",
                code="E808",
            )
            return None
        version = int(raw_version)
    if name is None and version is None:
        reader.error(
            None, "Neither schema name nor version configured", "set schema.name, schema.version or both", code="E809"
        )
        return None
    return SetSchemaMetadataConfig(name, version)


def infer_set_schema_metadata(cfg: SetSchemaMetadataConfig, shape: Shape, ctx: Context) -> Shape:
    t = shape.side(ctx.side)
    if t is None:  # always null, without a schema: Kafka leaves such records unchanged
        return shape
    if not isinstance(t, StructType):
        ctx.error(
            None,
            f"works only on a struct {ctx.side}, but the {ctx.side} here is {t.sql()} (Kafka fails every record: "
            "Cannot list fields on non-struct type)",
            f"set the schema name on a struct {ctx.side}: move this step before the one that made it {t.sql()}",
            code="E810",
        )
        return shape
    old = {side: (name, version) for side, name, version in shape.schema_names}
    prev_name, prev_version = old.get(ctx.side, (None, None))
    entry = (
        ctx.side,
        cfg.name if cfg.name is not None else prev_name,
        cfg.version if cfg.version is not None else prev_version,
    )
    names = tuple(e for e in shape.schema_names if e[0] != ctx.side) + (entry,)
    return replace(shape, schema_names=names)


def lower_set_schema_metadata(cfg: SetSchemaMetadataConfig, shape: Shape, low: Lowering) -> tuple[ir.Op, ...]:
    """No data changes: names and versions live in the compile-time shape (a tombstone passes through)."""
    return ()


SET_SCHEMA_METADATA = TransformSpec(
    name="SetSchemaMetadata",
    purpose="updating schema metadata",
    doc="Set the schema name and/or version of the key or value (at least one of the two). Records are unchanged (tombstones pass through); "
    "the name and version are kept for formats that carry a schema name (the avro record name).",
    keys=(
        ConfigKey("schema.name", "STRING", None, "The schema name to set."),
        ConfigKey("schema.version", "INT", None, "The schema version to set, an integer."),
        NULL_DEFAULT_KEY,
    ),
    parse=parse_set_schema_metadata,
    infer=infer_set_schema_metadata,
    lower=lower_set_schema_metadata,
    lineage=no_moves,  # names only: the data is not touched
    describe=lambda cfg, side: (
        f"sets the {side} schema's "
        + names(
            ([f"name to {cfg.name}"] if cfg.name else [])
            + ([f"version to {cfg.version}"] if cfg.version is not None else [])
        )
    ),
    example="- name: name_value\n  type: SetSchemaMetadata$Value\n  schema.name: com.example.Order\n  schema.version: 3",
    differences=(
        "A primitive key or value is a compile error (Kafka fails every record: it works only on struct schemas).",
        "The data is not touched: Spark columns carry no schema name.",
    ),
)
SPECS = (SET_SCHEMA_METADATA,)
