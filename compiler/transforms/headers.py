"""InsertHeader, DropHeaders and HeaderFrom: edit the record's headers (KIP-145).

Header values are the bytes Kafka Connect's SimpleHeaderConverter writes: `Values.convertToString` as UTF-8
(an int as its decimal text, a string as itself, bytes as base64, a struct, map or array as Connect's
JSON-like text, dates in UTC; a null value gives a null header value).
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..shape import Shape
from ..types.sql import StructType
from .base import READ_FIELDS, READS, WRITES, ConfigKey, ConfigReader, Context, Lowering, Names, TransformSpec, names
from .connect_values import Unsupported, literal_header_bytes
from .field_keys import NULL_DEFAULT_KEY, SYNTAX_KEY, read_path, read_syntax
from .field_paths import FieldPath
from .header_text import header_bytes
from .moves import Move, header
from .structs import get_expr, require_field, require_struct, spark_field_path, struct_with, type_at

HEADER_READ, HEADER_WRITTEN = (Names(READS, of="header", path=False),), (Names(WRITES, of="header", path=False),)


def header_entry(key: str, value: ir.Expr) -> ir.Expr:
    """One element of the headers array."""
    return ir.Struct((("key", ir.Lit(key)), ("value", value)))


def append_headers(entries: list[ir.Expr]) -> ir.Expr:
    """The record's headers with `entries` appended (existing keys are kept: duplicates are allowed)."""
    return ir.Func("concat", (ir.Col("headers"), ir.Func("array", tuple(entries))))


# ---------------------------------------------------------------- InsertHeader


@dataclass(frozen=True, slots=True)
class InsertHeaderConfig:
    header: str
    value: bytes | None  # the bytes Kafka writes for value.literal; None: a null header value


def parse_insert_header(reader: ConfigReader) -> InsertHeaderConfig | None:
    header = reader.string("header", required=True)
    literal = reader.string("value.literal", required=True)
    if header is None or literal is None:
        return None
    raw = reader.raw.get("value.literal")
    text = raw if isinstance(raw, str) else literal  # Java's trim, not Python's strip
    try:
        value = literal_header_bytes(text)
    except Unsupported as exc:
        reader.error(
            "value.literal",
            f"value.literal '{literal}' holds {exc}: pipec cannot reproduce the header bytes Kafka writes for it",
            "write the value you want in the header some other way (for example without a fraction or exponent)",
            code="E800",
        )
        return None
    return InsertHeaderConfig(header, value)


def lower_insert_header(cfg: InsertHeaderConfig, shape: Shape, low: Lowering) -> tuple[ir.Op, ...]:
    value = ir.Lit(cfg.value) if cfg.value is not None else ir.Null("BINARY")
    return (ir.SetColumns((("headers", append_headers([header_entry(cfg.header, value)])),)),)


INSERT_HEADER = TransformSpec(
    name="InsertHeader",
    purpose="header insertion",
    doc="Append a header with a literal value, typed as Kafka's `Values.parseString` types it and written as "
    "SimpleHeaderConverter writes it (`1.50` becomes `1.5`, `null` a null value). Existing headers with the key are kept.",
    keys=(
        ConfigKey("header", "STRING", None, "The header key.", required=True, names=HEADER_WRITTEN),
        ConfigKey(
            "value.literal",
            "STRING",
            None,
            "The literal value, typed as Kafka's Values.parseString types it (1 an INT8, true a BOOLEAN, a date, an "
            "array, a map, else a STRING) from its text as written (an unquoted 0777 is the number 777).",
            required=True,
        ),
    ),
    parse=parse_insert_header,
    infer=lambda cfg, shape, ctx: shape.with_headers(added=(cfg.header,)),
    lower=lower_insert_header,
    lineage=lambda cfg, side, before: {header(cfg.header): Move(None)},  # a literal
    describe=lambda cfg, side: f"adds the header {cfg.header}",
    sides=False,
    example="- name: mark_source\n  type: InsertHeader\n  header: source\n  value.literal: web",
    differences=(
        "The header value is the bytes Kafka's SimpleHeaderConverter would write, computed at compile time; "
        "a literal whose text depends on the Java version (a float with no fraction of 10^7 or more, which Java 17 "
        "writes differently from Java 19+), a date before 1583 or a date field Java's number parser reads oddly "
        "is a compile error.",
        "Dates in the literal are read in UTC (Kafka uses the worker's time zone).",
    ),
)


