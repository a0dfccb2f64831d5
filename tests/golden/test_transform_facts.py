"""Every transform and predicate declares what the tools that follow data through a chain need (column lineage,
`pipec graph`, `pipec diff`, `pipec import connect`), and the declarations agree with what it does on every golden
case (tests/golden/*/*.md), so a new transform cannot be added without saying its lineage:

- `TransformSpec.lineage` (required): the slots a step sets and where their values come from. Each move's output
  is a column the step's lowering sets and its input one it reads; every field a step adds or retypes, every header
  it adds or drops, and the topic it routes, has a move.
- `ConfigKey.names`: a key names the fields a step reads exactly when a field missing there is a compile error
  (E402) at that key; what a key says the step writes (fields, headers) is what its moves write.
- `TransformSpec.routes` and `.filters`: exactly the steps that route records (`Shape.routed`) and drop them (a
  `Where` in their lowering).
- `PredicateSpec.reads` (required): the record column the predicate's condition reads.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from golden import FILE, document, every_file

from pipec import ir
from pipec.diagnostics import Collector
from pipec.load.document import SourceMap, load_text
from pipec.resolve.builder import STEP_KEYS, Builder, Compiled
from pipec.tools.connect_columns import columns_from_steps
from pipec.tools.contract import flat_fields
from pipec.transforms import REGISTRY
from pipec.transforms.base import READS, WRITES, ConfigReader, Context, Lowering, TransformSpec, named
from pipec.transforms.field_paths import parse_syntax_version
from pipec.transforms.moves import TOPIC, Moves, Slot
from pipec.types.sql import StructType

MISSING = "no_such_field"


class Run:
    """One step of a golden case: its spec, raw config, the shapes around it, its moves and its lowering."""

    def __init__(self, case: str, index: int, compiled: Compiled, raw: dict):
        self.case, self.step = case, compiled.pipeline.steps[index]
        self.spec: TransformSpec = REGISTRY.transforms[self.step.kind]
        self.raw = {k: v for k, v in raw.items() if k not in STEP_KEYS}
        self.before, self.after = compiled.shapes[index], compiled.shapes[index + 1]
        self.moves: Moves = self.spec.lineage(self.step.config, self.step.side, self.before)
        low = Lowering(f"{self.step.type_name} '{self.step.alias}'", self.step.side)
        self.ops = self.spec.lower(self.step.config, self.before, low)

    @property
    def id(self) -> str:
        return f"{self.case} step {self.step.alias}"

    @property
    def version(self) -> str:
        return parse_syntax_version(str(self.raw.get("field.syntax.version", "V1"))) or "V1"


@cache
def _compiled() -> tuple[tuple[str, Compiled, dict], ...]:
    out = []
    for golden in every_file():
        for case in golden.cases:
            diags = Collector()
            doc = load_text(document(golden, case), FILE, diags)
            compiled = Builder(doc, diags).build()
            assert compiled is not None and not diags.errors, f"{golden.name} '{case.title}'"
            out.append((f"{golden.name} '{case.title}'", compiled, doc.data))
    return tuple(out)


@cache
def runs() -> tuple[Run, ...]:
    return tuple(Run(name, i, compiled, data["transforms"][i])
                 for name, compiled, data in _compiled() for i in range(len(compiled.pipeline.steps)))


def _column(slot: Slot) -> str:
    """The record column a slot lives in."""
    kind, path = slot
    return {"header": "headers", "meta": path[0] if path else ""}.get(kind, kind)


def _columns_set(ops: tuple[ir.Op, ...]) -> set[str]:
    return set().union(*(ir.columns_set(op) for op in ops))


def _unguarded(expr: ir.Expr) -> ir.Expr:
    """The value under record-error guards (`Lowering.fail_if`: if COND then raise_error else VALUE)."""
    while isinstance(expr, ir.If) and isinstance(expr.then, ir.Func) and expr.then.name == "raise_error":
        expr = expr.otherwise
    return expr


def _rewritten(ops: tuple[ir.Op, ...]) -> set[str]:
    """The columns the ops set to something other than themselves (a record-error guard alone rewrites nothing)."""
    return {name for op in ops if isinstance(op, ir.SetColumns) for name, expr in op.columns if _unguarded(expr) != ir.Col(name)}


def _field_paths(t) -> dict[tuple[str, ...], Any]:
    return {() if p == "(whole)" else tuple(p.split(".")): ft for p, ft in flat_fields(t).items()}


def _covered(moves: Moves, side: str, path: tuple[str, ...]) -> bool:
    """A move sets the field at `path`, a struct holding it, or a field inside it."""
    n = len(path)
    return any(s == side and (p[:n] == path or path[: len(p)] == p) for s, p in moves)


def test_every_transform_and_predicate_is_declared_and_exercised():
    for spec in REGISTRY.transforms.values():
        assert callable(spec.lineage), spec.name
    for spec in REGISTRY.predicates.values():
        assert callable(spec.reads), spec.name
    exercised = {(r.spec.name, r.step.side) for r in runs()}
    expected = {(n, side) for n, spec in REGISTRY.transforms.items() for side in (("key", "value") if spec.sides else (None,))}
    assert expected - exercised == set(), "every variant of every transform runs in a golden case"


def test_moves_set_and_read_the_columns_the_lowering_does():
    problems = []
    for r in runs():
        sets, reads = _columns_set(r.ops), ir.columns_read(r.ops)
        for out, move in r.moves.items():
            if _column(out) not in sets:
                problems.append(f"{r.id}: moves {out}, but its lowering sets no {_column(out)}")
            if move.source is not None and not move.masking and _column(move.source) not in reads:
                problems.append(f"{r.id}: moves {out} from {move.source}, but its lowering reads no {_column(move.source)}")
    assert problems == [], "\n".join(problems)


def test_a_step_that_rewrites_a_column_without_changing_its_shape_declares_a_move():
    """A mask, a cast to the same type, a null: the values change where the types do not."""
    problems = []
    for r in runs():
        unchanged = {"key": r.before.key == r.after.key, "value": r.before.value == r.after.value,
                     "headers": (r.before.headers_added, r.before.headers_dropped) == (r.after.headers_added, r.after.headers_dropped),
                     "topic": r.before.routed == r.after.routed}
        moved = {_column(slot) for slot in r.moves}
        problems += [f"{r.id}: rewrites {c} without a move" for c in sorted(_rewritten(r.ops))
                     if unchanged.get(c) and c not in moved]
    assert problems == [], "\n".join(problems)


def test_fields_and_headers_a_step_adds_or_retypes_and_the_topic_it_routes_have_a_move():
    problems = []
    for r in runs():
        for side in ("key", "value"):
            old, new = _field_paths(r.before.side(side)), _field_paths(r.after.side(side))
            for path, t in new.items():
                retyped = path in old and old[path] != t and not (isinstance(t, StructType) and isinstance(old[path], StructType))
                if (path not in old or retyped) and not _covered(r.moves, side, path):
                    problems.append(f"{r.id}: {side} field {'.'.join(path) or '(whole)'} changes without a move")
        changed = (set(r.after.headers_added) - set(r.before.headers_added)) | (
            set(r.after.headers_dropped) - set(r.before.headers_dropped))
        problems += [f"{r.id}: header {h} changes without a move" for h in changed if ("header", (h,)) not in r.moves]
        if r.after.routed and not r.before.routed and TOPIC not in r.moves:
            problems.append(f"{r.id}: routes without a move of the topic")
    assert problems == [], "\n".join(problems)


def _mutations(value: Any) -> list[Any]:
    """The key's value with one item at a time naming a missing field: as the item, or before a ':' (`a:b`)."""
    items = value if isinstance(value, list) else [s.strip() for s in str(value).split(",")]
    out = []
    for j, item in enumerate(map(str, items)):
        for text in (MISSING, f"{MISSING}:{item.split(':', 1)[-1]}"):
            out.append(items[:j] + [text] + items[j + 1:] if isinstance(value, list) or len(items) > 1 else text)
    return out


