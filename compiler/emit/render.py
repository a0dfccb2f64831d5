"""IR -> Python source text, through one table of render functions and one escaping function."""

from __future__ import annotations

import math
from typing import Callable

from .. import ir
from . import subexpressions
from ..envrefs import Text
from .format.printer import syntax as S
from ..types.sql import quote_name

# The functions and Column methods generated code may call. Every one is a native Spark expression.
SPARK_FUNCTIONS = frozenset(
    {
        "array", "base64", "substring", "unhex", "create_map", "from_csv", "map_entries", "to_csv", "regexp_extract", "coalesce", "col", "concat", "date_format", "exists", "filter", "from_json",
        "lit", "regexp_replace", "struct", "to_json", "try_element_at", "unix_millis", "when",
        "array_contains", "transform", "size", "length", "timestamp_millis", "current_timestamp",
        "unbase64", "element_at", "map_from_entries", "raise_error", "concat_ws", "format_string",
        "when",
        "array_join", "replace", "spark_partition_id",
        "shiftleft", "shiftright", "isnan", "ceil", "floor", "pmod", "unix_date", "lower", "is_valid_utf8", "hex", "conv", "substring", "pow", "greatest", "abs", "try_to_timestamp", "try_divide",
        "explode_outer", "arrays_zip", "flatten", "map_contains_key",
        "monotonically_increasing_id", "map_from_arrays", "map_keys", "map_values",
    }
)
COLUMN_METHODS = frozenset(
    {"alias", "cast", "getField", "isNull", "isNotNull", "rlike", "isin", "withField", "dropFields", "startswith", "try_cast"}
)


def literal(value: object) -> S.Node:
    """The one path by which a value from YAML becomes Python source: an exact, valid literal."""
    if value is None or isinstance(value, bool):
        return S.Name(repr(value))
    if isinstance(value, float):
        if math.isnan(value):
            return S.Call(S.Name("float"), [S.String('"nan"')])
        if math.isinf(value):
            return S.Call(S.Name("float"), [S.String('"inf"' if value > 0 else '"-inf"')])
    if isinstance(value, (int, float)):
        text = repr(value)
        return S.Unary("-", S.Number(text[1:])) if text.startswith("-") else S.Number(text)
    if isinstance(value, (str, bytes)):
        return S.String(repr(value))
    if isinstance(value, (tuple, list)):
        return S.List([literal(v) for v in value])
    if isinstance(value, dict):
        return S.Dict([(literal(k), literal(v)) for k, v in value.items()])
    raise TypeError(f"no literal form for {type(value).__name__}")


def py_literal(value: object) -> str:
    """`literal` as text."""
    return S.source(literal(value))


def comment_text(text: str) -> str:
    """Text safe after '# ' on one line: whitespace runs (newlines included) become one space,
    non-printable characters '?'."""
    if not text.isprintable():
        text = "".join(c if c.isprintable() or c.isspace() else "?" for c in text)
    return " ".join(text.split())


def doc_text(text: str) -> str:
    """`comment_text` as the source of a triple-quoted docstring: backslashes and double quotes are escaped, so
    the docstring's value (and `--help`, which prints its first line) holds them exactly and none can end it."""
    return comment_text(text).replace("\\", "\\\\").replace('"', '\\"')


# spark-avro's functions live in their own module, imported by jobs that use them as `A`.
AVRO_FUNCTIONS = frozenset({"from_avro", "to_avro"})


def _f(module: str, name: str, args) -> S.Node:
    return S.Call(S.Attr(S.Name(module), name), list(args))


def _m(target: S.Node, name: str, *args: S.Node) -> S.Node:
    return S.Call(S.Attr(target, name), list(args))


# Column functions of the job's runtime (fixed code): Avro through a Schema Registry, whose answers at start shape
# the native expressions they return (from_avro per writer schema, to_avro behind the registered id).
JOB_COLUMN_FUNCTIONS = frozenset({"from_registry", "schema_rejected", "to_registry"})


def _call(name: str, args: tuple[ir.Expr, ...]) -> S.Node:
    if name in AVRO_FUNCTIONS:
        return _f("A", name, (tree(a) for a in args))
    if name in JOB_COLUMN_FUNCTIONS:
        return S.Call(S.Name(name), [tree(a) for a in args])
    if name not in SPARK_FUNCTIONS:
        raise ValueError(f"function {name} is not in the native function table")
    return _f("F", name, (tree(a) for a in args))


def _method(node: ir.Method) -> S.Node:
    if node.name not in COLUMN_METHODS:
        raise ValueError(f"method {node.name} is not in the Column method table")
    return _m(tree(node.target), node.name, *(tree(a) for a in node.args))


def _binop(node: ir.BinOp) -> S.Node:
    if node.op not in {"==", "!=", "&", "|", "<", "<=", ">", ">=", "+", "-", "*"}:
        raise ValueError(f"operator {node.op}")
    return S.Paren(S.BinOp(node.op, tree(node.left), tree(node.right)))


def _alias(name: str, e: ir.Expr) -> S.Node:
    return _m(tree(e), "alias", literal(name))


def _lit(value: object) -> S.Node:
    return _f("F", "lit", (literal(value),))


