"""Subexpressions a statement repeats become Python locals assigned just before it.

Some lowerings use one value several times: a little-endian float64 Cast of BYTES reads its 64 bits about six
times, each read a byte swap that reads the decoded number eight times. Written out in full, one such field is
thousands of lines, and building its Columns takes seconds of Python-to-JVM calls. Binding each repeated
subexpression to a local once keeps the job's text, and the work of building it, linear. Spark receives the same
expression tree either way: a local holds a Column, so nothing about what runs changes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from operator import attrgetter

from .. import ir
from ..ir import field_names

MIN_NODES = 12  # smaller repeats (a field read, a literal, a short cast) read better where they are
WORTH_A_LOOK = 4 * MIN_NODES  # a statement of fewer nodes is left as it is, unmeasured (most are)
PREFIX = "shared_"  # names no other statement of a job binds


def _getter(cls: type) -> Callable[[object], tuple]:
    names = field_names(cls) or ()
    get = attrgetter(*names) if len(names) > 1 else (lambda node: (getattr(node, names[0]),)) if names else None
    _GETTERS[cls] = get or (lambda node: ())
    return _GETTERS[cls]


_GETTERS: dict[type, Callable[[object], tuple]] = {tuple: lambda node: node}


def _children(node: object) -> tuple:
    """The fields of an IR record (or the items of a tuple) in order; nothing for any other value."""
    return (_GETTERS.get(type(node)) or _getter(type(node)))(node)


def _at_least(node: object, nodes: int) -> int:
    """How many nodes `node` has, counted until `nodes` are seen (a cheap test of size)."""
    seen = 0
    stack = [node]
    while stack and seen < nodes:
        item = stack.pop()
        seen += isinstance(item, ir.Expr)
        stack.extend(_children(item))
    return seen


class _Shapes:
    """Structural identity of IR nodes: equal subtrees get the same number. Memoized per object, so a tree that
    shares objects (a DAG) is measured in time linear in its objects."""

    def __init__(self) -> None:
        self.numbers: dict[tuple, int] = {}
        self.by_id: dict[int, tuple[int, int, frozenset[str]]] = {}  # id -> (shape, nodes, free lambda names)
        self.keep: list[object] = []  # keeps measured objects alive, so their ids stay theirs

    def measure(self, node: object) -> tuple[int, int, frozenset[str]]:
        found = self.by_id.get(id(node))
        if found is not None:
            return found
        parts = [self.measure(child) for child in _children(node)]
        leaf = () if parts or isinstance(node, tuple) or field_names(node) is not None else (repr(node),)
        key = (type(node).__name__, leaf, tuple(p[0] for p in parts))
        shape = self.numbers.setdefault(key, len(self.numbers))
        free = frozenset().union(*(p[2] for p in parts)) if parts else frozenset()
        if isinstance(node, ir.Var):
            free = frozenset((node.name,))
        elif isinstance(node, ir.Lambda):
            free = free - {node.name}
        nodes = (1 if isinstance(node, ir.Expr) else 0) + sum(p[1] for p in parts)
        self.by_id[id(node)] = found = (shape, nodes, free)
        self.keep.append(node)
        return found


def _bound_names(node: object) -> set[str]:
    """Every lambda parameter in `node`: a subexpression reading one cannot leave its lambda."""
    out = {node.name} if isinstance(node, ir.Lambda) else set()
    for child in _children(node):
        out |= _bound_names(child)
    return out


def _occurrences(node: object, shapes: _Shapes, counts: Counter, first: dict[int, object]) -> None:
    shape = shapes.measure(node)[0]
    if isinstance(node, ir.Expr):
        counts[shape] += 1
        first.setdefault(shape, node)
    for child in _children(node):
        _occurrences(child, shapes, counts, first)


def _substitute(node: object, shapes: _Shapes, names: dict[int, str]) -> object:
    """`node` with each subtree of a named shape read through its local."""
    if isinstance(node, ir.Expr) and (name := names.get(shapes.measure(node)[0])) is not None:
        return ir.Var(name)
    if isinstance(node, tuple):
        return tuple(_substitute(child, shapes, names) for child in node)
    fields = field_names(node)
    if fields is None:
        return node
    return replace(node, **{f: _substitute(getattr(node, f), shapes, names) for f in fields})


def hoist(op: ir.Op) -> tuple[list[tuple[str, ir.Expr]], ir.Op]:
    """Locals to assign before `op`, in order (name, expression), and `op` reading them. Repeats are taken largest
    first, so a local may read a later-named, smaller one: the assignments come smallest first."""
    if _at_least(op, WORTH_A_LOOK) < WORTH_A_LOOK:
        return [], op
    shapes = _Shapes()
    bound = _bound_names(op)
    counts: Counter = Counter()
    first: dict[int, object] = {}
    _occurrences(op, shapes, counts, first)
    repeated = [
        shape
        for shape, n in counts.items()
        if n > 1
        and shapes.measure(first[shape])[1] >= MIN_NODES
        and not (shapes.measure(first[shape])[2] & bound)
        and not isinstance(first[shape], ir.Lambda)
    ]
    if not repeated:
        return [], op
    repeated.sort(key=lambda s: -shapes.measure(first[s])[1])
    chosen: dict[int, str] = {}
    for shape in repeated:
        # a repeat that occurs only inside a larger one already chosen is read once, through that one's local
        probe: Counter = Counter()
        for value in [_substitute(op, shapes, chosen), *(_substitute_inside(first[s], shapes, chosen) for s in chosen)]:
            _occurrences(value, shapes, probe, {})
        if probe[shape] > 1:
            chosen[shape] = ""
    # the smaller ones are assigned first (a larger one may read them), and numbered in that order
    order = list(chosen)[::-1]
    names = {shape: f"{PREFIX}{number}" for number, shape in enumerate(order, 1)}
    locals_ = [(names[shape], _substitute_inside(first[shape], shapes, names)) for shape in order]
    return locals_, _substitute(op, shapes, names)


def _substitute_inside(value: object, shapes: _Shapes, names: dict[int, str]) -> object:
    """A named subtree's own expression, reading the other locals inside it (not itself)."""
    fields = field_names(value)
    return replace(value, **{f: _substitute(getattr(value, f), shapes, names) for f in fields})