def _missing_field_reported_at(r: Run, key: str, raw: dict) -> bool:
    """Whether parsing and inferring the step with `raw` reports a missing field (E402) at `key` or its items."""
    keys = list(raw)
    values = {(k,): (i + 1, 1) for i, k in enumerate(keys)}
    values.update({(k, j): (i + 1, j + 2) for i, k in enumerate(keys) for j in range(len(raw[k]) if isinstance(raw[k], list) else 0)})
    diags = Collector()
    reader = ConfigReader(r.spec.name, raw, SourceMap(FILE, values, {}), (), diags)
    config = r.spec.parse(reader)
    if config is not None and not diags.errors:
        r.spec.infer(config, r.before, Context(r.spec.name, r.step.side, reader, diags))
    return any(d.code == "E402" and d.loc.line == keys.index(key) + 1 for d in diags.errors)


def test_a_key_names_fields_the_step_reads_exactly_when_a_missing_one_is_an_error_there():
    problems = []
    for r in runs():
        if not isinstance(r.before.side(r.step.side or "value"), StructType):
            continue  # a key or value that is no struct has no fields to name
        for key in r.spec.keys:
            value = r.raw.get(key.name)
            if not isinstance(value, (str, list)) or value in ("", []):
                continue
            declared = any(n.role == READS and n.of != "header" for n in key.names)
            found = any(_missing_field_reported_at(r, key.name, {**r.raw, key.name: v}) for v in _mutations(value))
            if declared != found:
                problems.append(f"{r.id}: {key.name} " + ("declares it names fields the step reads, but a missing one is no error"
                                                          if declared else "names fields the step reads: declare names=READ_FIELDS"))
    assert problems == [], "\n".join(problems)


