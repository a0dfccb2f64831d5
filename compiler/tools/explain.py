"""`pipec explain`: the record shape after the source and after each step, and the sink's layout."""

from __future__ import annotations

from ..connectors import SINKS
from ..diagnostics import escaped
from ..resolve.builder import Compiled


def sink_columns(compiled: Compiled) -> tuple[str, ...]:
    """The columns the sink writes."""
    p = compiled.pipeline
    return SINKS[p.sink.connector].columns(p.sink, compiled.final)


def explain(compiled: Compiled) -> str:
    p = compiled.pipeline
    lines = [f"pipeline {p.name} ({p.file}, {p.mode})", "", f"after source ({p.source.connector}, line {p.source.loc.line}):"]
    lines += ["  " + line for line in compiled.shapes[0].describe()]
    for step, shape in zip(p.steps, compiled.shapes[1:]):
        cond = f" when {'not ' if step.negate else ''}{step.predicate}" if step.predicate else ""
        lines += ["", f"after step '{step.alias}' ({step.type_name}, line {step.loc.line}){cond}:"]
        lines += ["  " + line for line in shape.describe()]
    lines += ["", f"sink ({p.sink.connector}, line {p.sink.loc.line}) writes columns: {', '.join(sink_columns(compiled))}"]
    describe = SINKS[p.sink.connector].describe
    lines += ["  " + line for line in describe(p.sink, compiled.final)] if describe else []
    return "\n".join(map(escaped, lines))  # a name holding a newline or ESC is shown, never acted on
