"""InsertField and ReplaceField: add fields from the envelope or a literal; drop, keep and rename fields."""

from __future__ import annotations

from dataclasses import dataclass, replace

from .. import ir
from ..shape import Shape
from ..types.field_names import fold, same_name
from ..types.parser import parse_type
from ..types.sql import BIGINT, INT, STRING, SqlType, StructType
from .base import READ_FIELDS, READS, WRITES, ConfigKey, ConfigReader, Context, Lowering, Names, TransformSpec, names
from .field_keys import NULL_DEFAULT_KEY, SYNTAX_KEY, read_path, read_syntax
from .field_paths import FieldPath
from .moves import Move
from .replace_plan import ReplaceFieldConfig, dropped_paths, plan_fields, planned_type, rebuild
from .structs import require_field, require_struct, spark_field_path, struct_with, type_at

# ---------------------------------------------------------------- InsertField

ENVELOPE_FIELDS: tuple[tuple[str, str, SqlType], ...] = (
    # config key, record column, type (Kafka's order of insertion)
    ("topic.field", "topic", STRING),
    ("partition.field", "partition", INT),
    ("offset.field", "offset", BIGINT),
    ("timestamp.field", "timestamp", parse_type("TIMESTAMP_LTZ(3)")),
)
OPTIONAL_MARKS = "!?"  # Kafka's InsertionSpec: one trailing '!' or '?' marks a field optional or required
INSERTED = (Names(WRITES, marks=OPTIONAL_MARKS),)  # a field the step writes, with its mark


@dataclass(frozen=True, slots=True)
class Insertion:
    key: str  # the config key it came from, for error locations
    path: FieldPath
    value: ir.Expr
    type: SqlType


@dataclass(frozen=True, slots=True)
class InsertFieldConfig:
    insertions: tuple[Insertion, ...]
    on_missing_parent: str
    on_existing_field: str


def _strip_suffix(name: str) -> str:
    """The name without its optionality mark: every field is optional here."""
    return name[:-1] if name[-1:] in OPTIONAL_MARKS else name


def parse_insert(reader: ConfigReader) -> InsertFieldConfig:
    reader.boolean("replace.null.with.default", True)
    version = read_syntax(reader)
    insertions = []
    for key, column, type_ in ENVELOPE_FIELDS:
        name = reader.string(key)
        if name:
            path = read_path(reader, key, _strip_suffix(name), version)
            if path:
                insertions.append(Insertion(key, path, ir.Col(column), type_))
    static_field = reader.string("static.field")
    static_value = reader.string("static.value")
    if static_field:
        if static_value is None:
            reader.error(
                "static.field",
                f"'static.value' is required with 'static.field' ({static_field})",
                "add static.value: the value to insert",
                code="E301",
            )
        else:
            path = read_path(reader, "static.field", _strip_suffix(static_field), version)
            if path:
                insertions.append(Insertion("static.field", path, ir.Lit(static_value), STRING))
    if not insertions and not reader.diags.errors:
        reader.error(
            None,
            "no field insertion configured",
            "set topic.field, partition.field, offset.field, timestamp.field or static.field",
        )
    return InsertFieldConfig(
        tuple(insertions),
        reader.enum("field.on.missing.parent", ("create", "ignore"), "create"),
        reader.enum("field.on.existing.field", ("overwrite", "ignore"), "overwrite"),
    )


def _applies(cfg: InsertFieldConfig, t: StructType, ins: Insertion) -> bool:
    """Whether an insertion changes the schema at all (ignore modes, known at compile time)."""
    if type_at(t, ins.path.parent) is None and ins.path.parent:
        return cfg.on_missing_parent == "create"
    return not (type_at(t, ins.path.steps) is not None and cfg.on_existing_field == "ignore")


def infer_insert(cfg: InsertFieldConfig, shape: Shape, ctx: Context) -> Shape:
    t = require_struct(shape.side(ctx.side), ctx, ctx.side)
    if t is None:
        return shape
    for ins in cfg.insertions:
        for i in range(1, len(ins.path.steps)):
            parent = type_at(t, ins.path.steps[:i])
            if parent is not None and not isinstance(parent, StructType):
                ctx.error(
                    ins.key,
                    f"cannot insert '{ins.path}': '{'.'.join(ins.path.steps[:i])}' is {parent.sql()}, not a struct",
                    "insert the field beside it, or into a struct field",
                    code="E402",
                )
                return shape
        parent = type_at(t, ins.path.parent) if ins.path.parent else t
        if isinstance(parent, StructType) and parent.field(ins.path.name) is None:
            clash = next((f.name for f in parent.fields if same_name(f.name, ins.path.name)), None)
            if clash is not None:
                ctx.error(
                    ins.key,
                    f"'{ins.path.name}' differs from the existing field '{clash}' only in case, which Spark takes for the same name",
                    "use the existing name to overwrite it, or another name",
                    code="E406",
                )
                return shape
        if _applies(cfg, t, ins):
            t = struct_with(t, ins.path.steps, ins.type)
    return shape.with_side(ctx.side, t)