def test_what_a_key_says_the_step_writes_is_what_its_moves_write():
    problems = []
    for r in runs():
        named_headers = set()
        for key in r.spec.keys:
            for names, path in named(key, r.raw.get(key.name), r.version):
                if names.of == "header":
                    named_headers.add(("header", path))
                    if names.role == WRITES and ("header", path) not in r.moves:
                        problems.append(f"{r.id}: {key.name} writes header {path[0]}, which no move sets")
                elif names.role == WRITES and not any(
                        path == p[i:i + len(path)] for s, p in r.moves if s != "header" for i in range(len(p))):
                    problems.append(f"{r.id}: {key.name} writes field {'.'.join(path)}, which no move sets")
        problems += [f"{r.id}: moves header {slot[1][0]}, which no key names" for slot in r.moves
                     if slot[0] == "header" and slot not in named_headers]
    assert problems == [], "\n".join(problems)


def test_routes_and_filters_are_what_the_step_does():
    problems = []
    for r in runs():
        if r.spec.routes != (r.after.routed and not r.before.routed) and not r.before.routed:
            problems.append(f"{r.id}: routes={r.spec.routes}, but the step {'does not route' if r.spec.routes else 'routes'}")
        if r.spec.filters != any(isinstance(op, ir.Where) for op in r.ops):
            problems.append(f"{r.id}: filters={r.spec.filters}, but its lowering {'has no' if r.spec.filters else 'has a'} Where")
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("name", sorted(REGISTRY.transforms))
def test_keys_hold_field_paths_exactly_where_the_transform_has_field_syntax_version(name):
    spec = REGISTRY.transforms[name]
    has_syntax = any(k.name == "field.syntax.version" for k in spec.keys)
    assert has_syntax == any(n.path for k in spec.keys for n in k.names)


def test_a_predicate_reads_the_column_it_declares():
    seen = set()
    for _, compiled, _ in _compiled():
        for pred in compiled.pipeline.predicates.values():
            spec = REGISTRY.predicates[pred.kind]
            reads = spec.reads(pred.config)
            kind, _, rest = reads.partition(":")
            column = {"metadata": rest, "header": "headers"}.get(kind, kind)
            assert ir.columns_read(spec.lower(pred.config)) == {column}, (pred.kind, reads)
            seen.add(pred.kind)
    assert seen == set(REGISTRY.predicates)


def test_import_connect_makes_a_column_of_each_field_a_step_reads():
    steps = [
        ("Cast", "value", {"spec": "int64"}),  # a whole-value cast names no field
        ("Cast", "value", {"spec": "amount:float64, qty:int32"}),
        ("ExtractField", "value", {"field": "`a.b`.c", "field.syntax.version": "V2"}),  # the top step, backticks gone
        ("ValueToKey", None, {"fields": "id"}),  # reads the value
        ("ReplaceField", "value", {"renames": "old:new"}),  # the old name only
        ("TimestampConverter", "value", {"field": "ts", "target.type": "string", "format": "yyyy"}),
        ("InsertField", "value", {"topic.field": "topic_name"}),  # a written field is no source column
        ("Cast", "key", {"spec": "k:int64"}),
    ]
    assert columns_from_steps(steps, "value") == [("amount", "STRING"), ("qty", "STRING"), ("a.b", "STRING"),
                                                  ("id", "STRING"), ("old", "STRING"), ("ts", "TIMESTAMP_LTZ(3)")]
    assert columns_from_steps(steps, "key") == [("k", "STRING")]
