"""Runs of struct edits built once: consecutive steps that edit fields of the key (or the value) keep it as named
field expressions (a dict of Columns in the job, one statement block per step) and build the struct once after
the run, where each step would otherwise build a row per record.

A step joins a run when its whole lowering is one new `key` or `value` made of edits Spark's struct functions
express (`withField`, `dropFields`, a null-safe rebuild, a null check that fails the record), reading the side only
through its fields. Everything else (predicates, other columns, whole-struct reads) ends the run first. The built
struct is null where the side was null (struct edits keep a tombstone a tombstone), or the record error of the
first step that refuses a null side.

In the job a run is plain statements on the dict (each a line the formatter lays out): it opens as
`value = {"id": F.col("value").getField("id"), ...}`, a step sets fields with `value = {**value, "id": ...}`,
drops one with `value.pop("id")` or lists the fields anew, and the build is `F.struct(value["id"].alias("id"), ...)`.

A run at the start of the chain (nothing before it but filters) opens with the source's own layout of the side
(`Decoded`: its fields read from the parsed payload, `F.col("__value").getField("id")`, and the record's columns),
null where the parsed payload is: the struct the decode lays out is then never built, where Spark would build it
and the run's struct from it (it does not see through the decode's null check).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .. import ir
from ..shape import Shape
from ..transforms.structs import spark_field_path
from ..types.sql import StructType

# A field expression may repeat the ones it reads (a cast reads its input three times); past this many IR nodes
# per field the run ends, so the plan stays linear in the chain (each later step reads the built struct).
MAX_FIELD_NODES = 400


class Unfusable(Exception):
    """The step cannot join the run."""


@dataclass(frozen=True, slots=True)
class Decoded:
    """A side as the source's decode lays it out: null where `base` (its parsed payload, a column the decode sets)
    is null, else the struct of `fields`."""

    base: ir.Col
    fields: tuple[tuple[str, ir.Expr], ...]

    def reads(self) -> set[str]:
        return ir.columns_read((self.base, self.fields))


def decoded_sides(layout: ir.Op) -> dict[str, Decoded]:
    """The key and value of a decode's last op when it lays them out from parsed payloads."""
    if not isinstance(layout, ir.Select):
        return {}
    columns = dict(layout.columns)
    out = {}
    for side in ("key", "value"):
        e = columns.get(side)
        if (
            isinstance(e, ir.NullSafe)
            and isinstance(e.base, ir.Col)
            and e.base.name != side
            and isinstance(e.rebuilt, ir.Struct)
        ):
            out[side] = Decoded(e.base, e.rebuilt.fields)
    return out


def _still_decoded(decoded: dict[str, Decoded], block: ir.Block) -> dict[str, Decoded]:
    """The sides a later run may still open from the decode: none of what they read was set by `block`."""
    if not all(isinstance(op, (ir.Where, ir.SetColumns)) for op in block.ops):
        return {}
    written = set().union(*(ir.columns_set(op) for op in block.ops))
    return {side: d for side, d in decoded.items() if side not in written and not d.reads() & written}


def split_path(path: str) -> tuple[str, ...]:
    """The names of a `withField`/`dropFields` path (the inverse of `spark_field_path`)."""
    out: list[str] = []
    i = 0
    while True:
        if path.startswith("`", i):
            name, j = "", i + 1
            while True:
                k = path.find("`", j)
                if k < 0:
                    raise Unfusable(path)
                name += path[j:k]
                if path.startswith("``", k):
                    name, j = name + "`", k + 2
                    continue
                i = k + 1
                break
        else:
            k = path.find(".", i)
            k = len(path) if k < 0 else k
            name, i = path[i:k], k
        out.append(name)
        if i == len(path):
            return tuple(out)
        if path[i] != ".":
            raise Unfusable(path)
        i += 1


def _substitute(node: object, side: str, names: dict[str, ir.Expr]) -> object:
    """`node` with each `side.getField(n)` read from the run's fields; any other read of the side is unfusable."""
    if isinstance(node, ir.Get) and node.base == ir.Col(side):
        if node.name not in names:
            raise Unfusable(node.name)
        return ir.Field(side, node.name)
    if node == ir.Col(side):
        raise Unfusable("reads the whole struct")
    if isinstance(node, tuple):
        return tuple(_substitute(n, side, names) for n in node)
    if isinstance(node, ir.Expr) and (fields_of := ir.field_names(node)) is not None:
        return replace(node, **{name: _substitute(getattr(node, name), side, names) for name in fields_of})
    return node


def _is_cast(node: object) -> bool:
    return isinstance(node, ir.Cast) or (isinstance(node, ir.Method) and node.name in ("cast", "try_cast"))


