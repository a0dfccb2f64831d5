"""A small typed IR of Spark Column and DataFrame operations, rendered to Python by `render.py`.

Expressions are frozen dataclasses with typed fields; nothing here knows about text.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from .diagnostics import Location

_FIELD_NAMES: dict[type, tuple[str, ...] | None] = {}


def field_names(value: object) -> tuple[str, ...] | None:
    """The field names of a dataclass or dataclass instance, in order (looked up once per class: the walks over
    IR trees ask it of every node); None for anything else."""
    cls = value if isinstance(value, type) else type(value)
    try:
        return _FIELD_NAMES[cls]
    except KeyError:
        names = tuple(f.name for f in fields(cls)) if hasattr(cls, "__dataclass_fields__") else None
        return _FIELD_NAMES.setdefault(cls, names)


class Expr:
    """A Spark Column expression."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Col(Expr):
    """A top-level DataFrame column by name (never parsed as a path)."""

    name: str


@dataclass(frozen=True, slots=True)
class Get(Expr):
    """A struct field by its literal name: `base.getField(name)`."""

    base: Expr
    name: str


@dataclass(frozen=True, slots=True)
class Lit(Expr):
    """A literal of a Python scalar type (str, int, float, bool, bytes)."""

    value: str | int | float | bool | bytes


@dataclass(frozen=True, slots=True)
class Arg(Expr):
    """A plain Python argument, not a Column: a field path for `withField`, a regex for `rlike`, an options dict."""

    value: object


@dataclass(frozen=True, slots=True)
class EnvText(Expr):
    """A string literal resolved from `${env:...}` references when the job runs: `F.lit(env(raw))`."""

    raw: str


@dataclass(frozen=True, slots=True)
class Null(Expr):
    """A typed null: `F.lit(None).cast(ddl)`."""

    ddl: str


@dataclass(frozen=True, slots=True)
class Cast(Expr):
    expr: Expr
    ddl: str


@dataclass(frozen=True, slots=True)
class Struct(Expr):
    """`F.struct(...)` with named fields, in order."""

    fields: tuple[tuple[str, Expr], ...]


@dataclass(frozen=True, slots=True)
class NullSafe(Expr):
    """`base` rebuilt as `rebuilt`, but null where `base` is null (struct edits keep tombstones)."""

    base: Expr
    rebuilt: Expr


@dataclass(frozen=True, slots=True)
class If(Expr):
    cond: Expr
    then: Expr
    otherwise: Expr


@dataclass(frozen=True, slots=True)
class Not(Expr):
    expr: Expr


@dataclass(frozen=True, slots=True)
class IsNull(Expr):
    expr: Expr


@dataclass(frozen=True, slots=True)
class BinOp(Expr):
    """`left op right` for op in ==, !=, &, |, <, <=, >, >=, +, -, *."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Var(Expr):
    """The parameter of the enclosing Lambda."""

    name: str


@dataclass(frozen=True, slots=True)
class Lambda(Expr):
    """`lambda name: body`, for Spark's higher-order functions (native, not a UDF)."""

    name: str
    body: Expr


@dataclass(frozen=True, slots=True)
class Func(Expr):
    """`F.name(*args)`: a function of `pyspark.sql.functions` (checked against `render.SPARK_FUNCTIONS`), spark-avro's
    (`A.name`), or a Column function of the job's runtime (`render.JOB_COLUMN_FUNCTIONS`)."""

    name: str
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Method(Expr):
    """`target.name(*args)`: a Column method (checked against `render.COLUMN_METHODS`)."""

    target: Expr
    name: str
    args: tuple[Expr, ...] = ()


@dataclass(frozen=True, slots=True)
class Field(Expr):
    """A field of the key or value held as a named expression during a run of struct edits (compiler/lower/fusion.py):
    `value["name"]`, a Python dict entry of the job, not a DataFrame column."""

    side: str
    name: str


