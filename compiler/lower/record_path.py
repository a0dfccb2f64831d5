"""The resolved pipeline -> IR blocks for the job's `decode`, `chain` and `encode` functions."""

from __future__ import annotations

from . import fusion
from .. import ir, record_errors
from ..resolve.builder import Compiled
from ..connectors import SINKS, SOURCES
from ..model import Predicate, Step
from ..dataclass_lite import record, replace
from ..transforms import REGISTRY
from ..shape import Shape
from ..transforms.base import Lowering
from ..transforms.structs import conform


@record
class Lowered:
    """IR for the three record-path functions of a job."""

    decode: ir.Block
    chain: tuple[ir.Block, ...]
    encode: ir.Block
    packages: tuple[str, ...]
    dead_letters: bool = False  # errors.tolerance: all: the rows carry record_errors.ERROR and RAW
    state_check: ir.Block | None = None  # tolerance: all before per-key state: the decode whose errors keep a record out


def predicate_condition(step: Step, predicates: dict[str, Predicate], changelog: bool = False) -> ir.Expr | None:
    """When the step applies (KIP-585: predicate XOR negate), or None when it always applies."""
    if step.predicate is None:
        return None
    pred = predicates[step.predicate]
    cond = REGISTRY.predicates[pred.kind].condition(pred.config, changelog)
    return ir.Not(cond) if step.negate else cond


def guard(op: ir.Op, cond: ir.Expr | None, before: Shape, after: Shape) -> ir.Op:
    """Narrow an operation to the records where `cond` holds; the others pass through unchanged (in the step's
    output type when the step changes the key or value type: see `conform`)."""
    if cond is None:
        return op
    if isinstance(op, ir.Where):  # drop only matching records: keep where not (cond and not keep)
        if op.cond == ir.Lit(False):
            return ir.Where(cond.expr if isinstance(cond, ir.Not) else ir.Not(cond))
        return ir.Where(ir.BinOp("|", ir.Not(cond), op.cond))
    if isinstance(op, ir.SetColumns):
        def unchanged(name: str) -> ir.Expr:
            if name in ("key", "value"):
                kept = conform(ir.Col(name), before.side(name), after.side(name))
                assert kept is not None, "resolve/chain.py refuses predicates on steps that cannot conform"
                return kept
            return ir.Col(name)

        return replace(op, columns=tuple((n, ir.If(cond, e, unchanged(n))) for n, e in op.columns))
    raise TypeError(f"cannot guard {type(op).__name__}")


# Spark pushes a filter below the projections under it, copying the expressions of the columns it reads into its
# condition. After steps that rebuilt those columns the copies nest (each step's struct rebuild inlined into every
# field the next one reads, the source's from_json included): the plan grows exponentially with the chain and the
# filter repeats the chain's work. Such a filter reads its condition from KEEP, set in a projection Spark does not
# push filters through (spark_partition_id() counts as nondeterministic), so it runs where the chain puts it.
KEEP = "__keep"


def pin(op: ir.Op, rebuilt: set[str]) -> tuple[ir.Op, ...]:
    """A filter that reads columns earlier steps rebuilt, kept where it stands (see KEEP); other ops as they are."""
    if not isinstance(op, ir.Where) or not ir.columns_read(op.cond) & rebuilt:
        return (op,)
    barrier = ir.BinOp(">=", ir.Func("spark_partition_id", ()), ir.Lit(0))
    return (ir.SetColumns(((KEEP, ir.BinOp("&", op.cond, barrier)),)), ir.Where(ir.Col(KEEP)))


def step_comment(step: Step, file: str) -> str:
    """Where the step stands, and what it does in words."""
    where = f" when {'not ' if step.negate else ''}{step.predicate}" if step.predicate else ""
    words = REGISTRY.transforms[step.kind].describe(step.config, step.side or "record")
    return f"{file}:{step.loc.line} step '{step.alias}' ({step.type_name}){where}" + (f": {words}" if words else "")


