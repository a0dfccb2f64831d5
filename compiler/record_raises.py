"""Where a lowered expression raises a record error (`raise_error`), for record_errors.py: `error_of` gives the
message a row fails with, following Spark's lazy evaluation of when/coalesce branches, and `without_raises` the
expression with every record error reading as null."""

from __future__ import annotations

from dataclasses import replace

from . import ir

NULL = ir.Func("lit", (ir.Arg(None),))  # what a record error reads as under tolerance: all


def _is_raise(node: object) -> bool:
    return isinstance(node, ir.Func) and node.name == "raise_error"


def coalesce(parts: list[ir.Expr | None]) -> ir.Expr | None:
    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else ir.Func("coalesce", tuple(parts))


def when(cond: ir.Expr, then: ir.Expr | None, otherwise: ir.Expr | None = None, ddl: str = "STRING") -> ir.Expr | None:
    """when(cond, then).otherwise(otherwise), a null of `ddl` standing for a missing branch."""
    if then is None and otherwise is None:
        return None
    return ir.If(cond, then or ir.Null(ddl), otherwise or ir.Null(ddl))


def error_of(node: ir.Expr) -> ir.Expr | None:
    """The message (a STRING expression) of the record error evaluating `node` raises for a row, null for rows it
    does not fail; None when `node` never raises. Follows Spark's lazy evaluation of when/coalesce branches."""
    if _is_raise(node):
        return coalesce([error_of(node.args[0]), node.args[0]])
    if isinstance(node, ir.If):
        return coalesce([error_of(node.cond), when(node.cond, error_of(node.then), error_of(node.otherwise))])
    if isinstance(node, ir.NullSafe):
        inner = error_of(node.rebuilt)
        return coalesce([error_of(node.base), inner and when(ir.Not(ir.IsNull(node.base)), inner)])
    if isinstance(node, ir.Func) and node.name == "coalesce":
        parts, before = [], []
        for arg in node.args:
            err = error_of(arg)
            if err is not None:
                parts.append(err if not before else when(_all_null(before), err))
            before.append(arg)
        return coalesce(parts)
    if isinstance(node, ir.Func) and any(isinstance(a, ir.Lambda) for a in node.args):
        return _lambda_error(node)
    children = [getattr(node, f) for f in ir.field_names(node) or ()]
    parts: list[ir.Expr | None] = []
    for child in children:
        for item in child if isinstance(child, tuple) else (child,):
            if isinstance(item, tuple):  # (name, expr) pairs of a Struct
                item = item[1]
            if isinstance(item, ir.Expr):
                parts.append(error_of(item))
    return coalesce(parts)


def _all_null(args: list[ir.Expr]) -> ir.Expr:
    cond: ir.Expr = ir.IsNull(args[0])
    for a in args[1:]:
        cond = ir.BinOp("&", cond, ir.IsNull(a))
    return cond


def _lambda_error(node: ir.Func) -> ir.Expr | None:
    """A higher-order function over an array whose lambda may fail: the first element's error."""
    array, *rest = node.args
    lambdas = [a for a in rest if isinstance(a, ir.Lambda)]
    errors = [(lam, error_of(lam.body)) for lam in lambdas]
    failing = [(lam, err) for lam, err in errors if err is not None]
    if not failing:
        return error_of(array)
    if node.name not in ("transform", "filter", "exists") or len(lambdas) != 1:
        raise NotImplementedError(f"record errors inside {node.name} lambdas")
    lam, err = failing[0]
    per_element = ir.Func("transform", (array, ir.Lambda(lam.name, err)))
    first = ir.Func(
        "try_element_at", (ir.Func("filter", (per_element, ir.Lambda("e", ir.Not(ir.IsNull(ir.Var("e")))))), ir.Lit(1))
    )
    return coalesce([error_of(array), first])


def without_raises(node: object) -> object:
    """`node` with every record error reading as null (tolerance: all: the error is in `__error` instead)."""
    if _is_raise(node):
        return NULL
    if isinstance(node, tuple):
        return tuple(without_raises(n) for n in node)
    if isinstance(node, (ir.Expr, ir.Op)) and (names := ir.field_names(node)):
        return replace(node, **{f: without_raises(getattr(node, f)) for f in names})
    return node