def _fresh(steps: tuple[str, ...], value: ir.Expr) -> ir.Expr:
    """A new nested struct holding only `value` at `steps`."""
    return value if not steps else ir.Struct(((steps[0], _fresh(steps[1:], value)),))


def _nulls(t: StructType) -> ir.Expr:
    return ir.Struct(tuple((f.name, ir.Null(f.type.ddl())) for f in t.fields))


def _insert(base: ir.Expr, t: StructType, steps: tuple[str, ...], value: ir.Expr, create: bool) -> ir.Expr:
    """`base` (non-null where this runs) with `value` set at `steps`."""
    head, rest = steps[0], steps[1:]
    f = t.field(head)
    if not rest:
        new = value
    elif f is None:
        new = _fresh(rest, value)
    else:
        child = ir.Get(base, head)
        assert isinstance(f.type, StructType)
        new = _insert(child, f.type, rest, value, create)
        if create:  # a null parent is replaced by a new one holding the field
            new = ir.If(ir.IsNull(child), _insert(_nulls(f.type), f.type, rest, value, create), new)
    return ir.Method(base, "withField", (ir.Arg(spark_field_path((head,))), new))


def _source(i: Insertion) -> str:
    """Where an inserted field's value comes from, for the step comment."""
    return f"'{i.value.value}'" if isinstance(i.value, ir.Lit) else f"the record's {i.key.removesuffix('.field')}"


def lower_insert(cfg: InsertFieldConfig, shape: Shape, low: Lowering) -> tuple[ir.Op, ...]:
    side = low.side
    t = shape.side(side)
    assert isinstance(t, StructType)
    result: ir.Expr = ir.Col(side)
    for ins in cfg.insertions:
        if _applies(cfg, t, ins):
            result = _insert(result, t, ins.path.steps, ins.value, cfg.on_missing_parent == "create")
            t = struct_with(t, ins.path.steps, ins.type)
    return (ir.SetColumns(((side, result),)),)


INSERT_FIELD = TransformSpec(
    name="InsertField",
    purpose="field insertion",
    doc="Insert fields from the record's envelope (topic, partition, offset, timestamp) or a static string; at least "
    "one of the `*.field` keys is needed. Field names may end in `!` or `?` (accepted, no effect: every field is optional).",
    keys=(
        ConfigKey("topic.field", "STRING", None, "Field that receives the record's topic (STRING).", names=INSERTED),
        ConfigKey(
            "partition.field", "STRING", None, "Field that receives the record's partition (INT).", names=INSERTED
        ),
        ConfigKey("offset.field", "STRING", None, "Field that receives the record's offset (BIGINT).", names=INSERTED),
        ConfigKey(
            "timestamp.field",
            "STRING",
            None,
            "Field that receives the record's timestamp (TIMESTAMP_LTZ(3)).",
            names=INSERTED,
        ),
        ConfigKey(
            "static.field",
            "STRING",
            None,
            "Field that receives `static.value` (STRING).",
            requires=("static.value",),
            names=INSERTED,
        ),
        ConfigKey(
            "static.value",
            "STRING",
            None,
            "The value written into `static.field`, as written: an unquoted 0123, 1.50 or off is that text.",
        ),
        SYNTAX_KEY,
        ConfigKey(
            "field.on.missing.parent",
            "STRING",
            "create",
            "KIP-821: when the field's parent struct is absent or null, `create` builds it, `ignore` leaves the record "
            "as it is.",
            ("create", "ignore"),
        ),
        ConfigKey(
            "field.on.existing.field",
            "STRING",
            "overwrite",
            "KIP-821: when the field already exists, `overwrite` replaces its value in place, `ignore` leaves it.",
            ("overwrite", "ignore"),
        ),
        NULL_DEFAULT_KEY,
    ),
    parse=parse_insert,
    infer=infer_insert,
    lower=lower_insert,
    # each inserted field comes from its record column, or is a literal
    lineage=lambda cfg, side, before: {
        (side, i.path.steps): Move(("meta", (i.value.name,)) if isinstance(i.value, ir.Col) else None)
        for i in cfg.insertions
    },
    describe=lambda cfg, side: "inserts " + names(f"{i.path.text} ({_source(i)})" for i in cfg.insertions),
    example="- name: add_origin\n  type: InsertField$Value\n  topic.field: kafka_topic\n  static.field: origin\n  static.value: web",
    differences=(
        "An existing field is overwritten in place (field.on.existing.field: overwrite, the KIP-821 default) where Kafka's with-schema InsertField fails on the duplicate name.",
        "offset.field works for every source (Kafka allows it only in sink connectors).",
    ),
)


# ---------------------------------------------------------------- ReplaceField


REMOVED_KEYS = (
    ConfigKey("whitelist", "LIST", None, "Removed in Kafka 4.0 (renamed `include`).", removed="include"),
    ConfigKey("blacklist", "LIST", None, "Removed in Kafka 4.0 (renamed `exclude`).", removed="exclude"),
)