def lower(compiled: Compiled) -> Lowered:
    p = compiled.pipeline
    source, sink = SOURCES[p.source.connector], SINKS[p.sink.connector]
    tolerant = p.errors.tolerance == "all"
    decoder = source.tolerant_decode if tolerant and source.tolerant_decode else source.decode
    decode = ir.Block(f"{p.file}:{p.source.loc.line} source ({p.source.connector})", decoder(p.source, p.name), p.source.loc)
    formats = {"key": p.source.key_format, "value": p.source.format}
    check = None
    if tolerant:
        raw = source.raw_record(p.source, p.name) if source.raw_record else None
        decode = replace(decode, ops=record_errors.tolerate_decode(decode.ops, formats, raw, source.position, source.json_null))
        if source.state_check:
            ops = record_errors.tolerate_decode(source.state_check(p.source, p.name), formats, raw, source.position)
            check = ir.Block(f"{p.file}:{p.source.loc.line} source ({p.source.connector}), as read", ops, p.source.loc)
    else:
        decode = replace(decode, ops=record_errors.checked_decode(decode.ops, formats, source.json_null))
    blocks: list[ir.Block] = []
    inputs: list[Shape | None] = []  # each block's input shape when it is a step that may join a run of edits
    skips = source.skip_messages(p.source)
    if skips:
        blocks.append(ir.Block(f"{p.file}:{p.source.loc.line} source: skip tombstones and DDL messages (counted as filtered)",
                               skips, p.source.loc))
        inputs.append(None)
    rebuilt: set[str] = set()  # columns set by the chain so far
    keep = sink.before_routing(p.sink) if compiled.final.routed else ()
    for i, step in enumerate(p.steps):
        if keep and compiled.shapes[i + 1].routed and not compiled.shapes[i].routed:
            blocks.append(ir.Block("the source topic, so the sink's topic applies to records no router renamed", keep, p.sink.loc))
            inputs.append(None)
            rebuilt.update(name for op in keep for name in ir.columns_set(op))
        spec = REGISTRY.transforms[step.kind]
        ops = spec.lower(step.config, compiled.shapes[i], Lowering(f"{step.type_name} '{step.alias}'", step.side))
        cond = predicate_condition(step, p.predicates, compiled.shapes[i].changelog)
        before, after = compiled.shapes[i], compiled.shapes[i + 1]
        guarded = [guard(op, cond, before, after) for op in ops]
        pinned = tuple(out for op in guarded for out in pin(op, rebuilt))
        rebuilt.update(*(ir.columns_set(op) for op in pinned))
        comment = step_comment(step, p.file)
        if len(pinned) > len(guarded):
            comment += f"; filters here, reading {KEEP}: pushed below the steps above, Spark would repeat them in it"
        block = ir.Block(comment, pinned, step.loc)
        if tolerant:
            stage = record_errors.Stage(record_errors.TRANSFORMATION, REGISTRY.transforms[step.kind].java_class(step.side))
            block = record_errors.tolerate_block(block, lambda name, stage=stage: stage)
        blocks.append(block)
        inputs.append(None if tolerant or cond is not None else before)
    encode = ir.Block(f"{p.file}:{p.sink.loc.line} sink ({p.sink.connector})", sink.encode(p.sink, compiled.final), p.sink.loc)
    if tolerant:
        encode = record_errors.tolerate_block(encode, lambda name: record_errors.sink_stage(name, p.sink.format))
    packages = tuple(sorted(set(source.packages(p.source)) | set(sink.packages(p.sink))))
    decoded = fusion.decoded_sides(decode.ops[-1]) if decode.ops else {}
    chain = tuple(fusion.fuse(blocks, inputs, decoded))
    return Lowered(keep_read(decode, ir.columns_read(tuple(b.ops for b in chain))), chain, encode, packages, tolerant, check)


def keep_read(decode: ir.Block, read: set[str]) -> ir.Block:
    """The decode with the columns the chain reads from before its layout (the parsed payloads a run of edits
    opens from: fusion.Decoded) kept by the layout's select."""
    layout = decode.ops[-1] if decode.ops else None
    if not isinstance(layout, ir.Select):
        return decode
    kept = ir.columns_set(layout)
    before = set().union(*(ir.columns_set(op) for op in decode.ops[:-1]))
    extra = sorted((read & before) - kept)
    if not extra:
        return decode
    return replace(decode, ops=(*decode.ops[:-1], ir.Select(layout.columns + tuple((n, ir.Col(n)) for n in extra))))
