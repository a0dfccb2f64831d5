"""ExtractField, Flatten, HoistField and ValueToKey: transforms that reshape the key or value as a whole."""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..shape import Shape
from ..types.sql import MapType, SqlType, StructField, StructType
from .base import READ_FIELDS, READS, WRITES, ConfigKey, ConfigReader, Context, Lowering, Names, TransformSpec, names
from .field_keys import NULL_DEFAULT_KEY, SYNTAX_KEY, read_path, read_syntax
from .field_paths import FieldPath
from .moves import Move, Moves
from .reshaping import first_clash, read_paths, set_side, shown
from .structs import get_expr, require_field, require_struct, spark_field_path, struct_with, type_at

# ---------------------------------------------------------------- ExtractField


@dataclass(frozen=True, slots=True)
class ExtractFieldConfig:
    path: FieldPath


def parse_extract(reader: ConfigReader) -> ExtractFieldConfig | None:
    reader.boolean("replace.null.with.default", True)
    version = read_syntax(reader)
    text = reader.string("field", required=True)
    path = read_path(reader, "field", text, version) if text is not None else None
    return ExtractFieldConfig(path) if path else None


def infer_extract(cfg: ExtractFieldConfig, shape: Shape, ctx: Context) -> Shape:
    t = require_struct(shape.side(ctx.side), ctx, ctx.side)
    out = require_field(t, cfg.path.steps, ctx, "field", ctx.side) if t is not None else None
    if out is None:
        return shape
    return set_side(shape, ctx.side, out, frozenset())  # no top-level field of the old value survives as such


def lower_extract(cfg: ExtractFieldConfig, shape: Shape, low: Lowering) -> tuple[ir.Op, ...]:
    # getField of a null struct is null: a null key/value, or a null parent, gives null (Kafka's valueFrom)
    return (ir.SetColumns(((low.side, get_expr(low.col, cfg.path.steps)),)),)


EXTRACT_FIELD = TransformSpec(
    name="ExtractField",
    purpose="field extraction",
    doc="Replace the key or value by one of its fields (with V2, a nested field); the result may be a primitive. "
    "A null key or value, or a null parent on the path, gives null.",
    keys=(
        ConfigKey(
            "field", "STRING", None, "The field to extract (a dotted path under V2).", required=True, names=READ_FIELDS
        ),
        SYNTAX_KEY,
        NULL_DEFAULT_KEY,
    ),
    parse=parse_extract,
    infer=infer_extract,
    lower=lower_extract,
    lineage=lambda cfg, side, before: {(side, ()): Move((side, cfg.path.steps))},
    describe=lambda cfg, side: f"replaces the {side} by its field {cfg.path.text}",
    example="- name: just_the_card\n  type: ExtractField$Value\n  field.syntax.version: V2\n  field: customer.card",
    differences=(
        "A field missing from the schema is a compile error (Kafka fails each record with `Unknown field`), and so is "
        "an empty path (Kafka: IllegalArgumentException per record).",
    ),
)


# ---------------------------------------------------------------- Flatten


@dataclass(frozen=True, slots=True)
class FlattenConfig:
    delimiter: str


def _flat(
    t: StructType, delimiter: str, name: str = "", steps: tuple[str, ...] = ()
) -> list[tuple[str, tuple[str, ...], SqlType]]:
    """(output name, source path, type) of every leaf, depth first in schema order; arrays and maps are leaves."""
    out = []
    for f in t.fields:
        leaf_name, leaf_steps = (f"{name}{delimiter}{f.name}" if steps else f.name), steps + (f.name,)
        if isinstance(f.type, StructType):
            out += _flat(f.type, delimiter, leaf_name, leaf_steps)
        else:
            out.append((leaf_name, leaf_steps, f.type))
    return out