class Op:
    """A DataFrame operation on `records`, or a statement on the fields of a run of struct edits."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class SetColumns(Op):
    """`records.withColumns({...})`: replace or add top-level columns."""

    columns: tuple[tuple[str, Expr], ...]


@dataclass(frozen=True, slots=True)
class Where(Op):
    """Keep the rows where `cond` is true."""

    cond: Expr


@dataclass(frozen=True, slots=True)
class Select(Op):
    """`records.select(...)`: the new top-level columns, in order."""

    columns: tuple[tuple[str, Expr], ...]


@dataclass(frozen=True, slots=True)
class SelectFields(Op):
    """`records.select(F.col(c).alias(c)).select("c.*")`: the fields of the struct column `column`, in order, as the
    only columns (the alias first, so `c.*` can only name that struct). Two calls to the JVM where a select of each
    field costs three Column methods per field."""

    column: str
    fields: tuple[str, ...]  # the struct's, in order: what `select` would name

    @property
    def columns(self) -> tuple[tuple[str, Expr], ...]:
        """The same columns as a select's: each field by its name."""
        return tuple((name, Get(Col(self.column), name)) for name in self.fields)


@dataclass(frozen=True, slots=True)
class Apply(Op):
    """`records = function(records)`: a DataFrame function of the job's own template (per-key work such as the
    upsert table or the upsert sink's reduction), named from `render.JOB_FUNCTIONS`."""

    function: str


@dataclass(frozen=True, slots=True)
class NewFields(Op):
    """`value = {name: expression, ...}`: the run's fields from now on, in this order (the start of a run of
    struct edits on `side`, or a step that rebuilds the struct: renames, flattening)."""

    side: str
    fields: tuple[tuple[str, Expr], ...]


@dataclass(frozen=True, slots=True)
class SetFields(Op):
    """Replace (in place) or add (at the end) fields of the run, each expression read before any is set."""

    side: str
    fields: tuple[tuple[str, Expr], ...]


@dataclass(frozen=True, slots=True)
class DropField(Op):
    """Remove a field of the run."""

    side: str
    name: str


@dataclass(frozen=True, slots=True)
class OnNull(Op):
    """What the run's `side` becomes where it is null, instead of null (`value_if_null`, read where the run
    builds the struct): the first step that refuses a null side fails the record."""

    side: str
    value: Expr


@dataclass(frozen=True, slots=True)
class Block:
    """Ops with a comment that says where they came from."""

    comment: str
    ops: tuple[Op, ...]
    loc: Location | None = None  # the YAML it lowers (source, step or sink), for errors about the generated code


def columns_read(node: object) -> set[str]:
    """Names of the top-level columns an expression (or op, or tuple of them) reads."""
    if isinstance(node, Col):
        return {node.name}
    if isinstance(node, SelectFields):
        return {node.column}
    if isinstance(node, tuple):
        return set().union(*(columns_read(n) for n in node))
    names = field_names(node)
    if names is not None:
        return set().union(*(columns_read(getattr(node, name)) for name in names))
    return set()


def columns_set(op: Op) -> set[str]:
    """Names of the top-level columns an op sets (a select: all it keeps)."""
    return {n for n, _ in op.columns} if isinstance(op, (SetColumns, Select, SelectFields)) else set()


def reading(node: object, columns: dict[str, Expr]) -> object:
    """`node` with each read of a column in `columns` replaced by that column's expression."""
    if isinstance(node, Col):
        return columns.get(node.name, node)
    if isinstance(node, tuple):
        return tuple(reading(n, columns) for n in node)
    names = field_names(node) if isinstance(node, Expr) else None
    if names is not None:
        return replace(node, **{name: reading(getattr(node, name), columns) for name in names})
    return node


# Spark's generator functions: each row they read yields zero or more rows
GENERATORS = frozenset(
    {"explode", "explode_outer", "posexplode", "posexplode_outer", "inline", "inline_outer", "stack"}
)


def one_row_per_row(node: object) -> bool:
    """Whether ops (a block's, or an expression in them) yield exactly one row for each row they read: no Where, no
    job function (Apply), no generator."""
    if isinstance(node, Block):
        return one_row_per_row(node.ops)
    if isinstance(node, (Where, Apply)) or (isinstance(node, Func) and node.name in GENERATORS):
        return False
    if isinstance(node, tuple):
        return all(one_row_per_row(n) for n in node)
    names = field_names(node)
    return names is None or all(one_row_per_row(getattr(node, name)) for name in names)
