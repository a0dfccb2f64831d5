"""The resolved pipeline -> IR blocks for the job's `decode`, `chain` and `encode` functions.

`draft` lowers the source, each step (through its transform's spec) and the sink; `lower` then applies the
lowering passes in order (`passes.PASSES`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..connectors import SINKS, SOURCES
from ..model import Predicate, Step
from ..resolve.builder import Compiled
from ..transforms import REGISTRY
from ..transforms.base import Lowering
from .passes import KEEP_TOPIC, PASSES, SKIP, Draft, Piece


@dataclass(frozen=True, slots=True)
class Lowered:
    """IR for the three record-path functions of a job."""

    decode: ir.Block
    chain: tuple[ir.Block, ...]
    encode: ir.Block
    packages: tuple[str, ...]
    dead_letters: bool = False  # errors.tolerance: all: the rows carry record_errors.ERROR and RAW
    state_check: ir.Block | None = (
        None  # tolerance: all before per-key state: the decode whose errors keep a record out
    )

    @property
    def one_row_per_record(self) -> bool:
        """Whether decode yields exactly one row for each source row (no filter, no generator)."""
        return ir.one_row_per_row(self.decode)


def predicate_condition(step: Step, predicates: dict[str, Predicate], changelog: bool = False) -> ir.Expr | None:
    """When the step applies (KIP-585: predicate XOR negate), or None when it always applies."""
    if step.predicate is None:
        return None
    pred = predicates[step.predicate]
    cond = REGISTRY.predicates[pred.kind].condition(pred.config, changelog)
    return ir.Not(cond) if step.negate else cond


def step_comment(step: Step, file: str) -> str:
    """Where the step stands, and what it does in words."""
    where = f" when {'not ' if step.negate else ''}{step.predicate}" if step.predicate else ""
    words = REGISTRY.transforms[step.kind].describe(step.config, step.side or "record")
    return f"{file}:{step.loc.line} step '{step.alias}' ({step.type_name}){where}" + (f": {words}" if words else "")


def draft(compiled: Compiled) -> Draft:
    """The source's decode, each step's operations as its transform lowers them, and the sink's encode."""
    p = compiled.pipeline
    source, sink = SOURCES[p.source.connector], SINKS[p.sink.connector]
    decoder = source.tolerant_decode if p.errors.tolerance == "all" and source.tolerant_decode else source.decode
    decode = ir.Block(
        f"{p.file}:{p.source.loc.line} source ({p.source.connector})", decoder(p.source, p.name), p.source.loc
    )
    chain: list[Piece] = []
    skips = source.skip_messages(p.source)
    if skips:
        comment = f"{p.file}:{p.source.loc.line} source: skip tombstones and DDL messages (counted as filtered)"
        chain.append(Piece(ir.Block(comment, skips, p.source.loc), SKIP))
    keep = sink.before_routing(p.sink) if compiled.final.routed else ()
    for i, step in enumerate(p.steps):
        before, after = compiled.shapes[i], compiled.shapes[i + 1]
        if keep and after.routed and not before.routed:
            comment = "the source topic, so the sink's topic applies to records no router renamed"
            chain.append(Piece(ir.Block(comment, keep, p.sink.loc), KEEP_TOPIC))
        ops = REGISTRY.transforms[step.kind].lower(
            step.config, before, Lowering(f"{step.type_name} '{step.alias}'", step.side)
        )
        cond = predicate_condition(step, p.predicates, before.changelog)
        chain.append(
            Piece(
                ir.Block(step_comment(step, p.file), tuple(ops), step.loc),
                step=step,
                before=before,
                after=after,
                cond=cond,
            )
        )
    encode = ir.Block(
        f"{p.file}:{p.sink.loc.line} sink ({p.sink.connector})", sink.encode(p.sink, compiled.final), p.sink.loc
    )
    return Draft(p, source, decode, tuple(chain), encode)


def lower(compiled: Compiled) -> Lowered:
    """The pipeline's record path: its draft, through every lowering pass."""
    d = draft(compiled)
    for apply in PASSES:
        d = apply(d)
    p = d.pipeline
    packages = tuple(sorted(set(d.source.packages(p.source)) | set(SINKS[p.sink.connector].packages(p.sink))))
    return Lowered(d.decode, tuple(piece.block for piece in d.chain), d.encode, packages, d.tolerant, d.state_check)