def infer_flatten(cfg: FlattenConfig, shape: Shape, ctx: Context) -> Shape:
    t = require_struct(shape.side(ctx.side), ctx, ctx.side)
    if t is None:
        return shape
    plan = _flat(t, cfg.delimiter)
    # metadata columns ride in pipec's value, not in a Kafka Connect value: a headers map there is not Flatten's
    metadata = (shape.virtual | {f for _, f in shape.persisted}) if ctx.side == "value" else frozenset()
    maps = [(name, ft) for name, steps, ft in plan if isinstance(ft, MapType) and steps not in {(m,) for m in metadata}]
    if maps:
        name, ft = maps[0]
        ctx.error(
            "type",
            f"Kafka's Flatten does not support MAP for records with schemas, and field '{name}' is {ft.sql()}",
            "drop the map first (ReplaceField exclude) or move it to a header (HeaderFrom); Kafka fails every record",
            code="E756",
        )
        return shape
    clash = first_clash([(name, shown(steps)) for name, steps, _ in plan])
    if clash:
        ctx.error(
            "delimiter" if ctx.reader.has("delimiter") else None,
            f"flattening gives {clash}",
            "choose another delimiter, or rename one of the fields with ReplaceField first",
            code="E755",
        )
        return shape
    return set_side(shape, ctx.side, StructType(tuple(StructField(n, ft) for n, _, ft in plan)))


def flatten_moves(cfg: FlattenConfig, side: str, before: Shape) -> Moves:
    """Each flattened field comes from the leaf it names."""
    t = before.side(side)
    return {(side, (name,)): Move((side, steps)) for name, steps, _ in _flat(t, cfg.delimiter)} if t else {}


def lower_flatten(cfg: FlattenConfig, shape: Shape, low: Lowering) -> tuple[ir.Op, ...]:
    t = shape.side(low.side)
    assert isinstance(t, StructType)
    col = low.col
    flat = ir.Struct(tuple((name, get_expr(col, steps)) for name, steps, _ in _flat(t, cfg.delimiter)))
    return (ir.SetColumns(((low.side, ir.NullSafe(col, flat)),)),)


FLATTEN = TransformSpec(
    name="Flatten",
    purpose="flattening",
    doc="Inline nested structs as top-level fields named by joining the path with `delimiter` (`a.b` is then one literal "
    "name). Arrays are kept as they are; a MAP field is a compile error, as Kafka's Flatten refuses it for records with "
    "schemas; a null nested struct gives null fields; a null key or value stays null.",
    keys=(ConfigKey("delimiter", "STRING", ".", "The string joining parent and child field names."),),
    parse=lambda reader: FlattenConfig(reader.string("delimiter", ".")),
    infer=infer_flatten,
    lower=lower_flatten,
    lineage=flatten_moves,
    describe=lambda cfg, side: f"flattens nested structs, joining names with '{cfg.delimiter}'",
    example="- name: flat\n  type: Flatten$Value\n  delimiter: _",
    differences=(
        "A MAP field is a compile error where Kafka's with-schema Flatten fails every non-null record; a metadata "
        "column (such as a `headers` map) is kept, because it is not part of a Kafka Connect value.",
        "Two flattened fields with the same name (Spark: ignoring case) are a compile error (Kafka fails each record "
        "with SchemaBuilderException).",
    ),
)


# ---------------------------------------------------------------- HoistField


@dataclass(frozen=True, slots=True)
class HoistFieldConfig:
    field: str
    hoisted: FieldPath | None  # None: the whole key or value


def parse_hoist(reader: ConfigReader) -> HoistFieldConfig | None:
    version = read_syntax(reader)
    name = reader.string("field", required=True)
    if name == "":
        reader.error(
            "field", "'field' must be non-empty: it names the field of the new struct", "write field: NAME", code="E760"
        )
        return None
    text = reader.string("hoisted", "")
    hoisted = read_path(reader, "hoisted", text, version) if text else None
    if name is None or (text and hoisted is None):
        return None
    return HoistFieldConfig(name, hoisted)


def _wrapped(parent: StructType, last: str, name: str) -> StructType:
    """`parent` with field `last` replaced, in place, by `name: STRUCT<last ...>`."""
    return StructType(tuple(StructField(name, StructType((f,))) if f.name == last else f for f in parent.fields))