# ---------------------------------------------------------------- DropHeaders


@dataclass(frozen=True, slots=True)
class DropHeadersConfig:
    keys: tuple[str, ...]


def parse_drop_headers(reader: ConfigReader) -> DropHeadersConfig | None:
    keys = reader.items("headers")
    if not keys:
        reader.error(
            "headers" if reader.has("headers") else None,
            "'headers' must list at least one header key",
            "list the header keys: headers: [a, b]",
            code="E801",
        )
        return None
    return DropHeadersConfig(tuple(dict.fromkeys(keys)))


def lower_drop_headers(cfg: DropHeadersConfig, shape: Shape, low: Lowering) -> tuple[ir.Op, ...]:
    listed = ir.Method(ir.Get(ir.Var("h"), "key"), "isin", tuple(ir.Lit(k) for k in cfg.keys))
    return (ir.SetColumns((("headers", ir.Func("filter", (ir.Col("headers"), ir.Lambda("h", ir.Not(listed))))),)),)


DROP_HEADERS = TransformSpec(
    name="DropHeaders",
    purpose="header removal",
    doc="Remove every header whose key is listed, keeping the order of the others; keys not present are ignored.",
    keys=(
        ConfigKey(
            "headers",
            "LIST",
            None,
            "The header keys to remove; keys not present are ignored.",
            required=True,
            nonempty=True,
            names=HEADER_READ,
        ),
    ),
    parse=parse_drop_headers,
    infer=lambda cfg, shape, ctx: shape.with_headers(dropped=tuple(cfg.keys)),
    lower=lower_drop_headers,
    lineage=lambda cfg, side, before: {header(key): Move(None) for key in cfg.keys},  # gone
    describe=lambda cfg, side: "drops the headers " + names(cfg.keys),
    sides=False,
    example="- name: no_debug\n  type: DropHeaders\n  headers: [debug, trace-id]",
)


# ---------------------------------------------------------------- HeaderFrom


@dataclass(frozen=True, slots=True)
class HeaderFromConfig:
    pairs: tuple[tuple[FieldPath, str], ...]  # (field, header), in configured order
    operation: str  # copy | move


def parse_header_from(reader: ConfigReader) -> HeaderFromConfig | None:
    reader.boolean("replace.null.with.default", True)
    version = read_syntax(reader)
    fields, headers = reader.items("fields"), reader.items("headers")
    for key, items in (("fields", fields), ("headers", headers)):
        if not items:
            reader.error(
                key if reader.has(key) else None,
                f"'{key}' must list at least one entry",
                f"list them: {key}: [a, b], one header for each field",
                code="E801",
            )
    if fields and headers and len(fields) != len(headers):
        reader.error(
            "headers",
            f"'fields' config must have the same number of elements as 'headers' config ({len(fields)} fields, {len(headers)} headers)",
            "list one header key for each field, in the same order",
            code="E802",
        )
        return None
    if not reader.has("operation"):
        reader.error(None, "'operation' is required (move or copy)", "add operation: copy (or move)", code="E301")
    operation = reader.enum("operation", ("move", "copy"), "copy")
    paths = [read_path(reader, "fields", text, version) for text in fields]
    if not fields or not headers or None in paths:
        return None
    return HeaderFromConfig(tuple(zip(paths, headers)), operation)


def _moved(cfg: HeaderFromConfig) -> list[tuple[str, ...]]:
    """The distinct paths a move removes, leaving out any path inside another moved one."""
    steps = list(dict.fromkeys(p.steps for p, _ in cfg.pairs))
    return [s for s in steps if not any(len(o) < len(s) and s[: len(o)] == o for o in steps)]


def infer_header_from(cfg: HeaderFromConfig, shape: Shape, ctx: Context) -> Shape:
    t = require_struct(shape.side(ctx.side), ctx, ctx.side)
    if t is None:
        return shape
    before = len(ctx.diags.errors)
    for path, _ in cfg.pairs:
        require_field(t, path.steps, ctx, "fields", ctx.side)
    if len(ctx.diags.errors) > before:
        return shape
    shape = shape.with_headers(added=tuple(header for _, header in cfg.pairs))
    if cfg.operation == "copy":
        return shape
    out = t
    for steps in _moved(cfg):
        out = struct_with(out, steps, None)  # a struct left with no fields stays, empty, as in Kafka
    return shape.with_side(ctx.side, out)


