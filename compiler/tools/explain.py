"""`pipec explain`: the record shape after the source and after each step, and the sink's layout (its columns, its
key and value encodings, topic, partitioning, and where dead letters go). `facts` is the one description; `explain`
prints it as text, and `--format json` prints it as one JSON document."""

from __future__ import annotations

from typing import Any

from ..connectors import SINKS
from ..diagnostics import escaped
from ..resolve.builder import Compiled
from ..shape import Shape


def sink_columns(compiled: Compiled) -> tuple[str, ...]:
    """The columns the sink writes."""
    p = compiled.pipeline
    return SINKS[p.sink.connector].columns(p.sink, compiled.final)


def shape_facts(shape: Shape) -> dict[str, Any]:
    return {
        "key": shape.key.sql() if shape.key else None,
        "value": shape.value.sql() if shape.value else None,
        "headers_added": list(shape.headers_added),
        "headers_dropped": list(shape.headers_dropped),
        "virtual": sorted(shape.virtual),
        "routed": shape.routed,
        "changelog": shape.changelog,
    }


def _payload(fmt: str | None, t, timestamps: str, **more: Any) -> dict[str, Any] | None:
    if fmt in (None, "none") or t is None:
        return None
    out = {"format": fmt, "type": t.sql(), **more}
    if fmt in ("json", "debezium-json"):
        out["timestamp-format"] = timestamps
    return out


def dead_letter_facts(compiled: Compiled) -> dict[str, Any] | None:
    errors = compiled.pipeline.errors
    if errors.tolerance != "all":
        return None
    return {
        "topic": errors.dlq_topic.raw if errors.dlq_topic else None,
        "path": errors.dlq_path.raw if errors.dlq_path else None,
        "context_headers": errors.context_headers,
        "log": errors.log,
    }


def sink_facts(compiled: Compiled) -> dict[str, Any]:
    p, shape = compiled.pipeline, compiled.final
    sink = p.sink
    connector = SINKS[sink.connector]
    fields = connector.test_layout(sink, shape).fields
    facts: dict[str, Any] = {
        "connector": sink.connector,
        "line": sink.loc.line,
        "columns": list(sink_columns(compiled)),
    }
    if connector.writes_kafka:
        metadata = dict(shape.persisted) | dict(sink.config.metadata)
        facts["topic"] = sink.config.topic.raw if sink.config.topic else None
        facts["key"] = _payload(sink.config.key_format or "json", fields.get("key"), sink.config.key_timestamp_format)
        facts["value"] = _payload(
            sink.config.format,
            fields.get("value"),
            sink.config.timestamp_format,
            **{"fields-include": sink.config.fields_include},
        )
        facts["headers"] = metadata.get("headers")
        facts["partition"] = metadata.get("partition")
        facts["primary_key"] = list(sink.config.primary_key)
    else:
        facts["path"] = sink.config.path.raw if sink.config.path else None
        facts["value"] = (
            _payload(sink.config.format, fields.get("value"), sink.config.timestamp_format)
            if sink.config.format
            else None
        )
        facts["envelope"] = sink.config.envelope
        facts["partition_by"] = list(sink.config.partition_by)
        if connector.describe is not None:  # a table sink: the table, its key and order, its columns' types
            facts["table"] = connector.describe(sink, shape)
    facts["checkpoint"] = sink.config.checkpoint.raw if sink.config.checkpoint else None
    facts["trigger"] = sink.config.trigger
    facts["dead_letters"] = dead_letter_facts(compiled)
    return facts


def facts(compiled: Compiled) -> dict[str, Any]:
    """Everything `explain` says of one pipeline, as plain data."""
    p = compiled.pipeline
    steps = []
    for step, shape in zip(p.steps, compiled.shapes[1:]):
        when = f"{'not ' if step.negate else ''}{step.predicate}" if step.predicate else None
        steps.append(
            {"name": step.alias, "type": step.type_name, "line": step.loc.line, "when": when, **shape_facts(shape)}
        )
    return {
        "name": p.name,
        "file": p.file,
        "mode": p.mode,
        "source": {"connector": p.source.connector, "line": p.source.loc.line, **shape_facts(compiled.shapes[0])},
        "steps": steps,
        "sink": sink_facts(compiled),
    }


