"""Validated data -> the resolved Pipeline model, with every semantic check (SPEC sections 3-9).

Schema propagation runs here too: each step's output shape is computed from the previous one, so a
step naming a missing field is reported at that step's line. One module per thing built: the source
(source.py), the chain (chain.py), the sink and errors policy (sink.py), the test cases (tests.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Pipeline
from ..shape import Shape
from .chain import STEP_KEYS, ChainBuilder
from .part import Part, options
from .real_time import RealTimeCheck
from .sink import SinkBuilder
from .source import SourceBuilder, initial_shape
from .tests import TestsBuilder

__all__ = ["STEP_KEYS", "Builder", "Compiled", "initial_shape"]


def _meta_text(value: object) -> str:
    """A `meta:` value as text: YAML's true/false as written there, numbers as Python spells them."""
    return str(value).lower() if isinstance(value, bool) else str(value)


@dataclass(frozen=True, slots=True)
class Compiled:
    """A pipeline with the shapes after its source and after each step."""

    pipeline: Pipeline
    shapes: tuple[Shape, ...]  # shapes[0] after the source, shapes[i] after step i

    @property
    def final(self) -> Shape:
        return self.shapes[-1]


class Builder(Part):
    """Builds one Pipeline from one validated document: each part from what the earlier parts built."""

    def build(self) -> Compiled | None:
        doc, diags = self.doc, self.diags
        source = SourceBuilder(doc, diags).build()
        chain = ChainBuilder(doc, diags)
        predicates = chain.predicates()
        start = initial_shape(source) if source else None
        steps, shapes = chain.steps(start, predicates) if start else ((), ())
        sinks = SinkBuilder(doc, diags)
        sink = sinks.build(shapes[-1], source) if shapes and source else None
        errors = sinks.errors(source)
        tests = TestsBuilder(doc, diags).build(source, errors, sink, shapes[-1] if shapes else None)
        if source is not None and sink is not None:
            RealTimeCheck(doc, diags).check(source, sink, errors)
        if self.diags.errors or source is None or sink is None:
            return None
        d = self.data
        spark = d.get("spark") or {}
        pipeline = Pipeline(
            name=d["name"],
            file=self.doc.repo_file,
            sha256=self.doc.sha256,
            mode=d.get("mode", "streaming"),
            source=source,
            predicates=predicates,
            steps=steps,
            sink=sink,
            errors=errors,
            spark_conf=options(spark.get("conf")),
            tests=tests,
            description=d.get("description", ""),
            meta=tuple((k, _meta_text(v)) for k, v in (d.get("meta") or {}).items()),
            spark_version=spark.get("version"),
            spark_version_loc=self.at("spark", "version") if "version" in spark else None,
        )
        return Compiled(pipeline, shapes)
