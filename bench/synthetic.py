"""Synthetic pipelines of any length for the compiler-speed figures: the benchmark's Kafka source and a chain that
cycles through every transform family (each step valid after the ones before it), then a Kafka sink.

`pipeline_yaml(name, steps, variant)` varies field names and literals with `variant`, so 1,000 pipelines are
1,000 different files, not one file parsed 1,000 times.
"""

from __future__ import annotations

from pathlib import Path

HEADER = """\
version: 1
name: {name}
mode: batch
source:
  connector: kafka
  topics: [orders-raw]
  properties:
    bootstrap.servers: ${{env:KAFKA_BOOTSTRAP_SERVERS:-localhost:9092}}
  key: {{format: json, fields: [id]}}
  value: {{format: json}}
  columns:
    - {{name: id, type: BIGINT}}
    - {{name: customer, type: "STRUCT<name STRING, email STRING, card STRING, address STRUCT<city STRING, zip STRING>>"}}
    - {{name: amount, type: STRING}}
    - {{name: quantity, type: INT}}
    - {{name: status, type: STRING}}
    - {{name: ts, type: BIGINT}}
    - {{name: internal, type: STRING}}
    - {{name: trace, header: trace-id}}
predicates:
  is_test: {{type: HasHeaderKey, name: test}}
  raw_topic: {{type: TopicNameMatches, pattern: ".*-raw"}}
transforms:
"""
SINK = """\
sink:
  connector: kafka
  properties:
    bootstrap.servers: ${env:KAFKA_BOOTSTRAP_SERVERS:-localhost:9092}
  value: {format: json}
"""

# One step per entry, formatted with i (step number) and v (variant); each only names fields that exist by then.
# The cycle inserts a field and then edits it, so any length stays valid.
STEPS = (
    "{{name: ins_{i}, type: InsertField$Value, static.field: f{i}_{v}, static.value: 'v{v}'}}",
    "{{name: mask_{i}, type: MaskField$Value, fields: [f{p1}_{v}], replacement: '****'}}",
    "{{name: off_{i}, type: InsertField$Value, offset.field: o{i}, timestamp.field: t{i}}}",
    "{{name: cast_{i}, type: Cast$Value, spec: ['o{p1}:string', 'quantity:int64']}}",
    "{{name: tsc_{i}, type: TimestampConverter$Value, field: t{p2}, target.type: string, format: 'yyyy-MM-dd HH:mm'}}",
    "{{name: ren_{i}, type: ReplaceField$Value, renames: ['f{p5}_{v}:g{i}_{v}']}}",
    "{{name: hdr_{i}, type: HeaderFrom$Value, fields: [id], headers: [h{i}-{v}], operation: copy}}",
    "{{name: ih_{i}, type: InsertHeader, header: x{i}, value.literal: '{v}'}}",
    "{{name: dh_{i}, type: DropHeaders, headers: [x{p1}]}}",
    "{{name: rr_{i}, type: RegexRouter, regex: '(.*)-raw', replacement: '$1-{v}', predicate: raw_topic}}",
    "{{name: nm_{i}, type: SetSchemaMetadata$Value, schema.name: bench.v{v}}}",
    "{{name: drop_{i}, type: Filter, predicate: is_test}}",
)
FIRST = (  # used once, at the start of the chain
    "{{name: mask_card, type: MaskField$Value, field.syntax.version: V2, fields: [customer.card]}}",
    "{{name: flat, type: Flatten$Value, delimiter: _}}",
)


def pipeline_yaml(name: str, steps: int, variant: int = 0) -> str:
    """A valid pipeline with `steps` transforms."""
    lines = []
    for i in range(steps):
        if i < len(FIRST):
            template = FIRST[i]
        else:
            template = STEPS[(i - len(FIRST)) % len(STEPS)]
        lines.append("  - " + template.format(i=i, v=variant, p1=i - 1, p2=i - 2, p5=i - 5))
    return HEADER.format(name=name) + "\n".join(lines) + "\n" + SINK


def write_pipelines(folder: Path, count: int, steps: int) -> list[Path]:
    """`count` different pipeline files of `steps` steps each under `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for n in range(count):
        path = folder / f"p{n:04d}.yaml"
        path.write_text(pipeline_yaml(f"p{n:04d}", steps, n), encoding="utf-8")
        paths.append(path)
    return paths