def _recasts(node: object, cast: set[str]) -> bool:
    """Whether `node` casts a field whose expression is a cast: Spark's optimizer (SimplifyCasts) drops the inner
    cast of `cast(cast(x as float) as double)` for a long `x` (it counts long -> float as widening), which loses
    Kafka's float32 rounding; steps apart, the inner cast is materialised."""
    if _is_cast(node):
        inner = node.expr if isinstance(node, ir.Cast) else node.target
        if isinstance(inner, ir.Field) and inner.name in cast:
            return True
    if isinstance(node, tuple):
        return any(_recasts(n, cast) for n in node)
    names = ir.field_names(node)
    if names is not None:
        return any(_recasts(getattr(node, name), cast) for name in names)
    return False


def _size(node: object, sizes: dict[str, int]) -> int:
    """IR nodes of an expression once the run's fields it reads are written out."""
    if isinstance(node, ir.Field):
        return sizes[node.name]
    if isinstance(node, tuple):
        return sum(_size(n, sizes) for n in node)
    names = ir.field_names(node)
    if names is not None:
        return 1 + sum(_size(getattr(node, name), sizes) for name in names)
    return 0


@dataclass(slots=True)
class _Step:
    """One step's edit of the run's fields: checks on the side column, then the fields after it."""

    side: str
    start: dict[str, ir.Expr]
    on_null: ir.Expr | None = None  # the record error where the side is null

    def evaluate(self, e: ir.Expr) -> dict[str, ir.Expr]:
        col = ir.Col(self.side)
        if e == col:
            return dict(self.start)
        if (
            isinstance(e, ir.If)
            and e.cond == ir.IsNull(col)
            and isinstance(e.then, ir.Func)
            and e.then.name == "raise_error"
        ):
            self.on_null = self.on_null or e.then
            return self.evaluate(e.otherwise)
        if isinstance(e, ir.NullSafe) and e.base == col:
            if isinstance(e.rebuilt, ir.Struct):
                if not e.rebuilt.fields:
                    raise Unfusable("an empty struct")
                return {n: self.read(x) for n, x in e.rebuilt.fields}
            return self.evaluate(e.rebuilt)
        if isinstance(e, ir.Method) and e.name in ("withField", "dropFields"):
            out = self.evaluate(e.target)
            if e.name == "withField":
                path, value = e.args
                self.with_field(out, split_path(path.value), self.read(value))
            else:
                for path in e.args:
                    self.drop_field(out, split_path(path.value))
            return out
        raise Unfusable(type(e).__name__)

    def read(self, e: ir.Expr) -> ir.Expr:
        return _substitute(e, self.side, self.start)

    @staticmethod
    def with_field(out: dict[str, ir.Expr], path: tuple[str, ...], value: ir.Expr) -> None:
        head, rest = path[0], path[1:]
        if head not in out and head.lower() in {n.lower() for n in out}:
            raise Unfusable(head)  # Spark resolves the name ignoring case; a dict would not
        if rest:
            if head not in out:
                raise Unfusable(head)
            value = ir.Method(out[head], "withField", (ir.Arg(spark_field_path(rest)), value))
        out[head] = value

    @staticmethod
    def drop_field(out: dict[str, ir.Expr], path: tuple[str, ...]) -> None:
        head, rest = path[0], path[1:]
        if head not in out:
            raise Unfusable(head)
        if rest:
            out[head] = ir.Method(out[head], "dropFields", (ir.Arg(spark_field_path(rest)),))
        else:
            del out[head]


def statements(side: str, before: list[str], after: dict[str, ir.Expr]) -> list[ir.Op]:
    """The statements that turn the fields `before` into `after`: set and drop when the order allows and fewer
    fields go than stay, else the fields anew."""
    kept = [n for n in before if n in after]
    added = [n for n in after if n not in before]
    if list(after) != kept + added or len(before) - len(kept) > len(after):
        return [ir.NewFields(side, tuple(after.items()))]
    ops: list[ir.Op] = []
    changed = tuple((n, e) for n, e in after.items() if e != ir.Field(side, n))
    if changed:
        ops.append(ir.SetFields(side, changed))
    ops += [ir.DropField(side, n) for n in before if n not in after]
    return ops