def parse_replace(reader: ConfigReader) -> ReplaceFieldConfig:
    reader.boolean("replace.null.with.default", True)
    for key in REMOVED_KEYS:
        if reader.has(key.name):
            reader.error(key.name, f"'{key.name}' was removed in Kafka 4.0", f"use '{key.removed}'", code="E303")
    version = read_syntax(reader)

    def paths(key: str) -> tuple[FieldPath, ...]:
        return tuple(p for p in (read_path(reader, key, s, version) for s in reader.items(key)) if p)

    renames = []
    for item in reader.items("renames"):
        parts = item.split(":")
        if len(parts) != 2 or not parts[1]:
            reader.error("renames", f"invalid rename mapping '{item}'", "write each rename as old:new")
            continue
        path = read_path(reader, "renames", parts[0], version)
        if path:
            renames.append((path, parts[1]))
    return ReplaceFieldConfig(paths("exclude"), paths("include"), tuple(renames))


def infer_replace(cfg: ReplaceFieldConfig, shape: Shape, ctx: Context) -> Shape:
    t = require_struct(shape.side(ctx.side), ctx, ctx.side)
    if t is None:
        return shape
    errors = len(ctx.diags.errors)
    for key, paths in (("exclude", cfg.exclude), ("include", cfg.include)):
        for p in paths:
            require_field(t, p.steps, ctx, key, ctx.side, item=p.text)
    for p, new in cfg.renames:
        require_field(t, p.steps, ctx, "renames", ctx.side, item=f"{p.text}:{new}")
    if len(ctx.diags.errors) > errors:
        return shape
    plan = plan_fields(cfg, t)
    if not _check_names(plan, ctx):
        return shape
    out = planned_type(plan)  # may have no fields: Kafka leaves an empty struct, and so does F.struct()
    renamed = {p.steps[0] for p, _ in cfg.renames if len(p.steps) == 1}
    result = shape.with_side(ctx.side, out)
    if ctx.side == "value":  # a renamed virtual column becomes an ordinary field
        result = replace(result, virtual=result.virtual - renamed)
    return result


def _check_names(plan, ctx: Context, where: str = "") -> bool:
    """No two output fields of one struct share a name (Spark compares names case-insensitively)."""
    ok, seen = True, set()
    for _, name, nested in plan:
        if fold(name) in seen:
            ctx.error(
                "renames",
                f"the rename gives two fields named '{where}{name}'",
                "rename onto a name no other field has",
                code="E404",
            )
            ok = False
        seen.add(fold(name))
        if nested is not None:
            ok = _check_names(nested, ctx, f"{where}{name}.") and ok
    return ok


def describe_replace(cfg: ReplaceFieldConfig, side: str) -> str:
    parts = [f"drops {names(p.text for p in cfg.exclude)}"] if cfg.exclude else []
    if cfg.include:
        parts.append(f"keeps only {names(p.text for p in cfg.include)}")
    if cfg.renames:
        parts.append("renames " + names(f"{p.text} -> {new}" for p, new in cfg.renames))
    return "; ".join(parts) or "keeps every field"


def lower_replace(cfg: ReplaceFieldConfig, shape: Shape, low: Lowering) -> tuple[ir.Op, ...]:
    side = low.side
    t = shape.side(side)
    assert isinstance(t, StructType)
    col, plan = ir.Col(side), plan_fields(cfg, t)
    drops = None if cfg.include else dropped_paths(t, plan)  # include states what it keeps: the rebuild shows that
    if drops:  # a null struct (a tombstone) stays null
        return (
            ir.SetColumns(((side, ir.Method(col, "dropFields", tuple(ir.Arg(spark_field_path(p)) for p in drops))),)),
        )
    return (ir.SetColumns(((side, ir.NullSafe(col, rebuild(col, plan))),)),)


REPLACE_FIELD = TransformSpec(
    name="ReplaceField",
    purpose="field replacement",
    doc="Drop fields (exclude), keep only some (include), and rename fields (renames: old:new). Filtering uses the names before renaming.",
    keys=(
        ConfigKey("exclude", "LIST", [], "Fields to drop; wins over include.", names=READ_FIELDS),
        ConfigKey("include", "LIST", [], "Fields to keep; empty keeps every field.", names=READ_FIELDS),
        ConfigKey(
            "renames", "LIST", [], "`old:new` renames.", names=(Names(READS, part=0), Names(WRITES, path=False, part=1))
        ),
        *REMOVED_KEYS,
        SYNTAX_KEY,
        NULL_DEFAULT_KEY,
    ),
    parse=parse_replace,
    infer=infer_replace,
    lower=lower_replace,
    lineage=lambda cfg, side, before: {(side, p.steps[:-1] + (new,)): Move((side, p.steps)) for p, new in cfg.renames},
    describe=describe_replace,
    example='- name: tidy\n  type: ReplaceField$Value\n  exclude: [ssn]\n  renames: ["cust:customer"]',
    differences=(
        "A field named in exclude, include or renames that the tracked schema lacks is a compile error (Kafka ignores it).",
        "A rename onto the name of another output field is a compile error (Kafka mixes the two values).",
        "`whitelist`/`blacklist` (removed in Kafka 4.0) are errors that name include/exclude.",
    ),
)
SPECS = (INSERT_FIELD, REPLACE_FIELD)
