"""The connector parts of `schemas/pipeline.schema.json`, generated from the connectors' config records
(compiler/connectors/config.py): the `Source` and `Sink` dispatchers (the `connector` enum, one if/then per
connector, in registration order) and one closed `$defs` entry per connector (`KafkaSource`, `FilesSink`, ...)
restating each key of its record: kind, default, doc, examples, required. Nested blocks (`key`, `value`) take their
description from the record's `GROUPS`; the Schema Registry options follow `schema-id` (schema_gen adds them).
"""

from __future__ import annotations

from dataclasses import MISSING

from ..connectors import SINKS, SOURCES
from ..connectors.config import keys, shown_default

MARK = "Generated from the connectors' config records (compiler/connectors) by `python -m pipec.validate.schema_gen --write`."
BLOCKS = {"source": ("Source", "Where records come from"), "sink": ("Sink", "Where records go")}


def def_name(connector: str, block: str) -> str:
    """`upsert-kafka`, source -> `UpsertKafkaSource`."""
    return "".join(part.capitalize() for part in connector.split("-")) + BLOCKS[block][0]


def key_node(f, spec) -> dict:
    node = dict(spec.kind)
    default = shown_default(f)
    if default is not MISSING:
        node["default"] = default
    node["description"] = spec.doc
    if spec.examples:
        node["examples"] = list(spec.examples)
    return node


def connector_def(name: str, record: type) -> dict:
    """A connector's block: `connector` and its record's keys, closed."""
    properties: dict = {"connector": {"const": name, "description": name}}
    required = ["connector"]
    for f, spec in keys(record):
        node = key_node(f, spec)
        if len(spec.path) == 1:
            properties[spec.path[0]] = node
            required += [spec.path[0]] if spec.required else []
            continue
        group, leaf = spec.path
        if group not in properties:
            properties[group] = {"type": "object", **record.GROUPS.get(group, {}), "properties": {}}
        block = properties[group]
        block["properties"][leaf] = node
        if spec.required:
            block.setdefault("required", []).append(leaf)
            if group not in required:
                required.append(group)
    for block in properties.values():
        if "properties" in block:
            block["additionalProperties"] = False
    required.sort(key=list(properties).index)
    return {
        "$comment": MARK,
        "type": "object",
        "description": record.DOC,
        "properties": properties,
        "required": required,
        "additionalProperties": False,
        **getattr(record, "EXTRA", {}),
    }


def dispatch_def(block: str, connectors: dict) -> dict:
    """`source` or `sink`: `connector` picks the connector's def."""
    names = list(connectors)
    listed = ", ".join(names[:-1]) + f" or {names[-1]}"
    return {
        "$comment": MARK,
        "type": "object",
        "description": f"{BLOCKS[block][1]}; `connector` picks the kind: {listed}.",
        "properties": {"connector": {"enum": names, "description": f"Required: {listed}."}},
        "required": ["connector"],
        "allOf": [
            {
                "if": {"type": "object", "properties": {"connector": {"const": n}}, "required": ["connector"]},
                "then": {"$ref": f"#/$defs/{def_name(n, block)}"},
            }
            for n in names
        ],
    }


def generated_defs() -> list[dict[str, dict]]:
    """The dispatchers, and the connectors' defs (sources, then sinks): two groups of `$defs`."""
    dispatchers = {"Source": dispatch_def("source", SOURCES), "Sink": dispatch_def("sink", SINKS)}
    blocks = {def_name(n, "source"): connector_def(n, c.config) for n, c in SOURCES.items()}
    blocks |= {def_name(n, "sink"): connector_def(n, c.config) for n, c in SINKS.items()}
    return [dispatchers, blocks]
