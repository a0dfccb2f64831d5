"""IR -> Python source text, through one table of render functions and one escaping function."""

from __future__ import annotations

import math
from collections.abc import Callable

from .. import ir
from ..envrefs import Text
from ..record_errors import CORRUPT, JSON_NULL
from ..types.sql import quote_name
from . import subexpressions

# The functions and Column methods generated code may call. Every one is a native Spark expression.
SPARK_FUNCTIONS = frozenset(
    {
        "array",
        "base64",
        "substring",
        "unhex",
        "create_map",
        "from_csv",
        "map_entries",
        "to_csv",
        "regexp_extract",
        "coalesce",
        "col",
        "concat",
        "date_format",
        "exists",
        "filter",
        "from_json",
        "lit",
        "regexp_replace",
        "struct",
        "to_json",
        "try_element_at",
        "unix_millis",
        "when",
        "array_contains",
        "transform",
        "size",
        "length",
        "timestamp_millis",
        "current_timestamp",
        "unbase64",
        "element_at",
        "map_from_entries",
        "raise_error",
        "concat_ws",
        "format_string",
        "array_join",
        "replace",
        "spark_partition_id",
        "shiftleft",
        "shiftright",
        "isnan",
        "ceil",
        "floor",
        "pmod",
        "unix_date",
        "lower",
        "is_valid_utf8",
        "hex",
        "conv",
        "pow",
        "greatest",
        "abs",
        "try_to_timestamp",
        "try_divide",
        "explode_outer",
        "arrays_zip",
        "flatten",
        "map_contains_key",
        "monotonically_increasing_id",
        "map_from_arrays",
        "map_keys",
        "map_values",
    }
)
COLUMN_METHODS = frozenset(
    {
        "alias",
        "cast",
        "getField",
        "isNull",
        "isNotNull",
        "rlike",
        "isin",
        "withField",
        "dropFields",
        "startswith",
        "contains",
        "try_cast",
    }
)


def literal(value: object) -> str:
    """The one path by which a value from YAML becomes Python source: an exact, valid literal."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, float):
        if math.isnan(value):
            return 'float("nan")'
        if math.isinf(value):
            return 'float("inf")' if value > 0 else 'float("-inf")'
    if isinstance(value, (int, float, str, bytes)):
        return repr(value)
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no literal form for {type(value).__name__}")


py_literal = literal  # the name the connectors use


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

# Column functions of the job's runtime, each returning native expressions: Avro through a Schema Registry
# (compiler/runtime/schema_registry.py), whose answers at start shape them (from_avro per writer schema, to_avro
# behind the id); a header's last value by its position (compiler/runtime/headers.py).
JOB_COLUMN_FUNCTIONS = frozenset({"from_registry", "schema_rejected", "to_registry", "last_header"})


def _args(args) -> str:
    return ", ".join(tree(a) for a in args)


def _call(name: str, args: tuple[ir.Expr, ...]) -> str:
    if name in AVRO_FUNCTIONS:
        return f"A.{name}({_args(args)})"
    if name in JOB_COLUMN_FUNCTIONS:
        return f"{name}({_args(args)})"
    if name not in SPARK_FUNCTIONS:
        raise ValueError(f"function {name} is not in the native function table")
    return f"F.{name}({_args(args)})"


def _method(node: ir.Method) -> str:
    if node.name not in COLUMN_METHODS:
        raise ValueError(f"method {node.name} is not in the Column method table")
    return f"{tree(node.target)}.{node.name}({_args(node.args)})"


OPERATORS = frozenset({"==", "!=", "&", "|", "<", "<=", ">", ">=", "+", "-", "*"})


def _binop(node: ir.BinOp) -> str:
    """In parentheses: Column operators bind as Python's do, not as SQL's."""
    return f"({_bare_binop(node)})"


def _bare_binop(node: ir.BinOp) -> str:
    if node.op not in OPERATORS:
        raise ValueError(f"operator {node.op}")
    return f"{tree(node.left)} {node.op} {tree(node.right)}"


def _lambda(node: ir.Lambda) -> str:
    """A lambda's body needs no parentheses of its own (black keeps them where written, ruff drops them)."""
    body = _bare_binop(node.body) if isinstance(node.body, ir.BinOp) else tree(node.body)
    return f"lambda {node.name}: {body}"


