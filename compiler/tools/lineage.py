"""Column lineage through a chain: which output field comes from which input field, metadata key or header.

Each step's transform declares its moves (`TransformSpec.lineage`, compiler/transforms/moves.py): for the slots
it sets, the input slot each reads, whether it transforms the value and whether it masks it; every other slot
passes through unchanged. A predicate declares what it reads (`PredicateSpec.reads`), which decides whether a
record goes on (OpenLineage's INDIRECT inputs).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Source, Step
from ..resolve.builder import Compiled
from ..shape import Shape
from ..transforms import REGISTRY
from ..transforms.moves import IDENTITY, TRANSFORMATION, Move, Slot
from .contract import flat_fields, writes_kafka


@dataclass(frozen=True, slots=True)
class Origin:
    """Where an output field's data comes from: an input field name, and the strongest transformation on the way."""

    field: str
    subtype: str
    masking: bool


def source_origins(source: Source) -> dict[Slot, str]:
    """The slots right after the source and the input field each holds."""
    out: dict[Slot, str] = {}
    except_key = source.config.fields_include == "EXCEPT_KEY"
    for c in source.config.columns:
        if c.metadata:
            origin = f"metadata:{c.metadata}"
        elif c.header:
            origin = f"header:{c.header}"
        elif c.headers:
            origin = "headers"
        else:
            origin = f"key.{c.name}" if except_key and c.name in source.config.key_fields else c.name
        out[("value", (c.name,))] = origin
        if c.physical:
            for sub in flat_fields(c.type, c.name + "."):
                out[("value", tuple(sub.split(".")))] = origin + sub[len(c.name) :]
    for k in source.config.key_fields:
        out[("key", (k,))] = f"key.{k}"
    if source.config.key_format == "raw" and not source.config.key_fields:
        out[("key", ())] = "key"
    for meta in ("topic", "partition", "offset", "timestamp"):
        out[("meta", (meta,))] = f"metadata:{meta}"
    return out


class Tracker:
    """The origins of every slot, step by step."""

    def __init__(self, compiled: Compiled):
        self.compiled = compiled
        self.origins: dict[Slot, dict[str, Origin]] = {
            slot: {name: Origin(name, IDENTITY, False)}
            for slot, name in source_origins(compiled.pipeline.source).items()
        }
        self.dataset: dict[str, str] = {}  # input -> FILTER or CONDITIONAL (OpenLineage's INDIRECT subtypes)

    def lookup(self, slot: Slot) -> dict[str, Origin]:
        """A slot's origins: its own, else its nearest ancestor's, else all of its descendants'."""
        side, path = slot
        for i in range(len(path), -1, -1):
            if (side, path[:i]) in self.origins:
                return self.origins[(side, path[:i])]
        found: dict[str, Origin] = {}
        for (s, p), origins in self.origins.items():
            if s == side and p[: len(path)] == path:
                found.update(origins)
        return found

    def step(self, step: Step, before: Shape, after: Shape) -> None:
        spec = REGISTRY.transforms[step.kind]
        moves = spec.lineage(step.config, step.side, before)
        pred = self.compiled.pipeline.predicates.get(step.predicate) if step.predicate else None
        if pred is not None:
            reads = REGISTRY.predicates[pred.kind].reads(pred.config)
            self.dataset.setdefault(reads, "CONDITIONAL")
            if spec.filters:
                self.dataset[reads] = "FILTER"
        new: dict[Slot, dict[str, Origin]] = {}
        slots = {("value", tuple(p.split("."))) for p in flat_fields(after.value)} | {
            ("key", tuple(p.split("."))) for p in flat_fields(after.key)
        }
        slots = {(s, () if p == ("(whole)",) else p) for s, p in slots}
        slots |= {slot for slot in self.origins if slot[0] in ("meta", "header")} | {
            slot for slot in moves if slot[0] == "header"
        }
        for slot in slots:
            new[slot] = self.resolve(slot, moves)
        self.origins = {slot: o for slot, o in new.items() if o or slot[0] in ("meta",)}

    def resolve(self, slot: Slot, moves: dict[Slot, Move]) -> dict[str, Origin]:
        side, path = slot
        for i in range(len(path), -1, -1):
            move = moves.get((side, path[:i]))
            if move is not None:
                if move.source is None:
                    return {}
                src_side, src_path = move.source
                return {
                    name: Origin(
                        name,
                        TRANSFORMATION if TRANSFORMATION in (o.subtype, move.subtype) else IDENTITY,
                        o.masking or move.masking,
                    )
                    for name, o in self.lookup((src_side, src_path + path[i:])).items()
                }
        return self.lookup(slot)


def column_lineage(compiled: Compiled) -> tuple[dict[str, list[Origin]], dict[str, str]]:
    """Output field name -> its origins, and the record-level inputs (FILTER/CONDITIONAL) of the whole chain.

    Output names are the written value's dotted field paths, `key` / `key.<path>` for the key where the sink writes
    one, and `header:<key>` for headers the chain sets."""
    tracker = Tracker(compiled)
    for step, before, after in zip(compiled.pipeline.steps, compiled.shapes, compiled.shapes[1:]):
        tracker.step(step, before, after)
    final, sink = compiled.final, compiled.pipeline.sink
    out: dict[str, list[Origin]] = {}
    written = set(flat_fields(final.value)) - {v for v in final.virtual}
    for (side, path), origins in sorted(tracker.origins.items()):
        name = ".".join(path)
        if (
            side == "value"
            and (name in written or (not path and final.value is not None))
            and path[:1] not in [(v,) for v in final.virtual]
        ):
            out[name or "value"] = sorted(origins.values(), key=lambda o: o.field)
        elif side == "key" and (writes_kafka(sink) or sink.config.envelope):
            out["key" + ("." + name if name else "")] = sorted(origins.values(), key=lambda o: o.field)
        elif side == "header":
            out[f"header:{path[0]}"] = sorted(origins.values(), key=lambda o: o.field)
    return {k: v for k, v in out.items() if v}, tracker.dataset
