"""A pipeline's output contract: what consumers of its sink see (destination, formats, key, value, headers).

Computed from the compiled model only (the sink and the shape after the last step), so `diff` can compare two
versions of a pipeline and `graph` can name what each pipeline writes.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..connectors import SINKS
from ..connectors.kafka_sink import payload_fields
from ..model import Sink, Step
from ..resolve.builder import Compiled
from ..resolve.sink import default_key_format
from ..transforms import REGISTRY
from ..types.sql import SqlType, StructType


@dataclass(frozen=True, slots=True)
class Contract:
    """What a sink writes, as its consumers see it."""

    connector: str
    destination: str  # the topic (or "each record's own topic"), the folder, or "console"
    routing: tuple[str, ...]  # router steps that rename topics, as "alias: Type {config}"
    key_format: str | None
    value_format: str | None
    key: SqlType | None
    value: SqlType | None
    headers_added: tuple[str, ...]
    headers_dropped: tuple[str, ...]
    partition_by: tuple[str, ...]
    changelog: bool
    primary_key: tuple[str, ...]


def writes_kafka(sink: Sink) -> bool:
    return SINKS[sink.connector].writes_kafka


def _written_value(compiled: Compiled) -> SqlType | None:
    sink, shape = compiled.pipeline.sink, compiled.final
    if not isinstance(shape.value, StructType):
        return shape.value
    if writes_kafka(sink):
        return StructType(tuple(payload_fields(sink, shape, sink.config.key_fields)))
    return StructType(tuple(f for f in shape.value.fields if f.name not in shape.virtual))


def _written_key(compiled: Compiled) -> SqlType | None:
    sink, shape = compiled.pipeline.sink, compiled.final
    if sink.config.key_fields and isinstance(shape.value, StructType):
        return StructType(tuple(f for f in shape.value.fields if f.name in sink.config.key_fields))
    return shape.key


def _destination(compiled: Compiled) -> str:
    sink = compiled.pipeline.sink
    if writes_kafka(sink):
        return f"topic {sink.config.topic.raw}" if sink.config.topic else "each record's own topic"
    if SINKS[sink.connector].writes_table:
        return f"{sink.connector} table {sink.config.path.raw if sink.config.path else sink.config.table} ({sink.config.apply})"
    if sink.config.path is not None:
        return f"{sink.config.format} files at {sink.config.path.raw}"
    return sink.connector


def routes(step: Step) -> bool:
    """Whether the step sets the record's topic (its transform says so: `TransformSpec.routes`)."""
    return REGISTRY.transforms[step.kind].routes


def _router(step) -> str:
    when = f" when {'not ' if step.negate else ''}{step.predicate}" if step.predicate else ""
    return f"{step.alias} ({step.type_name}{when}) {step.config!r}"


def contract(compiled: Compiled) -> Contract:
    p, shape = compiled.pipeline, compiled.final
    keyed = writes_kafka(p.sink) or p.sink.config.envelope
    return Contract(
        connector=p.sink.connector,
        destination=_destination(compiled),
        routing=tuple(_router(s) for s in p.steps if routes(s)),
        # an envelope's key (files, tables) in the format a Kafka sink would write it: the source's, or json
        key_format=(p.sink.config.key_format or default_key_format(p.source, shape)) if keyed else None,
        value_format=p.sink.config.format,
        key=_written_key(compiled) if keyed else None,
        value=_written_value(compiled),
        headers_added=shape.headers_added,
        headers_dropped=shape.headers_dropped,
        partition_by=p.sink.config.partition_by,
        changelog=shape.changelog and (p.sink.config.envelope or p.sink.config.format == "debezium-json"),
        primary_key=p.sink.config.primary_key,
    )


def flat_fields(t: SqlType | None, prefix: str = "") -> dict[str, SqlType]:
    """Dotted field path -> type, through nested structs (a struct inside an array or map counts as one type)."""
    if not isinstance(t, StructType):
        return {} if t is None else {prefix.rstrip(".") or "(whole)": t}
    out: dict[str, SqlType] = {}
    for f in t.fields:
        path = prefix + f.name
        if isinstance(f.type, StructType):
            out[path] = f.type
            out.update(flat_fields(f.type, path + "."))
        else:
            out[path] = f.type
    return out