def _alias(name: str, e: ir.Expr) -> str:
    return f"{tree(e)}.alias({literal(name)})"


def _kept(name: str, e: ir.Expr) -> str:
    """A column of a select: a column kept under its own name is written as its name, which Spark reads as the same
    `F.col` (one call to the JVM where `F.col(...).alias(...)` costs about thirty: PySpark records the Python
    call site of every Column method)."""
    return literal(quote_name(name)) if e == ir.Col(name) else _alias(name, e)


EXPRESSIONS: dict[type, Callable[..., str]] = {
    ir.Col: lambda n: f"F.col({literal(quote_name(n.name))})",
    ir.Get: lambda n: f"{tree(n.base)}.getField({literal(n.name)})",
    ir.Lit: lambda n: f"F.lit({literal(n.value)})",
    ir.Arg: lambda n: literal(n.value),
    ir.EnvText: lambda n: f"F.lit(env({literal(n.raw)}))",
    ir.Null: lambda n: f"F.lit(None).cast({literal(n.ddl)})",
    ir.Cast: lambda n: f"{tree(n.expr)}.cast({literal(n.ddl)})",
    ir.Struct: lambda n: f"F.struct({', '.join(_alias(name, e) for name, e in n.fields)})",
    ir.NullSafe: lambda n: f"F.when({tree(n.base)}.isNotNull(), {tree(n.rebuilt)})",
    ir.If: lambda n: f"F.when({tree(n.cond)}, {tree(n.then)}).otherwise({tree(n.otherwise)})",
    ir.Not: lambda n: f"{tree(n.expr.expr)}.isNotNull()" if isinstance(n.expr, ir.IsNull) else f"~{tree(n.expr)}",
    ir.Field: lambda n: f"{_side(n.side)}[{literal(n.name)}]",
    ir.IsNull: lambda n: f"{tree(n.expr)}.isNull()",
    ir.BinOp: _binop,
    ir.Var: lambda n: n.name,
    ir.Lambda: _lambda,
    ir.Func: lambda n: _call(n.name, n.args),
    ir.Method: _method,
}