@dataclass(slots=True)
class Run:
    side: str
    names: list[str]  # the fields after the steps so far
    sizes: dict[str, int]
    opened: tuple[tuple[str, ir.Expr], ...] = ()  # the side's fields where the run starts
    base: ir.Expr | None = None  # null where this is null: the side's column, or the parsed payload it was decoded from
    steps: list[tuple[ir.Block, list[ir.Op]]] = field(default_factory=list)
    cast: set[str] = field(default_factory=set)  # fields whose expression is a cast
    on_null: bool = False  # a step refuses a null side (its OnNull statement stands in its block)

    @classmethod
    def start(cls, side: str, shape: Shape | None, decoded: Decoded | None = None) -> Run | None:
        """A run on the side of `shape`, opened from the decode's layout of it when given (and of its fields)."""
        t = shape.side(side) if shape else None
        if not isinstance(t, StructType) or not t.fields:
            return None
        names = list(t.names())
        if decoded and [n for n, _ in decoded.fields] == names:
            sizes = {n: _size(e, {}) for n, e in decoded.fields}
            cast = {n for n, e in decoded.fields if _is_cast(e)}
            return cls(side, names, sizes, decoded.fields, decoded.base, cast=cast)
        col = ir.Col(side)
        return cls(side, names, {n: 1 for n in names}, tuple((n, ir.Get(col, n)) for n in names), col)

    @property
    def decoded(self) -> bool:
        return self.base != ir.Col(self.side)

    def add(self, block: ir.Block, e: ir.Expr) -> bool:
        """Take the step into the run, if it can join."""
        step = _Step(self.side, {n: ir.Field(self.side, n) for n in self.names})
        try:
            after = step.evaluate(e)
        except Unfusable:
            return False
        sizes = {n: _size(x, self.sizes) for n, x in after.items()}
        if (
            not after
            or max(sizes.values()) > MAX_FIELD_NODES
            or (self.cast and _recasts(tuple(after.values()), self.cast))
        ):
            return False
        self.cast = {n for n, x in after.items() if _is_cast(x) or (x == ir.Field(self.side, n) and n in self.cast)}
        # A step that refuses a null side fails the record where the run builds the side; the first such step's
        # error is the one Kafka raises (the steps before it leave a null side null), later ones cannot fire.
        refuses = [ir.OnNull(self.side, step.on_null)] if step.on_null is not None and not self.on_null else []
        self.on_null = self.on_null or bool(refuses)
        self.steps.append((block, refuses + statements(self.side, self.names, after)))
        self.names, self.sizes = list(after), sizes
        return True

    def close(self) -> list[ir.Block]:
        """The run's blocks: fused when two or more steps share the build or the run opens from the decode, else
        as they were."""
        if len(self.steps) < 2 and not self.decoded:
            return [block for block, _ in self.steps]
        out = [replace(block, ops=tuple(ops)) for block, ops in self.steps]
        out[0] = replace(out[0], ops=(ir.NewFields(self.side, self.opened), *out[0].ops))
        first, last = self.steps[0][0], self.steps[-1][0]
        if len(self.steps) > 1:
            lines = f"lines {first.loc.line}-{last.loc.line}" if first.loc and last.loc else "the steps above"
            built_for = f"built once for the {len(self.steps)} steps above ({lines})"
        else:
            built_for = f"built for the step above (line {last.loc.line})" if last.loc else "built for the step above"
        source = (
            (
                f", read from decode()'s parsed payload {self.base.name} rather than its {self.side} struct (which "
                "Spark then never builds)"
            )
            if self.decoded
            else ""
        )
        where_null = f"{self.side}_if_null where it was null" if self.on_null else "null where it was null"
        comment = f"the {self.side} {built_for}{source}; {where_null}"
        struct = ir.Struct(tuple((n, ir.Field(self.side, n)) for n in self.names))
        built = (
            ir.If(ir.IsNull(self.base), ir.Var(f"{self.side}_if_null"), struct)
            if self.on_null
            else ir.NullSafe(self.base, struct)
        )
        return out + [ir.Block(comment, (ir.SetColumns(((self.side, built),)),), last.loc)]


def struct_edit(block: ir.Block) -> tuple[str, ir.Expr] | None:
    """(side, new side) when a block's whole work is one new key or value."""
    if len(block.ops) == 1 and isinstance(block.ops[0], ir.SetColumns) and len(block.ops[0].columns) == 1:
        ((name, e),) = block.ops[0].columns
        if name in ("key", "value"):
            return name, e
    return None


def fuse(
    blocks: list[ir.Block], inputs: list[Shape | None], decoded: dict[str, Decoded] | None = None
) -> list[ir.Block]:
    """The chain's blocks with each run of two or more struct edits of one side built once. `inputs` holds each
    block's input shape (None: not a step that may join a run); `decoded`, the sides as the decode lays them out,
    which a run opens from while nothing they read has been set."""
    out: list[ir.Block] = []
    run: Run | None = None
    fresh = dict(decoded or {})
    for block, shape in zip(blocks, inputs):
        edit = struct_edit(block) if shape is not None else None
        opening, fresh = fresh, _still_decoded(fresh, block)
        if run and edit and edit[0] == run.side and run.add(block, edit[1]):
            continue
        if run:
            out += run.close()
            run = None
        if edit:
            run = Run.start(edit[0], shape, opening.get(edit[0]))
            if run and run.add(block, edit[1]):
                continue
            run = None
        out.append(block)
    if run:
        out += run.close()
    return out