# ---------------------------------------------------------------- text


def shape_lines(f: dict[str, Any]) -> list[str]:
    lines = [
        f"key:     {f['key'] or 'null'}",
        f"value:   {f['value'] or 'null'}",
        "headers: ARRAY<STRUCT<key STRING, value BYTES>> (every header, in wire order)",
    ]
    if f["headers_added"]:
        lines.append(f"         added by the chain: {', '.join(f['headers_added'])}")
    if f["headers_dropped"]:
        lines.append(f"         dropped by the chain: {', '.join(f['headers_dropped'])}")
    if f["virtual"]:
        lines.append(f"virtual: {', '.join(f['virtual'])} (dropped at the sink)")
    if f["routed"]:
        lines.append("topic:   set per record by a router step")
    if f["changelog"]:
        lines.append("op:      STRING, one of +I, -U, +U, -D (a changelog)")
    return lines


def _encoding(payload: dict[str, Any] | None) -> str:
    if payload is None:
        return "none (null)"
    more = [
        f"{k} {v}"
        for k, v in payload.items()
        if k not in ("format", "type")
        and v not in (None, "ALL")
        and (k != "timestamp-format" or "TIMESTAMP" in payload["type"])
    ]
    return f"{payload['format']} {payload['type']}" + (f" ({'; '.join(more)})" if more else "")


def _dead_letters(d: dict[str, Any] | None) -> str:
    if d is None:
        return "none: the job fails on a bad record (errors.tolerance: none)"
    where = f"topic {d['topic']}" if d["topic"] else f"folder {d['path']} (JSON lines)"
    return (
        where
        + (", with __connect.errors.* context headers" if d["context_headers"] else "")
        + ("; each batch's first one is logged" if d["log"] else "")
    )


def sink_lines(s: dict[str, Any], routed: bool) -> list[str]:
    lines = [f"sink ({s['connector']}, line {s['line']}) writes columns: {', '.join(s['columns'])}"]
    if "topic" in s:
        own = "each record's own topic" + (" (routed by the chain)" if routed else "")
        topic = f"{s['topic']}" + (" (a topic a router step set wins)" if routed else "") if s["topic"] else own
        partition = f"from the column {s['partition']}" if s["partition"] else "the producer's, from the serialized key"
        lines += [
            f"  topic:        {topic}",
            f"  key:          {_encoding(s['key'])}",
            f"  value:        {_encoding(s['value'])}",
            f"  headers:      {'from the column ' + s['headers'] if s['headers'] else 'the record headers'}",
            f"  partitioning: {partition}",
        ]
        if s["primary_key"]:
            lines.append(
                f"  primary key:  {', '.join(s['primary_key'])} (each key's last change per micro-batch; a delete is a tombstone)"
            )
    else:
        lines += [f"  {line}" for line in s.get("table") or ()]
        if s["path"]:
            lines.append(f"  path:         {s['path']}")
        if s["value"]:
            lines.append(
                f"  encoding:     {_encoding(s['value'])}" + (", with the envelope columns" if s["envelope"] else "")
            )
        lines.append(f"  partitioning: {'folders by ' + ', '.join(s['partition_by']) if s['partition_by'] else 'none'}")
    lines.append(f"  dead letters: {_dead_letters(s['dead_letters'])}")
    return lines


def explain(compiled: Compiled) -> str:
    f = facts(compiled)
    lines = [
        f"pipeline {f['name']} ({f['file']}, {f['mode']})",
        "",
        f"after source ({f['source']['connector']}, line {f['source']['line']}):",
    ]
    lines += ["  " + line for line in shape_lines(f["source"])]
    for step in f["steps"]:
        cond = f" when {step['when']}" if step["when"] else ""
        lines += ["", f"after step '{step['name']}' ({step['type']}, line {step['line']}){cond}:"]
        lines += ["  " + line for line in shape_lines(step)]
    lines += [""] + sink_lines(f["sink"], compiled.final.routed)
    return "\n".join(map(escaped, lines))  # a name holding a newline or ESC is shown, never acted on
