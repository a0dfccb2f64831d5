"""What the compiler's shape remembers across steps that rebuild the value (schema names, persisted metadata)."""

from __future__ import annotations

from pipec.diagnostics import Collector
from pipec.load.document import load_text
from pipec.resolve.builder import Builder
from pipec.validate.schema import validate_document

PIPELINE = """\
version: 1
name: shapes
mode: batch
source:
  connector: kafka
  topics: [orders]
  properties: {bootstrap.servers: "localhost:9092"}
  value: {format: json}
  columns:
    - {name: id, type: BIGINT}
    - {name: note, type: STRING}
    - {name: part, type: INT, metadata: partition}
transforms:
  - {name: named, type: SetSchemaMetadata$Value, schema.name: com.example.Order, schema.version: 3}
  - {name: tidy, type: ReplaceField$Value, renames: ["note:comment"]}
sink:
  connector: kafka
  properties: {bootstrap.servers: "localhost:9092"}
  value: {format: json}
"""


def final_shape(text: str):
    diags = Collector()
    doc = load_text(text, "shapes.yaml", diags)
    doc = doc and validate_document(doc, diags)
    assert doc is not None, diags.errors
    compiled = Builder(doc, diags).build()
    assert compiled is not None, diags.errors
    return compiled.final


def test_replace_field_keeps_the_schema_name_and_persisted_metadata():
    shape = final_shape(PIPELINE)
    assert ("value", "com.example.Order", 3) in shape.schema_names  # Kafka's ReplaceField copies name and version
    assert ("partition", "part") in shape.persisted  # still written as the record's partition