def _emptied(cfg: HeaderFromConfig, t: StructType) -> list[tuple[str, ...]]:
    """The structs (paths; () for the key or value itself) a move leaves with no fields, outermost first."""
    out = t
    for steps in _moved(cfg):
        out = struct_with(out, steps, None)
    parents = dict.fromkeys(steps[:-1] for steps in _moved(cfg))
    return sorted((p for p in parents if not type_at(out, p).fields), key=len)


def _without_moved(cfg: HeaderFromConfig, t: StructType, col: ir.Expr) -> ir.Expr:
    """The key or value without the moved fields. Spark's dropFields cannot drop a struct's last field, so a struct
    the move empties is replaced by an empty one (`F.struct()`, null where it was null) and its fields not dropped."""
    emptied = _emptied(cfg, t)
    if () in emptied:
        return ir.NullSafe(col, ir.Struct(()))
    dropped = [s for s in _moved(cfg) if s[:-1] not in emptied]
    edited = ir.Method(col, "dropFields", tuple(ir.Arg(spark_field_path(s)) for s in dropped)) if dropped else col
    for path in emptied:
        edited = ir.Method(
            edited, "withField", (ir.Arg(spark_field_path(path)), ir.NullSafe(get_expr(col, path), ir.Struct(())))
        )
    return edited


def lower_header_from(cfg: HeaderFromConfig, shape: Shape, low: Lowering) -> tuple[ir.Op, ...]:
    t = shape.side(low.side)
    assert isinstance(t, StructType)
    col = low.col
    entries = []
    for path, header_name in cfg.pairs:
        field_type = t
        for step in path.steps:
            field_type = field_type.field(step).type
        entries.append(header_entry(header_name, header_bytes(get_expr(col, path.steps), field_type)))
    reason = f"Only Struct objects supported for [header {cfg.operation}], found: null"
    edited = _without_moved(cfg, t, col) if cfg.operation == "move" else col
    return (
        ir.SetColumns(
            (
                ("headers", low.fail_if(ir.IsNull(col), reason, append_headers(entries))),
                (low.side, low.fail_if(ir.IsNull(col), reason, edited)),
            )
        ),
    )


HEADER_FROM = TransformSpec(
    name="HeaderFrom",
    purpose="header copy",
    doc="Copy or move fields of the key or value into headers: `fields[i]` goes to header `headers[i]`, appended "
    "after the existing headers, written as SimpleHeaderConverter writes the field's value. A null key or value "
    "is a record error, as in Kafka.",
    keys=(
        ConfigKey(
            "fields",
            "LIST",
            None,
            "The fields to read, one per entry of `headers`.",
            required=True,
            nonempty=True,
            names=READ_FIELDS,
        ),
        ConfigKey(
            "headers",
            "LIST",
            None,
            "The header keys, as many as `fields`; the headers are appended.",
            required=True,
            nonempty=True,
            names=HEADER_WRITTEN,
        ),
        ConfigKey(
            "operation",
            "STRING",
            None,
            "`copy` keeps the fields, `move` removes them.",
            ("move", "copy"),
            required=True,
        ),
        SYNTAX_KEY,
        NULL_DEFAULT_KEY,
    ),
    parse=parse_header_from,
    infer=infer_header_from,
    lower=lower_header_from,
    lineage=lambda cfg, side, before: {header(key): Move((side, path.steps)) for path, key in cfg.pairs},
    describe=lambda cfg, side: (
        ("copies " if cfg.operation == "copy" else "moves ")
        + names(f"{f.text} to the header {h}" for f, h in cfg.pairs)
    ),
    example="- name: trace_to_header\n  type: HeaderFrom$Value\n  fields: [trace_id]\n  headers: [trace-id]\n  operation: move",
    differences=(
        "A field the tracked schema lacks is a compile error (Kafka throws a NullPointerException per record).",
        "Nested paths (field.syntax.version: V2) are supported, as KIP-821 describes for HeaderFrom.",
        "Map entries are written in Spark's map order; dates and timestamps in UTC (Kafka uses the worker's time zone); "
        "floats as the Spark JVM's Float/Double.toString.",
    ),
)
SPECS = (INSERT_HEADER, DROP_HEADERS, HEADER_FROM)