def infer_hoist(cfg: HoistFieldConfig, shape: Shape, ctx: Context) -> Shape:
    side = ctx.side
    t = shape.side(side)
    if cfg.hoisted is None:
        if t is None:
            ctx.error(
                None,
                f"the {side} here is always null, so there is nothing to hoist and no type for '{cfg.field}'",
                f"set the {side} first (e.g. ValueToKey), or hoist the value",
                code="E762",
            )
            return shape
        return set_side(shape, side, StructType((StructField(cfg.field, t),)), frozenset())
    t = require_struct(t, ctx, side)
    steps = cfg.hoisted.steps
    if t is None or require_field(t, steps, ctx, "hoisted", side) is None:
        return shape
    parent = type_at(t, steps[:-1])
    assert isinstance(parent, StructType)
    clash = next(
        (f.name for f in parent.fields if f.name != steps[-1] and f.name.casefold() == cfg.field.casefold()), None
    )
    if clash is not None:
        where = f"'{shown(steps[:-1])}'" if steps[:-1] else f"the {side}"
        ctx.error(
            "field",
            f"'{cfg.field}' would clash with the field '{clash}' already in {where}",
            "choose another field name (Spark compares names ignoring case)",
            code="E761",
        )
        return shape
    new_parent = _wrapped(parent, steps[-1], cfg.field)
    out = struct_with(t, steps[:-1], new_parent) if steps[:-1] else new_parent
    virtual = shape.virtual - {steps[0]} if len(steps) == 1 else shape.virtual
    return set_side(shape, side, out, virtual)


def hoist_moves(cfg: HoistFieldConfig, side: str, before: Shape) -> Moves:
    """The new field holds the whole key or value, or (with `hoisted`) the element, under its own name."""
    if cfg.hoisted is None:
        return {(side, (cfg.field,)): Move((side, ()))}
    steps = cfg.hoisted.steps
    return {(side, steps[:-1] + (cfg.field, steps[-1])): Move((side, steps))}


def lower_hoist(cfg: HoistFieldConfig, shape: Shape, low: Lowering) -> tuple[ir.Op, ...]:
    col = low.col
    if cfg.hoisted is None:  # a null key/value becomes a struct holding null (Kafka with an optional schema)
        return (ir.SetColumns(((low.side, ir.Struct(((cfg.field, col),))),)),)
    t = shape.side(low.side)
    steps = cfg.hoisted.steps
    parent_steps, last = steps[:-1], steps[-1]
    parent_type = type_at(t, parent_steps)
    assert isinstance(parent_type, StructType)
    parent = get_expr(col, parent_steps)
    fields = tuple(
        (cfg.field, ir.Struct(((last, ir.Get(parent, last)),))) if f.name == last else (f.name, ir.Get(parent, f.name))
        for f in parent_type.fields
    )
    rebuilt = ir.NullSafe(parent, ir.Struct(fields))  # a null parent (or tombstone) has nothing to hoist
    if parent_steps:
        rebuilt = ir.Method(col, "withField", (ir.Arg(spark_field_path(parent_steps)), rebuilt))
    return (ir.SetColumns(((low.side, rebuilt),)),)


HOIST_FIELD = TransformSpec(
    name="HoistField",
    purpose="field hoisting",
    doc="Wrap the key or value in a struct with the one field `field` (a null key or value gives a struct holding "
    "null). With `hoisted` (KIP-821), wrap only the element at that path: it is replaced, in place, by `field` holding "
    "a struct with that element under its own name.",
    keys=(
        ConfigKey(
            "field",
            "STRING",
            None,
            "Name of the single field of the new struct.",
            required=True,
            names=(Names(WRITES, path=False),),
        ),
        ConfigKey(
            "hoisted",
            "STRING",
            "",
            "KIP-821: path of the element to wrap; empty wraps the whole key or value.",
            names=READ_FIELDS,
        ),
        SYNTAX_KEY,
    ),
    parse=parse_hoist,
    infer=infer_hoist,
    lower=lower_hoist,
    lineage=hoist_moves,
    describe=lambda cfg, side: (
        f"wraps {cfg.hoisted.text if cfg.hoisted else 'the ' + side} in a struct field {cfg.field}"
    ),
    example="- name: wrap\n  type: HoistField$Value\n  field.syntax.version: V2\n  hoisted: parent.child.k2\n  field: other",
    differences=(
        "`hoisted` (KIP-821) is implemented as the KIP's examples show; Kafka has not shipped it. A null key or value, "
        "or a null parent of the hoisted element, is left as it is.",
        "An empty `field` is a compile error, and so is hoisting a key that is always null (no type to give the field).",
    ),
)


