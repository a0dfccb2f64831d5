"""The lowering passes: what `record_path` drafts from the pipeline, rewritten one concern at a time.

`PASSES` applies them in order: each takes the draft and gives it back changed. A step's block first holds the
operations its transform lowers to; then
- `guard_predicates` narrows them to the records its predicate selects,
- `pin_filters` keeps a filter where the chain puts it (see KEEP),
- `report_record_errors` makes each stage report a bad record as the errors policy says (record_errors.py),
- `fuse_struct_edits` builds each run of struct edits once (fusion.py),
- `keep_what_the_chain_reads` keeps, in the decode's layout, the parsed payloads a run of edits opens from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from .. import ir, record_errors
from ..connectors.base import SourceConnector
from ..model import Pipeline, Step
from ..shape import Shape
from ..transforms import REGISTRY
from ..transforms.structs import conform
from . import fusion

# What a block of the chain is: the source's skipping of messages it does not decode, the source topic kept for a
# sink whose topic applies to records no router renamed, a step, or (after fusion) a step or a run of steps.
SKIP, KEEP_TOPIC, STEP, FUSED = "skip", "keep topic", "step", "fused"


@dataclass(frozen=True, slots=True)
class Piece:
    """One block of the chain and what it lowers: a step (with its shapes and predicate), or a block of the source
    or sink that runs among the steps."""

    block: ir.Block
    kind: str = STEP
    step: Step | None = None
    before: Shape | None = None  # the record shape before the step
    after: Shape | None = None
    cond: ir.Expr | None = None  # when the step applies (its predicate); None: always


@dataclass(frozen=True, slots=True)
class Draft:
    """The record path of one pipeline as the passes rewrite it."""

    pipeline: Pipeline
    source: SourceConnector
    decode: ir.Block
    chain: tuple[Piece, ...]
    encode: ir.Block
    state_check: ir.Block | None = (
        None  # tolerance: all before per-key state: the decode whose errors keep a record out
    )

    @property
    def tolerant(self) -> bool:
        return self.pipeline.errors.tolerance == "all"


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


def guard_predicates(draft: Draft) -> Draft:
    """Each step with a predicate applies only to the records it selects."""

    def guarded(p: Piece) -> Piece:
        if p.cond is None:
            return p
        ops = tuple(guard(op, p.cond, p.before, p.after) for op in p.block.ops)
        return replace(p, block=replace(p.block, ops=ops))

    return replace(draft, chain=tuple(guarded(p) for p in draft.chain))


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


def pin_filters(draft: Draft) -> Draft:
    """A step's filter that reads columns the chain rebuilt before it runs where the chain puts it."""
    rebuilt: set[str] = set()  # columns set by the chain so far
    chain = []
    for p in draft.chain:
        if p.kind == STEP:
            ops = tuple(out for op in p.block.ops for out in pin(op, rebuilt))
            comment = p.block.comment
            if len(ops) > len(p.block.ops):
                comment += (
                    f"; filters here, reading {KEEP}: pushed below the steps above, Spark would repeat them in it"
                )
            p = replace(p, block=replace(p.block, comment=comment, ops=ops))
        if p.kind != SKIP:
            rebuilt.update(*(ir.columns_set(op) for op in p.block.ops))
        chain.append(p)
    return replace(draft, chain=tuple(chain))


def report_record_errors(draft: Draft) -> Draft:
    """Under `tolerance: all` every stage sets the record's error and the decode keeps the raw record for the
    dead letters; else the decode fails the query on a record it cannot parse, as Kafka Connect does."""
    p, source = draft.pipeline, draft.source
    formats = {"key": p.source.config.key_format, "value": p.source.config.format}
    if not draft.tolerant:
        return replace(
            draft,
            decode=replace(draft.decode, ops=record_errors.checked_decode(draft.decode.ops, formats, source.json_null)),
        )
    raw = source.raw_record(p.source, p.name) if source.raw_record else None
    decode = replace(
        draft.decode,
        ops=record_errors.tolerate_decode(draft.decode.ops, formats, raw, source.position, source.json_null),
    )
    check = None
    if source.state_check:
        ops = record_errors.tolerate_decode(source.state_check(p.source, p.name), formats, raw, source.position)
        check = ir.Block(f"{p.file}:{p.source.loc.line} source ({p.source.connector}), as read", ops, p.source.loc)
        # the table is made of the records that decode; the others follow it, as read, for the dead letters
        table, tolerant = ir.Apply("upsert_table"), ir.Apply("decodable_upsert_table")
        decode = replace(decode, ops=tuple(tolerant if op == table else op for op in decode.ops))

    def tolerated(piece: Piece) -> Piece:
        if piece.kind != STEP:
            return piece
        stage = record_errors.Stage(
            record_errors.TRANSFORMATION, REGISTRY.transforms[piece.step.kind].java_class(piece.step.side)
        )
        return replace(piece, block=record_errors.tolerate_block(piece.block, lambda name, stage=stage: stage))

    encode = record_errors.tolerate_block(
        draft.encode, lambda name: record_errors.sink_stage(name, p.sink.config.format)
    )
    return replace(
        draft, decode=decode, state_check=check, chain=tuple(tolerated(piece) for piece in draft.chain), encode=encode
    )


def fuse_struct_edits(draft: Draft) -> Draft:
    """Each run of consecutive struct edits of one side built once (fusion.py). A step under a predicate, or under
    `tolerance: all`, joins no run."""
    inputs = [None if draft.tolerant or p.kind != STEP or p.cond is not None else p.before for p in draft.chain]
    decoded = fusion.decoded_sides(draft.decode.ops[-1]) if draft.decode.ops else {}
    blocks = fusion.fuse([p.block for p in draft.chain], inputs, decoded)
    return replace(draft, chain=tuple(Piece(b, FUSED) for b in blocks))


def keep_what_the_chain_reads(draft: Draft) -> Draft:
    """The decode with the columns the chain reads from before its layout (the parsed payloads a run of edits
    opens from: fusion.Decoded) kept by the layout's select."""
    decode = draft.decode
    layout = decode.ops[-1] if decode.ops else None
    if not isinstance(layout, ir.Select):
        return draft
    read = ir.columns_read(tuple(p.block.ops for p in draft.chain))
    kept = ir.columns_set(layout)
    before = set().union(*(ir.columns_set(op) for op in decode.ops[:-1]))
    extra = sorted((read & before) - kept)
    if not extra:
        return draft
    select = ir.Select(layout.columns + tuple((n, ir.Col(n)) for n in extra))
    return replace(draft, decode=replace(decode, ops=(*decode.ops[:-1], select)))


Pass = Callable[[Draft], Draft]
PASSES: tuple[Pass, ...] = (
    guard_predicates,
    pin_filters,
    report_record_errors,
    fuse_struct_edits,
    keep_what_the_chain_reads,
)