# Expressions decoding and record errors repeat, written as calls of the short helpers that build the same Columns
# (compiler/runtime/headers.py): (node type, matcher) -> the call's text, or None where the node is not the idiom.
POSITIONED = " (topic %s, partition %s, offset %s)"
WHERE = (ir.Col("topic"), ir.Col("partition"), ir.Col("offset"))
PERMISSIVE = {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": CORRUPT}


def _record_error(n: ir.Func) -> str | None:
    if (
        n.name != "raise_error"
        or len(n.args) != 1
        or not isinstance(n.args[0], ir.Func)
        or n.args[0].name != "format_string"
    ):
        return None
    message, *where = n.args[0].args
    if tuple(where) != WHERE or not isinstance(message, ir.Arg) or not str(message.value).endswith(POSITIONED):
        return None
    return f"record_error({literal(message.value[: -len(POSITIONED)])})"


def _parsed_json(n: ir.Func) -> str | None:
    if (
        n.name != "from_json"
        or len(n.args) != 3
        or n.args[2] != ir.Arg(PERMISSIVE)
        or not isinstance(n.args[1], ir.Arg)
    ):
        return None
    text = n.args[0]
    if not (isinstance(text, ir.Cast) and text.ddl == "STRING"):
        return None
    return f"parsed_json({tree(text.expr)}, {literal(n.args[1].value)})"


def _corrupt_of(cond: ir.Expr) -> ir.Expr | None:
    """X where `cond` is X's CORRUPT field being set."""
    if isinstance(cond, ir.Not) and isinstance(cond.expr, ir.IsNull):
        get = cond.expr.expr
        if isinstance(get, ir.Get) and get.name == CORRUPT:
            return get.base
    return None


def _unless_corrupt(n: ir.If) -> str | None:
    parsed = _corrupt_of(n.cond)
    if parsed is None or n.otherwise != parsed:
        return None
    then = n.then
    null = ir.Method(ir.Get(parsed, CORRUPT), "rlike", (ir.Arg(JSON_NULL),))
    if isinstance(then, ir.If) and then.cond == null and then.then == ir.Func("lit", (ir.Arg(None),)):
        return f"null_unless_corrupt({tree(parsed)}, {tree(then.otherwise)})"
    return f"unless_corrupt({tree(parsed)}, {tree(then)})"


IDIOMS: dict[type, tuple[Callable[..., str | None], ...]] = {
    ir.Func: (_record_error, _parsed_json),
    ir.If: (_unless_corrupt,),
}


def tree(node: ir.Expr) -> str:
    """Python text of one Column expression, on one line (the formatter lays it out)."""
    for idiom in IDIOMS.get(type(node), ()):
        if (named := idiom(node)) is not None:
            return named
    return EXPRESSIONS[type(node)](node)


expr = tree


# DataFrame functions of the job's runtime (compiler/runtime/) that `ir.Apply` may call, and whether each also takes
# the job's `counts` (to observe the rows it decides not to write).
JOB_FUNCTIONS = {"upsert_table": False, "decodable_upsert_table": False, "upsert_fates": True, "numbered_lines": False}


def _apply(op: ir.Apply) -> str:
    if op.function not in JOB_FUNCTIONS:
        raise ValueError(f"function {op.function} is not a job runtime function")
    return f"{op.function}(records, counts)" if JOB_FUNCTIONS[op.function] else f"{op.function}(records)"


def _side(side: str) -> str:
    """The job's Python variable holding the fields of a run of edits of `side` (a fixed name, never YAML text)."""
    if side not in ("key", "value"):
        raise ValueError(f"no record side {side}")
    return side


def _fields(fields: tuple[tuple[str, ir.Expr], ...]) -> str:
    return ", ".join(f"{literal(n)}: {tree(e)}" for n, e in fields)


# A DataFrame operation is `records = ...`; the statements of a run of struct edits (compiler/lower/fusion.py) set
# the run's dict of named field Columns.
OPERATIONS: dict[type, Callable[..., str]] = {
    ir.Apply: lambda op: f"records = {_apply(op)}",
    ir.SetColumns: lambda op: f"records = records.withColumns({{{_fields(op.columns)}}})",
    ir.Where: lambda op: f"records = records.where({tree(op.cond)})",
    ir.Select: lambda op: f"records = records.select({', '.join(_kept(n, e) for n, e in op.columns)})",
    ir.SelectFields: lambda op: (
        f"records = records.select({_alias(op.column, ir.Col(op.column))}).select({literal(quote_name(op.column) + '.*')})"
    ),
    ir.NewFields: lambda op: f"{_side(op.side)} = {{{_fields(op.fields)}}}",
    ir.SetFields: lambda op: f"{_side(op.side)} = {{**{_side(op.side)}, {_fields(op.fields)}}}",
    ir.DropField: lambda op: f"{_side(op.side)}.pop({literal(op.name)})",
    ir.OnNull: lambda op: f"{_side(op.side)}_if_null = {tree(op.value)}",
}


def statement(op: ir.Op) -> str:
    """The Python statement of an operation, on one line."""
    return OPERATIONS[type(op)](op)


def op_statements(op: ir.Op) -> list[str]:
    """The statements of an operation: the locals of the subexpressions it repeats (compiler/emit/subexpressions.py),
    then the operation itself."""
    shared, op = subexpressions.hoist(op)
    return [f"{name} = {tree(value)}" for name, value in shared] + [statement(op)]


def block(b: ir.Block) -> list[str]:
    """Comment line plus statements."""
    return [f"# {comment_text(b.comment)}", *(s for op in b.ops for s in op_statements(op))]


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


def block_lines(b: ir.Block) -> list[str]:
    """`block`, for a template line indented into a function."""
    return block(b)