EXPRESSIONS: dict[type, Callable[..., S.Node]] = {
    ir.Col: lambda n: _f("F", "col", (literal(quote_name(n.name)),)),
    ir.Get: lambda n: _m(tree(n.base), "getField", literal(n.name)),
    ir.Lit: lambda n: _lit(n.value),
    ir.Arg: lambda n: literal(n.value),
    ir.EnvText: lambda n: _f("F", "lit", (S.Call(S.Name("env"), [literal(n.raw)]),)),
    ir.Null: lambda n: _m(_lit(None), "cast", literal(n.ddl)),
    ir.Cast: lambda n: _m(tree(n.expr), "cast", literal(n.ddl)),
    ir.Struct: lambda n: _f("F", "struct", (_alias(name, e) for name, e in n.fields)),
    ir.NullSafe: lambda n: _f("F", "when", (_m(tree(n.base), "isNotNull"), tree(n.rebuilt))),
    ir.If: lambda n: _m(_f("F", "when", (tree(n.cond), tree(n.then))), "otherwise", tree(n.otherwise)),
    ir.Not: lambda n: _m(tree(n.expr.expr), "isNotNull") if isinstance(n.expr, ir.IsNull) else S.Unary("~", tree(n.expr)),
    ir.Field: lambda n: S.Subscript(_side(n.side), literal(n.name)),
    ir.IsNull: lambda n: _m(tree(n.expr), "isNull"),
    ir.BinOp: _binop,
    ir.Var: lambda n: S.Name(n.name),
    ir.Lambda: lambda n: S.Lambda([n.name], tree(n.body)),
    ir.Func: lambda n: _call(n.name, n.args),
    ir.Method: _method,
}


def tree(node: ir.Expr) -> S.Node:
    """The syntax tree of one Column expression."""
    return EXPRESSIONS[type(node)](node)


def expr(node: ir.Expr) -> str:
    """Python text of one Column expression."""
    return S.source(tree(node))


# DataFrame functions the job templates define (fixed code, no YAML text in it) that `ir.Apply` may call, and
# whether each also takes the job's `counts` (to observe the rows it decides not to write).
JOB_FUNCTIONS = {"upsert_table": False, "upsert_fates": True, "numbered_lines": False}

RECORDS = S.Name("records")


def _apply(op: ir.Apply) -> S.Node:
    if op.function not in JOB_FUNCTIONS:
        raise ValueError(f"function {op.function} is not a job template function")
    return S.Call(S.Name(op.function), [RECORDS, S.Name("counts")] if JOB_FUNCTIONS[op.function] else [RECORDS])


def _side(side: str) -> S.Name:
    """The job's Python variable holding the fields of a run of edits of `side` (a fixed name, never YAML text)."""
    if side not in ("key", "value"):
        raise ValueError(f"no record side {side}")
    return S.Name(side)


def _fields(fields: tuple[tuple[str, ir.Expr], ...]) -> list:
    return [(literal(n), tree(e)) for n, e in fields]


# A DataFrame operation is `records = ...`; the statements of a run of struct edits (compiler/lower/fusion.py) set
# the run's dict of named field Columns.
OPERATIONS: dict[type, Callable[..., S.Statement]] = {
    ir.Apply: lambda op: S.assign(RECORDS, _apply(op)),
    ir.SetColumns: lambda op: S.assign(RECORDS, _m(RECORDS, "withColumns", S.Dict(_fields(op.columns)))),
    ir.Where: lambda op: S.assign(RECORDS, _m(RECORDS, "where", tree(op.cond))),
    ir.Select: lambda op: S.assign(RECORDS, _m(RECORDS, "select", *(_alias(n, e) for n, e in op.columns))),
    ir.NewFields: lambda op: S.assign(_side(op.side), S.Dict(_fields(op.fields))),
    ir.SetFields: lambda op: S.assign(_side(op.side), S.Dict([S.DoubleStar(_side(op.side)), *_fields(op.fields)])),
    ir.DropField: lambda op: S.Statement(_m(_side(op.side), "pop", literal(op.name))),
    ir.OnNull: lambda op: S.assign(S.Name(f"{_side(op.side).text}_if_null"), tree(op.value)),
}


def statement(op: ir.Op) -> S.Statement:
    """The Python statement of an operation."""
    return OPERATIONS[type(op)](op)


def op_statements(op: ir.Op) -> list[S.Statement]:
    """The statements of an operation: the locals of the subexpressions it repeats (compiler/emit/subexpressions.py), then
    the operation itself."""
    shared, op = subexpressions.hoist(op)
    return [S.assign(S.Name(name), tree(value)) for name, value in shared] + [statement(op)]


def block_statements(b: ir.Block) -> tuple[str, list[S.Statement]]:
    """The comment line and the statements of a block."""
    return f"# {comment_text(b.comment)}", [s for op in b.ops for s in op_statements(op)]


def block(b: ir.Block) -> list[str]:
    """Comment line plus statements."""
    comment, statements = block_statements(b)
    return [comment, *(S.source(s) for s in statements)]


def text_expr(text: Text | None) -> str:
    """Python source for a configured string: `env("...")` when it holds references, else a literal."""
    if text is None:
        return "None"
    return f"env({py_literal(text.raw)})" if text.has_env else py_literal(text.literal)


def path_expr(text: Text | None) -> str:
    """Python source for a configured path: resolved by the job's `location` (absolute under Spark Connect)."""
    return "None" if text is None else f"location({text_expr(text)})"


def dict_expr(items: list[tuple[str, str]]) -> str:
    """A dict display whose values are already Python expressions."""
    return "{" + ", ".join(f"{py_literal(k)}: {v}" for k, v in items) + "}"
