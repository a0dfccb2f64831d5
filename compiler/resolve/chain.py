"""The chain: named predicates, and each step with the record shape after it (schema propagation)."""

from __future__ import annotations

from .. import ir
from ..diagnostics import did_you_mean, one_of
from ..model import Predicate, Step
from ..shape import Shape
from ..transforms import REGISTRY, ConfigReader, Context
from ..transforms.structs import conform
from .part import Part

STEP_KEYS = ("name", "type", "predicate", "negate")


class ChainBuilder(Part):
    """Builds the predicates and steps of one document."""

    def predicates(self) -> dict[str, Predicate]:
        out = {}
        for alias, raw in (self.data.get("predicates") or {}).items():
            spec = REGISTRY.lookup_predicate(raw["type"])
            if spec is None:
                self.diags.error(
                    "E310",
                    f"unknown predicate type '{raw['type']}'",
                    self.at("predicates", alias, "type"),
                    did_you_mean(raw["type"], REGISTRY.predicates) or f"write {one_of(sorted(REGISTRY.predicates))}",
                )
                continue
            config_raw = {k: v for k, v in raw.items() if k != "type"}
            reader = ConfigReader(
                f"{spec.name} '{alias}'", config_raw, self.doc.smap, ("predicates", alias), self.diags
            )
            out[alias] = Predicate(alias, spec.name, spec.parse(reader), self.key_at("predicates", alias))
        return out

    def steps(self, start: Shape, predicates: dict[str, Predicate]) -> tuple[tuple[Step, ...], tuple[Shape, ...]]:
        steps, shapes, seen = [], [start], {}
        shape = start
        for i, raw in enumerate(self.data.get("transforms") or []):
            path = ("transforms", i)
            alias, type_name = raw["name"], raw["type"]
            if alias in seen:
                self.diags.error(
                    "E320",
                    f"duplicate step name '{alias}' (first at line {seen[alias].line})",
                    self.at(*path, "name"),
                    "give each step its own name: it names the step in the job and in errors",
                )
            seen[alias] = self.at(*path, "name")
            spec, side = REGISTRY.lookup(type_name)
            if spec is None:
                self.diags.error(
                    "E321",
                    f"unknown transform type '{type_name}'",
                    self.at(*path, "type"),
                    did_you_mean(type_name.rsplit(".", 1)[-1], REGISTRY.spellings())
                    or "write a Kafka Connect transform class, e.g. InsertField$Value (docs/transforms.md lists them)",
                )
                continue
            pred = raw.get("predicate")
            if pred is not None and pred not in predicates and pred not in (self.data.get("predicates") or {}):
                self.diags.error(
                    "E322",
                    f"step '{alias}' names predicate '{pred}', which is not defined",
                    self.at(*path, "predicate"),
                    did_you_mean(pred, predicates) or "define it under predicates:",
                )
            owner = f"{type_name.rsplit('.', 1)[-1]} '{alias}'"
            config_raw = {k: v for k, v in raw.items() if k not in STEP_KEYS}
            reader = ConfigReader(owner, config_raw, self.doc.smap, path, self.diags)
            errors_before = len(self.diags.errors)
            config = spec.parse(reader)
            negate = ConfigReader(owner, raw, self.doc.smap, path, self.diags).boolean(
                "negate", False
            )  # "false" is false
            step = Step(alias, spec.name, side, type_name, config, self.at(*path), pred, negate)
            if len(self.diags.errors) == errors_before:
                before = shape
                shape = spec.infer(config, shape, Context(owner, side, reader, self.diags))
                changed = [s for s in ("key", "value") if conform(ir.Col(s), before.side(s), shape.side(s)) is None]
                if pred is not None and changed:
                    was, now = (
                        t.sql() if t else "always null" for t in (before.side(changed[0]), shape.side(changed[0]))
                    )
                    self.diags.error(
                        "E324",
                        f"step '{alias}' changes the {changed[0]} from {was} to {now}, so it cannot "
                        "take a predicate: a column has one type, and skipped records would keep the old one",
                        self.at(*path, "predicate"),
                        "split the records with Filter steps in two pipelines, or drop the predicate",
                    )
            steps.append(step)
            shapes.append(shape)
        return tuple(steps), tuple(shapes)
