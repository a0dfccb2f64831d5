"""IR -> Python source text, through one table of render functions and one escaping function."""

from __future__ import annotations

import math
from typing import Callable

from . import ir
from .types import quote_name

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


def py_literal(value: object) -> str:
    """The one path by which a value from YAML becomes Python source: an exact, valid literal."""
    if value is None or isinstance(value, (bool, int)):
        return repr(value)
    if isinstance(value, float):
        if math.isnan(value):
            return 'float("nan")'
        if math.isinf(value):
            return 'float("inf")' if value > 0 else 'float("-inf")'
        return repr(value)
    if isinstance(value, (str, bytes)):
        return repr(value)
    if isinstance(value, (tuple, list)):
        inner = ", ".join(py_literal(v) for v in value)
        return f"[{inner}]"
    if isinstance(value, dict):
        inner = ", ".join(f"{py_literal(k)}: {py_literal(v)}" for k, v in value.items())
        return "{" + inner + "}"
    raise TypeError(f"no literal form for {type(value).__name__}")


def comment_text(text: str) -> str:
    """Text safe after '# ' on one line: whitespace runs (newlines included) become one space,
    non-printable characters '?'."""
    text = "".join(c if c.isprintable() or c.isspace() else "?" for c in text)
    return " ".join(text.split())


def doc_text(text: str) -> str:
    """`comment_text` as the source of a triple-quoted docstring: backslashes and double quotes are escaped, so
    the docstring's value (and `--help`, which prints its first line) holds them exactly and none can end it."""
    return comment_text(text).replace("\\", "\\\\").replace('"', '\\"')


# spark-avro's functions live in their own module, imported by jobs that use them as `A`.
AVRO_FUNCTIONS = frozenset({"from_avro", "to_avro"})


def _call(name: str, args: tuple[ir.Expr, ...]) -> str:
    if name in AVRO_FUNCTIONS:
        return f"A.{name}({', '.join(expr(a) for a in args)})"
    if name not in SPARK_FUNCTIONS:
        raise ValueError(f"function {name} is not in the native function table")
    return f"F.{name}({', '.join(expr(a) for a in args)})"


def _method(node: ir.Method) -> str:
    if node.name not in COLUMN_METHODS:
        raise ValueError(f"method {node.name} is not in the Column method table")
    return f"{expr(node.target)}.{node.name}({', '.join(expr(a) for a in node.args)})"


def _binop(node: ir.BinOp) -> str:
    if node.op not in {"==", "!=", "&", "|", "<", "<=", ">", ">=", "+", "-", "*"}:
        raise ValueError(f"operator {node.op}")
    return f"({expr(node.left)} {node.op} {expr(node.right)})"


def _struct(node: ir.Struct) -> str:
    parts = ", ".join(f"{expr(e)}.alias({py_literal(n)})" for n, e in node.fields)
    return f"F.struct({parts})"


def _lit(node: ir.Lit) -> str:
    return f"F.lit({py_literal(node.value)})"


EXPRESSIONS: dict[type, Callable] = {
    ir.Col: lambda n: f"F.col({py_literal(quote_name(n.name))})",
    ir.Get: lambda n: f"{expr(n.base)}.getField({py_literal(n.name)})",
    ir.Lit: _lit,
    ir.Arg: lambda n: py_literal(n.value),
    ir.EnvText: lambda n: f"F.lit(env({py_literal(n.raw)}))",
    ir.Null: lambda n: f"F.lit(None).cast({py_literal(n.ddl)})",
    ir.Cast: lambda n: f"{expr(n.expr)}.cast({py_literal(n.ddl)})",
    ir.Struct: _struct,
    ir.NullSafe: lambda n: f"F.when({expr(n.base)}.isNotNull(), {expr(n.rebuilt)})",
    ir.If: lambda n: f"F.when({expr(n.cond)}, {expr(n.then)}).otherwise({expr(n.otherwise)})",
    ir.Not: lambda n: f"~{expr(n.expr)}",
    ir.IsNull: lambda n: f"{expr(n.expr)}.isNull()",
    ir.BinOp: _binop,
    ir.Var: lambda n: n.name,
    ir.Lambda: lambda n: f"lambda {n.name}: {expr(n.body)}",
    ir.Func: lambda n: _call(n.name, n.args),
    ir.Method: _method,
}


def expr(node: ir.Expr) -> str:
    """Python text of one Column expression."""
    return EXPRESSIONS[type(node)](node)


def _columns_dict(columns: tuple[tuple[str, ir.Expr], ...]) -> str:
    return "{" + ", ".join(f"{py_literal(n)}: {expr(e)}" for n, e in columns) + "}"


# DataFrame functions the job templates define (fixed code, no YAML text in it) that `ir.Apply` may call, and
# whether each also takes the job's `counts` (to observe the rows it decides not to write).
JOB_FUNCTIONS = {"upsert_table": False, "upsert_fates": True}


def _apply(op: ir.Apply) -> str:
    if op.function not in JOB_FUNCTIONS:
        raise ValueError(f"function {op.function} is not a job template function")
    return f"records = {op.function}(records{', counts' if JOB_FUNCTIONS[op.function] else ''})"


OPERATIONS: dict[type, Callable] = {
    ir.Apply: _apply,
    ir.SetColumns: lambda op: f"records = records.withColumns({_columns_dict(op.columns)})",
    ir.Where: lambda op: f"records = records.where({expr(op.cond)})",
    ir.Select: lambda op: "records = records.select("
    + ", ".join(f"{expr(e)}.alias({py_literal(n)})" for n, e in op.columns)
    + ")",
}


def operation(op: ir.Op) -> str:
    """One Python statement for a DataFrame operation."""
    return OPERATIONS[type(op)](op)


def block(b: ir.Block) -> list[str]:
    """Comment line plus statements."""
    return [f"# {comment_text(b.comment)}", *(operation(op) for op in b.ops)]