# ---------------------------------------------------------------- ValueToKey

VALUE_TO_KEY_NULL = "Only Struct objects supported for [copying fields from value to key], found: null"


@dataclass(frozen=True, slots=True)
class ValueToKeyConfig:
    paths: tuple[FieldPath, ...]
    version: str


def parse_value_to_key(reader: ConfigReader) -> ValueToKeyConfig | None:
    reader.boolean("replace.null.with.default", True)
    version = read_syntax(reader)
    paths = read_paths(reader, "fields", version, "E765")
    return ValueToKeyConfig(paths, version) if paths else None


def _single(cfg: ValueToKeyConfig) -> bool:
    """V2 with one path: the key is the value found there, not a struct."""
    return cfg.version == "V2" and len(cfg.paths) == 1


def infer_value_to_key(cfg: ValueToKeyConfig, shape: Shape, ctx: Context) -> Shape:
    t = require_struct(shape.value, ctx, "value")
    if t is None:
        return shape
    types = [require_field(t, p.steps, ctx, "fields", "value") for p in cfg.paths]
    if any(x is None for x in types):
        return shape
    if _single(cfg):
        return shape.with_side("key", types[0])
    clash = first_clash([(p.name, str(p)) for p in cfg.paths])
    if clash:
        ctx.error(
            "fields",
            f"the key would have {clash}",
            "list each field once, and rename one of two same-named fields with ReplaceField first",
            code="E766",
        )
        return shape
    return shape.with_side("key", StructType(tuple(StructField(p.name, x) for p, x in zip(cfg.paths, types))))


def value_to_key_moves(cfg: ValueToKeyConfig, side: None, before: Shape) -> Moves:
    """The key, or each of its fields, comes from the value's field."""
    if _single(cfg):
        return {("key", ()): Move(("value", cfg.paths[0].steps))}
    return {("key", (p.steps[-1],)): Move(("value", p.steps)) for p in cfg.paths}


def lower_value_to_key(cfg: ValueToKeyConfig, shape: Shape, low: Lowering) -> tuple[ir.Op, ...]:
    value = ir.Col("value")
    if _single(cfg):
        key = get_expr(value, cfg.paths[0].steps)
    else:
        key = ir.Struct(tuple((p.name, get_expr(value, p.steps)) for p in cfg.paths))
    return (ir.SetColumns((("key", low.fail_if(ir.IsNull(value), VALUE_TO_KEY_NULL, key)),)),)


VALUE_TO_KEY = TransformSpec(
    name="ValueToKey",
    purpose="copying fields from value to key",
    doc="Replace the key with fields of the value. V1: a struct of the listed top-level fields, in order. V2 (KIP-821): "
    "one path gives the value found there as the key; several give a struct whose fields are named by each path's "
    "last step. A tombstone (null value) is a record error, as in Kafka.",
    keys=(
        ConfigKey(
            "fields",
            "LIST",
            None,
            "Value fields (V2: paths) forming the key.",
            required=True,
            nonempty=True,
            names=(Names(READS, of="value"),),
        ),
        SYNTAX_KEY,
        NULL_DEFAULT_KEY,
    ),
    parse=parse_value_to_key,
    infer=infer_value_to_key,
    lower=lower_value_to_key,
    lineage=value_to_key_moves,
    describe=lambda cfg, side: "sets the key to the value's " + names(p.text for p in cfg.paths),
    sides=False,
    example="- name: key_by_id\n  type: ValueToKey\n  fields: [order_id]",
    differences=(
        "Under V2 a single path gives the value found there as the key (KIP-821's examples); V1 keeps Kafka's struct key.",
        "A listed field missing from the value is a compile error (Kafka fails each record with DataException), and so "
        "are two key fields with the same name.",
    ),
)
SPECS = (EXTRACT_FIELD, FLATTEN, HOIST_FIELD, VALUE_TO_KEY)
