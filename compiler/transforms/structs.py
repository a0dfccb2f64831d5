"""Struct access and edits shared by the field transforms: one place for paths over types and columns."""

from __future__ import annotations

from .. import ir
from ..diagnostics import did_you_mean
from ..types.sql import SqlType, StructField, StructType, quote_name
from .base import Context


def spark_field_path(steps: tuple[str, ...]) -> str:
    """A path string for Spark's `withField`/`dropFields`: each step backtick-quoted unless plain."""
    return ".".join(quote_name(s) for s in steps)


def get_expr(base: ir.Expr, steps: tuple[str, ...]) -> ir.Expr:
    """The Column at a nested path, by literal names (`getField`, never path parsing)."""
    for step in steps:
        base = ir.Get(base, step)
    return base


def type_at(t: SqlType | None, steps: tuple[str, ...]) -> SqlType | None:
    """The type at a nested path, or None when some step is missing or not a struct."""
    for step in steps:
        if not isinstance(t, StructType):
            return None
        f = t.field(step)
        if f is None:
            return None
        t = f.type
    return t


def require_struct(t: SqlType | None, ctx: Context, what: str) -> StructType | None:
    """Kafka's requireStruct: the operating key/value must be a struct, known at compile time here."""
    if isinstance(t, StructType):
        return t
    shown = t.sql() if t is not None else "always null"
    hint = (
        "declare key fields at the source, or set a key first (ValueToKey)"
        if t is None
        else f"make the {what} a struct first (HoistField), or use a step that takes a {shown}"
    )
    ctx.error(None, f"needs a struct {what}, but the {what} here is {shown}", hint, code="E401")
    return None


def require_field(
    t: StructType, steps: tuple[str, ...], ctx: Context, key: str, side: str, item: str | None = None
) -> SqlType | None:
    """The type at `steps`, or an error naming the missing step and the fields that exist there.

    `item` is the configured text of the path when `key` is a LIST, so the error points at that item."""
    current: SqlType = t
    for i, step in enumerate(steps):
        if not isinstance(current, StructType):
            where = ".".join(steps[:i])
            ctx.error(
                key,
                f"'{where}' in the {side} is {current.sql()}, not a struct, so it has no field '{step}'",
                f"name '{where}' itself, or a field of a struct",
                code="E402",
                item=item,
            )
            return None
        f = current.field(step)
        if f is None:
            where = f"'{'.'.join(steps[:i])}' of the {side}" if i else f"the {side}"
            names = ", ".join(current.names()) or "(none)"
            ctx.error(
                key,
                f"field '{'.'.join(steps)}' does not exist in {where}; fields there: {names}",
                did_you_mean(step, current.names()) or "name a field that is there (explain shows each step's fields)",
                code="E402",
                item=item,
            )
            return None
        current = f.type
    return current


def struct_with(t: StructType, steps: tuple[str, ...], new: SqlType | None) -> StructType:
    """`t` with the field at `steps` replaced (kept in place), appended (missing; parents created), or removed (new is None)."""
    head, rest = steps[0], steps[1:]
    existing = t.field(head)
    if rest:
        inner = existing.type if existing and isinstance(existing.type, StructType) else StructType(())
        child = struct_with(inner, rest, new)
        return t.replace(head, child) if existing else t.append(StructField(head, child))
    if new is None:
        return t.without(head)
    return t.replace(head, new) if existing else t.append(StructField(head, new))


def conform(expr: ir.Expr, old: SqlType | None, new: SqlType | None) -> ir.Expr | None:
    """`expr` (of type `old`) reshaped to type `new`: struct fields matched by name, fields `old` lacks null,
    fields `new` lacks dropped. None when no such reshaping exists (e.g. a struct that became a primitive, or always null).

    A step with a predicate leaves the records it skips as they were, but a column has one type: those records
    are carried in the step's output type this way."""
    if old == new:
        return expr
    if new is None:  # an always-null column cannot carry the records that keep a value
        return None
    if old is None:
        return ir.Null(new.ddl())
    if not (isinstance(old, StructType) and isinstance(new, StructType)):
        return None
    fields = []
    for f in new.fields:
        before = old.field(f.name)
        if before is None:
            fields.append((f.name, ir.Null(f.type.ddl())))
            continue
        inner = conform(ir.Get(expr, f.name), before.type, f.type)
        if inner is None:
            return None
        fields.append((f.name, inner))
    return ir.NullSafe(expr, ir.Struct(tuple(fields)))
